"""Markdown and JSON output of simulations."""

import json

from skillkit_core.simulate.json_format import to_json
from skillkit_core.simulate.markdown import fence, simulation_markdown
from skillkit_core.simulate.simulate import simulate


def test_fences_outgrow_the_backticks_inside() -> None:
    assert fence("plain", "xml") == "```xml\nplain\n```"
    assert fence("has ``` inside") == "````\nhas ``` inside\n````"


def test_a_transcript_shows_the_wire_the_response_and_what_happened(repo_doctor) -> None:
    report = simulate(
        repo_doctor,
        "claude-code",
        choose={"diagnose.checks.0.status": "fail", "confirm-fixes.approved": True},
    )
    text = simulation_markdown(report)
    assert text.startswith("# Simulation of `repo-doctor` on claude-code")
    first = report.runs[0].turns[0]
    assert json.dumps(first.received, indent=2, ensure_ascii=False) in text
    assert '"preamble": "The skill `repo-doctor` is a workflow' in text
    assert "(generated from its output schema, not run)" in text
    assert "`remediate` reached its visit limit, so its on_max_visits applied" in text
    assert '`gate` → `confirm-fixes` (`"confirm-fixes" if _failing(ctx)' in text
    assert (
        "- Path: diagnose → gate → confirm-fixes → remediate → remediate → remediate → review"
        " → report" in text
    )
    assert "### Done" in text


def test_all_paths_markdown_lists_paths_and_what_was_never_covered(repo_doctor) -> None:
    text = simulation_markdown(simulate(repo_doctor, all_paths=True))
    # The branch remediate → review depends on a sub-store no generated answer changes.
    assert "3 distinct path(s) (not every alternative was explored; see below)." in text
    assert "- no run went `remediate` → `review` (branch)" in text
    assert "| 2 | diagnose → gate → confirm-fixes → report | done |" in text
    assert (
        "| 3 | diagnose → gate → confirm-fixes → remediate → remediate → remediate → review → "
        'report | done | diagnose: checks.0.status="fail"; confirm-fixes: approved=true |' in text
    )
    assert "- Transitions: 8 of 9 taken\n  - never taken: `remediate` → `review` (branch)" in text


def test_json_carries_the_same_report(deploy_check) -> None:
    report = simulate(deploy_check, all_paths=True)
    data = json.loads(to_json(report))
    assert data["allPaths"] is True and data["boundReached"] is False
    assert [run["path"] for run in data["runs"]] == [run.path for run in report.runs]
    turn = data["runs"][0]["turns"][0]
    assert turn["received"]["kind"] == "prompt" and "preamble" in turn["received"]
    assert data["coverage"]["uncoveredTransitions"] == []


def test_names_and_conditions_with_backticks_stay_whole_code_spans() -> None:
    # A condition testing '"`" in ...' ended its code span early; a step name over two
    # lines broke its heading. Judged by a CommonMark parser (markdown-it, rich's own).
    from markdown_it import MarkdownIt
    from pydantic import BaseModel

    from skillkit_core import branch, skill, terminal
    from skillkit_core.simulate.markdown import preview_markdown
    from skillkit_core.simulate.preview import preview

    class Said(BaseModel):
        x: str

    odd = "`code` **bold**\nnext line"
    definition = (
        skill(name="ticks", entry="ask")
        .step(
            "ask",
            prompt="Say.",
            response=Said,
            next=[branch(odd, when=lambda ctx: "`" in ctx.response.x), branch("ask")],
            max_visits=3,
            on_max_visits=odd,
        )
        .step(odd, prompt="Done.", next=terminal)
        .build()
    )
    text = preview_markdown(preview(definition))
    tokens = MarkdownIt("commonmark").parse(text)
    spans = [
        child.content
        for token in tokens
        if token.type == "inline"
        for child in token.children or ()
        if child.type == "code_inline"
    ]
    assert '"`" in ctx.response.x' in spans
    assert "`code` **bold**\\x0anext line" in spans
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert "`` `code` **bold**\\x0anext line ``" in headings

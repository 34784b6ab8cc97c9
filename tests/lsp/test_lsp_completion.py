"""Completion in every place a step, route, tool, host or primitive is named."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import open_file, position, slice_units, uri_of, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")

SKILL = """from skillkit_core import act, branch, skill, terminal


def pick(ctx):
    if ctx.store.steps.ran("gather"):
        return "report"
    return "gather"


flow = (
    skill(name="flow", entry="intro", description="Completion fixture ✨.")
    .step("intro", prompt="Bonjour 👋, let's go.", next="gather")
    .step(
        "gather",
        prompt=lambda ctx: "Use Bash." if "Bash" in ctx.host.tools_available else "Ask.",
        next=[branch("review", when=lambda ctx: True), branch("intro")],
        max_visits=2,
        on_max_visits="report",
    )
    .step("review", prompt=lambda ctx: f"{ctx.store.steps['intro']}", next=pick)
    .step("report", prompt="Écris le rapport 📝.", next=terminal)
    .build()
)
"""


async def _labels(
    client: LanguageClient, uri: str, text: str, needle: str, shift: int, nth: int = 0
):
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, client.encoding, nth=nth, shift=shift),
        )
    )
    assert result is not None, f"no completion at {needle!r}"
    return result.items


async def _open(client: LanguageClient, name: str, text: str) -> str:
    path = client.root / "deploy" / name
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path, text)
    await wait_for(lambda: uri in client.diagnostics, what="the document to be indexed")
    return uri


async def test_step_names_complete_in_next_and_replace_the_string(client: LanguageClient) -> None:
    uri = await _open(client, "flow_a.py", SKILL)
    items = await _labels(client, uri, SKILL, 'next="gather"', len('next="ga'))
    labels = [item.label for item in items]
    assert labels[:4] == ["intro", "gather", "review", "report"]
    assert "self" in labels
    gather = next(item for item in items if item.label == "gather")
    line = SKILL.split("\n")[gather.text_edit.range.start.line]
    replaced = slice_units(
        line,
        gather.text_edit.range.start.character,
        gather.text_edit.range.end.character,
        client.encoding,
    )
    assert replaced == "gather"  # the whole string content, after non-ASCII text


@pytest.mark.parametrize(
    ("needle", "shift"),
    [
        ('entry="intro"', len('entry="i')),
        ('branch("review"', len('branch("r')),
        ('on_max_visits="report"', len('on_max_visits="r')),
        ('return "report"', len('return "r')),
    ],
)
async def test_every_transition_place_completes_steps(
    client: LanguageClient, needle: str, shift: int
) -> None:
    uri = await _open(client, "flow_b.py", SKILL)
    labels = {item.label for item in await _labels(client, uri, SKILL, needle, shift)}
    assert {"intro", "gather", "review", "report"} <= labels


async def test_store_reads_list_guaranteed_steps_first(client: LanguageClient) -> None:
    uri = await _open(client, "flow_c.py", SKILL)

    async def ranked():
        items = await _labels(client, uri, SKILL, "steps['intro']", len("steps['i"))
        return sorted(items, key=lambda item: item.sort_text or item.label)

    # Once the semantic layer has run, "intro" and "gather" are guaranteed before review.
    async def guaranteed_known() -> bool:
        items = await ranked()
        return items[0].detail is not None and items[0].detail.startswith("guaranteed")

    for _ in range(300):
        if await guaranteed_known():
            break
        await asyncio.sleep(0.1)
    items = await ranked()
    head = [item.label for item in items[:2]]
    assert set(head) == {"intro", "gather"}
    report = next(item for item in items if item.label == "report")
    assert report.detail.startswith("optional")


async def test_half_typed_string_still_completes(client: LanguageClient) -> None:
    text = SKILL.replace(
        '.step("report", prompt', '.step("extra", prompt="x", next="re\n    .step("report", prompt'
    )
    uri = await _open(client, "flow_d.py", text)
    items = await _labels(client, uri, text, 'next="re\n', len('next="re'))
    assert {"review", "report"} <= {item.label for item in items}


async def test_tool_names_complete_in_guards(client: LanguageClient) -> None:
    uri = await _open(client, "flow_e.py", SKILL)
    items = await _labels(client, uri, SKILL, '"Bash" in', 2)
    by_label = {item.label: item for item in items}
    assert "Bash" in by_label and "AskUserQuestion" in by_label
    assert by_label["Bash"].detail.startswith("on claude-code")
    assert by_label["shell"].detail.startswith("not on claude-code")


async def test_act_members_complete_with_snippets(client: LanguageClient) -> None:
    text = SKILL.replace('prompt="Écris le rapport 📝."', "prompt=act.")
    uri = await _open(client, "flow_f.py", text)
    items = await _labels(client, uri, text, "prompt=act.", len("prompt=act."))
    by_label = {item.label: item for item in items}
    assert {"ask_user", "confirm", "plan", "checklist", "survey", "subagent"} <= set(by_label)
    confirm = by_label["confirm"]
    assert confirm.insert_text_format == types.InsertTextFormat.Snippet
    assert confirm.text_edit.new_text.startswith('confirm("${1:message}"')


async def test_routes_complete_in_a_dispatcher(client: LanguageClient) -> None:
    path = client.root / "composite" / "help_desk.py"
    text = path.read_text(encoding="utf-8").replace('"subskill:billing"', '"sub"')
    uri = open_file(client, path, text)
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    items = await _labels(client, uri, text, 'lambda ctx: "sub"', len('lambda ctx: "sub'))
    labels = {item.label for item in items}
    assert {"subskill:billing", "topic:hours", "triage"} <= labels


async def test_host_names_complete(client: LanguageClient) -> None:
    text = SKILL + 'RUN_ON = dict(host="cl")\n'
    uri = await _open(client, "flow_g.py", text)
    items = await _labels(client, uri, text, 'host="cl', len('host="cl'))
    assert {"claude-code", "codex", "cline", "generic"} <= {item.label for item in items}


async def test_skill_md_keys_and_values_complete(client: LanguageClient) -> None:
    path = client.root / "notes-skill" / "SKILL.md"
    text = "---\nname: notes-skill\ndescription: Takes notes.\ncon\neffort: \n---\n\nBody.\n"
    uri = open_file(client, path, text)
    items = await _labels(client, uri, text, "con\n", 3)
    labels = [item.label for item in items]
    assert "compatibility" in labels and "context" in labels
    assert "name" not in labels  # already present
    assert labels.index("compatibility") < labels.index("context")  # spec keys first
    values = await _labels(client, uri, text, "effort: ", len("effort: "))
    assert [item.label for item in values] == ["low", "medium", "high", "xhigh", "max"]
    assert uri_of(path) == uri

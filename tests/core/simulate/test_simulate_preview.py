"""Preview: the preamble and each step's prompt, schema and transitions per host."""

import pytest
from pydantic import BaseModel

from skillkit_core import act, reference, skill, terminal
from skillkit_core.hosts import Handshake
from skillkit_core.preamble import generate_preamble
from skillkit_core.simulate.errors import SimulationError
from skillkit_core.simulate.markdown import preview_markdown
from skillkit_core.simulate.preview import preview
from tests.golden_util import assert_golden


def _steps(result):
    return {step.name: step for step in result.steps}


@pytest.mark.parametrize("host", ["claude-code", "generic"])
def test_deploy_check_preview_markdown_matches_its_golden_file(deploy_check, host) -> None:
    text = preview_markdown(preview(deploy_check, host))
    assert_golden(f"simulate/preview-deploy-check-{host}.md", text)


def test_the_preamble_is_the_one_the_engine_sends(deploy_check) -> None:
    result = preview(deploy_check, "claude-code", tools=("Read",), subagent=True)
    handshake = Handshake("claude-code", ("Read",), True)
    assert result.preamble == generate_preamble(handshake, skill_name="deploy-check")
    assert (result.host, result.tools, result.subagent) == ("claude-code", ("Read",), True)
    # A subagent that reported only Read has no tool for any tag; the main agent has.
    assert "AskUserQuestion" not in result.preamble
    assert "AskUserQuestion" in preview(deploy_check, "claude-code").preamble


def test_static_and_dynamic_prompts_are_told_apart_and_examples_labelled(deploy_check) -> None:
    steps = _steps(preview(deploy_check, "claude-code"))
    choose, verify = steps["choose"], steps["verify"]
    assert choose.prompt_kind == "static" and choose.example is None
    assert choose.prompt.startswith('<ask-user type="structured" question="Which environment?">')
    assert verify.prompt_kind == "dynamic"
    assert [name for name, _ in verify.example.store] == ["choose"]
    target = verify.example.store[0][1]["target"]
    assert f"Run pre-deploy checks for {target}." in verify.prompt
    assert verify.guaranteed == ["choose"]
    assert steps["deploy"].guaranteed == ["choose", "verify"]
    assert [(t.target, t.kind, t.condition) for t in verify.transitions] == [
        ("deploy", "branch", "ctx.response.safe"),
        ("abort", "branch", None),
    ]
    assert verify.schema["required"] == ["blockers", "safe"]


def test_params_are_an_example_unless_given(deploy_check, repo_doctor) -> None:
    generated = preview(repo_doctor)
    assert generated.params == {"repo_path": "."} and generated.params_source == "example"
    given = preview(repo_doctor, params={"repo_path": "/srv/app"})
    assert given.params_source == "given"
    assert "/srv/app" in _steps(given)["diagnose"].prompt
    assert preview(deploy_check).params_source == "example"


def test_dynamic_prompts_see_a_store_a_real_run_could_have(repo_doctor) -> None:
    steps = _steps(preview(repo_doctor))
    remediate = steps["remediate"]
    # The example diagnosis had to contain a failing check for remediate to be reached.
    diagnosis = dict(remediate.example.store)["diagnose"]
    failing = [c["name"] for c in diagnosis["checks"] if c["status"] == "fail"]
    assert failing and f'<item status="pending">{failing[0]}</item>' in remediate.prompt
    assert steps["review"].prompt.startswith('<subagent no-recurse="repo-doctor">')
    assert steps["gate"].prompt_kind == "none" and steps["gate"].prompt is None
    assert steps["remediate"].visit_limit == 3 and not steps["remediate"].visit_limit_implicit
    assert steps["remediate"].action["name"] == "record-fixes"


def test_implicit_visit_limits_are_marked(get_to_know_you) -> None:
    steps = _steps(preview(get_to_know_you))
    assert steps["confirm-profile"].visit_limit == 10
    assert steps["confirm-profile"].visit_limit_implicit
    assert steps["write-card"].visit_limit is None
    profile = steps["confirm-profile"]
    assert '<rendered name="profile">' in profile.prompt
    assert [name for name, _ in profile.example.store][:2] == ["greet", "ask-role"]


def test_composites_show_sub_skills_prefixed_and_topics(help_desk) -> None:
    result = preview(help_desk, "claude-code")
    assert result.kind == "composite"
    assert [sub.name for sub in result.subskills] == ["doctor", "setup"]
    doctor = _steps(result.subskills[0])
    assert set(doctor) == {
        "doctor/diagnose",
        "doctor/gate",
        "doctor/report-issues",
        "doctor/report-clean",
    }
    issues = doctor["doctor/report-issues"]
    assert issues.example.store[0][0] == "doctor/diagnose"
    assert result.subskills[1].params_source == "example"
    configure = _steps(result.subskills[1])["setup/configure"]
    assert {t.target for t in configure.transitions} == {"setup/configure", "setup/summary"}
    topics = {t.name: t for t in result.topics}
    assert "Bearer" in topics["auth"].content and topics["auth"].tokens > 0
    # A routed sub-skill's first prompt brings a preamble of its own (the preview left
    # it out, so the author never saw what the agent gets there).
    assert result.subskills[0].preamble.startswith("The skill `doctor` is a workflow")


def test_one_step_can_be_previewed_alone(help_desk) -> None:
    result = preview(help_desk, step="setup/summary")
    assert result.steps == [] and result.preamble is None
    assert [s.name for s in result.subskills[0].steps] == ["setup/summary"]
    with pytest.raises(SimulationError, match="no step 'nope'"):
        preview(help_desk, step="nope")


def test_a_skill_that_does_not_build_is_previewed_as_far_as_it_goes() -> None:
    class Answer(BaseModel):
        text: str

    def broken_prompt(ctx):
        raise RuntimeError("template missing")

    definition = (
        skill(name="half", entry="ask")
        .step("ask", prompt="Ask something.", response=Answer, next="nowhere")
        .step("render", prompt=broken_prompt, response=Answer, next=terminal)
        .step(
            "use",
            prompt=lambda ctx: f"You said {ctx.store.steps['ask'].text}.",
            response=Answer,
            next=terminal,
        )
        .build(strict=False)
    )
    assert definition.problems
    result = preview(definition)
    assert result.problems == list(definition.problems)
    steps = _steps(result)
    assert steps["ask"].prompt == "<prompt>\nAsk something.\n</prompt>"
    assert steps["render"].prompt is None
    assert any("RuntimeError: template missing" in note for note in steps["render"].notes)
    # Unreachable in a broken graph, still rendered with an empty store: its store
    # lookup fails and says so.
    assert not steps["use"].reachable
    assert any("store.steps['ask']" in note for note in steps["use"].notes)
    assert "## Problems" in preview_markdown(result)


def test_a_primitive_that_rejects_example_data_becomes_a_note() -> None:
    class Items(BaseModel):
        items: list[str]

    definition = (
        skill(name="lists", entry="collect")
        .step("collect", prompt="List things.", response=Items, next="show")
        .step(
            "show",
            prompt=lambda ctx: act.checklist(create=[]),
            response=Items,
            next=terminal,
        )
        .build()
    )
    show = _steps(preview(definition))["show"]
    assert show.prompt is None
    assert any("checklist needs at least one item" in note for note in show.notes)


def test_reference_skills_preview_their_topics(tmp_path) -> None:
    notes = (
        reference(name="notes", description="Team notes.")
        .topic("style", label="Style guide", content="Use tabs.")
        .topic("broken", label="Broken", content=lambda ctx: ctx.refs.load("missing.md"))
        .build()
    )
    result = preview(notes)
    assert result.kind == "reference" and result.steps == []
    topics = {t.name: t for t in result.topics}
    assert topics["style"].content == "Use tabs."
    assert topics["broken"].content is None and topics["broken"].notes

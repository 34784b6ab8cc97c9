import pytest

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.hosts import KNOWN_TOOL_NAMES, Handshake
from skillkit_core.primitives import act
from skillkit_core.primitives.registry import (
    PRIMITIVES,
    primitive_for,
    render_primitive,
    resolve_tools,
    tools_in_scope,
)

TAGS = ["ask-user", "confirm", "plan", "checklist", "subagent", "survey"]


def test_registry_lists_each_primitive_once_in_preamble_order():
    assert [spec.tag for spec in PRIMITIVES] == TAGS
    assert [spec.kind for spec in PRIMITIVES] == [
        "ask_user",
        "confirm",
        "plan",
        "checklist",
        "subagent",
        "survey",
    ]


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        (
            "claude-code",
            {
                "ask-user": "AskUserQuestion",
                "confirm": "AskUserQuestion",
                "plan": "ExitPlanMode",
                "checklist": "TaskCreate",
                "subagent": "Agent",
                "survey": "AskUserQuestion",
            },
        ),
        (
            "codex",
            {
                "ask-user": "request_user_input",
                "confirm": "request_user_input",
                "plan": "update_plan",
                "checklist": "update_plan",
                "subagent": "spawn_agent",
                "survey": "request_user_input",
            },
        ),
        (
            "opencode",
            {
                "ask-user": "question",
                "confirm": "question",
                "plan": None,
                "checklist": "todowrite",
                "subagent": "task",
                "survey": "question",
            },
        ),
        (
            "gemini-cli",
            {
                "ask-user": "ask_user",
                "confirm": "ask_user",
                "plan": "exit_plan_mode",
                "checklist": "write_todos",
                "subagent": "invoke_agent",
                "survey": "ask_user",
            },
        ),
        (
            "roo-code",
            {
                "ask-user": "ask_followup_question",
                "confirm": "ask_followup_question",
                "plan": None,
                "checklist": "update_todo_list",
                "subagent": "new_task",
                "survey": "ask_followup_question",
            },
        ),
        (
            "cline",
            {
                "ask-user": "ask_question",
                "confirm": "ask_question",
                "plan": None,
                "checklist": None,
                "subagent": "spawn_agent",
                "survey": "ask_question",
            },
        ),
        (
            "kilo-code",
            {
                "ask-user": "question",
                "confirm": "question",
                "plan": None,
                "checklist": "todowrite",
                "subagent": "task",
                "survey": "question",
            },
        ),
        (
            "github-copilot",
            {
                "ask-user": None,
                "confirm": None,
                "plan": None,
                "checklist": "manage_todo_list",
                "subagent": "runSubagent",
                "survey": None,
            },
        ),
        ("cursor", dict.fromkeys(TAGS)),
        ("amp", dict.fromkeys(TAGS)),
        ("generic", dict.fromkeys(TAGS)),
    ],
)
def test_registry_tools_are_resolved_per_host(host, expected):
    assert resolve_tools(Handshake(host=host)) == expected


def test_explicit_tools_are_unioned_with_the_registry_for_a_top_level_agent():
    handshake = Handshake(host="cursor", tools_available=("TodoWrite", "read_file"))
    tools = resolve_tools(handshake)
    assert tools["checklist"] == "TodoWrite"
    assert tools["ask-user"] is None
    assert tools_in_scope(handshake) == ("TodoWrite", "read_file")


def test_a_top_level_agent_keeps_its_hosts_tools_beside_the_ones_it_reported():
    handshake = Handshake(host="roo-code", tools_available=("read_file",))
    assert "update_todo_list" in tools_in_scope(handshake)
    assert resolve_tools(handshake)["checklist"] == "update_todo_list"


def test_union_keeps_registry_tools_an_agent_did_not_report():
    handshake = Handshake(host="claude-code", tools_available=("Read",))
    assert resolve_tools(handshake) == resolve_tools(Handshake(host="claude-code"))


def test_a_subagents_explicit_tools_are_authoritative():
    handshake = Handshake(host="claude-code", tools_available=("Read", "Grep"), is_subagent=True)
    assert resolve_tools(handshake) == dict.fromkeys(TAGS)
    assert tools_in_scope(handshake) == ("Read", "Grep")


def test_a_subagent_reporting_no_tools_falls_back_to_the_registry():
    handshake = Handshake(host="claude-code", is_subagent=True)
    assert resolve_tools(handshake)["subagent"] == "Agent"


def test_candidates_are_picked_in_priority_order():
    handshake = Handshake(host="generic", tools_available=("TodoWrite", "TaskCreate"))
    assert resolve_tools(handshake)["checklist"] == "TaskCreate"


def test_every_candidate_tool_is_a_known_host_tool():
    for spec in PRIMITIVES:
        assert set(spec.tools) <= KNOWN_TOOL_NAMES, spec.tag


def test_render_primitive_accepts_a_segment_or_its_config():
    segment = act.plan("S", ["a"])
    assert render_primitive(segment) == render_primitive(segment.primitive)
    assert primitive_for(segment).tag == "plan"


def test_render_primitive_refuses_other_values():
    with pytest.raises(SkillDefinitionError, match="not a primitive config: str"):
        render_primitive("plan")

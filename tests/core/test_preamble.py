import pytest

from skillkit_core.hosts import KNOWN_HOST_IDS, Handshake
from skillkit_core.preamble import generate_preamble, preamble_rows
from tests.golden_util import assert_golden

ROW_TAGS = [
    "<system>",
    "<prompt>",
    "<ask-user>",
    "<confirm>",
    "<plan>",
    "<checklist>",
    "<subagent>",
    "<survey>",
    "<rendered>",
]


def _table(preamble: str) -> list[list[str]]:
    lines = [line for line in preamble.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


@pytest.mark.parametrize("host", KNOWN_HOST_IDS)
def test_preamble_golden_per_host(host):
    assert_golden(
        f"preamble/{host}.md", generate_preamble(Handshake(host=host), skill_name="deploy-check")
    )


def test_preamble_golden_for_an_authoritative_subagent():
    handshake = Handshake(host="claude-code", tools_available=("Read", "Grep"), is_subagent=True)
    assert_golden("preamble/subagent-authoritative.md", generate_preamble(handshake))


def test_preamble_golden_for_a_union_of_reported_and_registry_tools():
    handshake = Handshake(host="cursor", tools_available=("TodoWrite", "Agent"))
    assert_golden("preamble/union.md", generate_preamble(handshake))


def test_table_has_the_protocol_header_and_rows_in_order():
    rows = _table(generate_preamble(Handshake(host="claude-code")))
    assert rows[0] == ["Tag", "Tool", "How to use"]
    assert rows[1] == ["---", "---", "---"]
    assert [row[0] for row in rows[2:]] == [f"`{tag}`" for tag in ROW_TAGS]


def test_tool_column_holds_the_bare_tool_or_a_dash():
    rows = {row[0]: row[1] for row in _table(generate_preamble(Handshake(host="claude-code")))}
    assert rows["`<ask-user>`"] == "AskUserQuestion"
    assert rows["`<checklist>`"] == "TaskCreate"
    assert rows["`<system>`"] == "—"
    generic = {row[0]: row[1] for row in _table(generate_preamble(Handshake()))}
    assert generic["`<plan>`"] == "—"


def test_usage_text_differs_between_tool_and_prose_fallback():
    with_tool = {r.tag: r.how for r in preamble_rows(Handshake(host="claude-code"))}
    fallback = {r.tag: r.how for r in preamble_rows(Handshake())}
    for tag in ROW_TAGS[2:-1]:
        assert with_tool[tag] != fallback[tag], tag
    assert "numbered list" in fallback["<ask-user>"]
    assert "markdown checklist" in fallback["<checklist>"]
    assert with_tool["<system>"] == fallback["<system>"]


def test_system_text_comes_first():
    preamble = generate_preamble(Handshake(), system="  You are a patient mentor.\n")
    assert preamble.startswith("You are a patient mentor.\n\n")


def test_skill_name_appears_in_the_introduction():
    assert "`deploy-check`" in generate_preamble(Handshake(), skill_name="deploy-check")
    assert "`" not in generate_preamble(Handshake()).split("\n\n")[0]


def test_unknown_host_gets_the_generic_preamble(capsys):
    assert generate_preamble(Handshake(host="mystery-agent")) == generate_preamble(Handshake())
    assert "mystery-agent" in capsys.readouterr().err


def test_a_tool_the_host_must_enable_first_says_so_in_its_row():
    rows = {row.tag: row for row in preamble_rows(Handshake(host="gemini-cli"))}
    assert rows["<checklist>"].tool == "write_todos"
    assert "useWriteTodos" in rows["<checklist>"].how
    codex = {row.tag: row for row in preamble_rows(Handshake(host="codex"))}
    assert codex["<ask-user>"].tool == "request_user_input"
    assert "Plan mode" in codex["<ask-user>"].how


def test_a_reported_tool_needs_no_enabling_note():
    handshake = Handshake(host="gemini-cli", tools_available=("write_todos",))
    rows = {row.tag: row for row in preamble_rows(handshake)}
    assert rows["<checklist>"].tool == "write_todos"
    assert "useWriteTodos" not in rows["<checklist>"].how


def test_an_older_name_in_tools_still_resolves_and_is_named_as_reported():
    handshake = Handshake(
        host="kilo-code", tools_available=("ask_followup_question", "new_task"), is_subagent=True
    )
    rows = {row.tag: row.tool for row in preamble_rows(handshake)}
    assert rows["<ask-user>"] == "ask_followup_question"
    assert rows["<subagent>"] == "new_task"
    assert rows["<checklist>"] is None


def test_a_host_without_the_tool_gets_plain_conversation_rows():
    rows = {row.tag: row for row in preamble_rows(Handshake(host="cline"))}
    assert rows["<plan>"].tool is None
    assert "numbered list" in rows["<plan>"].how

"""The tool-name rules read the host inventory: real model-facing names count, the
internal type names and made-up spellings of the old inventory do not."""

import pytest

from skillkit_core.lint.rules.workflow_no_host_tool_names import _message, tool_mentions


def _names(text: str) -> list[str]:
    return [mention.tool for mention in tool_mentions(text)]


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("Hand the review to spawn_agent.", "spawn_agent"),
        ("Ask through request_user_input first.", "request_user_input"),
        ("Track it with write_todos.", "write_todos"),
        ("Use `ask_user` for this.", "ask_user"),
        ("Record the steps with update_plan.", "update_plan"),
        ("Use `todowrite` to track it.", "todowrite"),
        ("Ask with ask_followup_question.", "ask_followup_question"),
    ],
)
def test_a_real_host_tool_name_in_prose_is_a_mention(text, tool):
    assert _names(text) == [tool]


@pytest.mark.parametrize(
    "text",
    [
        "Use ToolRequestUserInput to ask.",
        "Hand it to CollabAgent.",
        "Track it with write-todos.",
        "Then enter-plan-mode.",
        "Ask the user a question and plan the work.",
    ],
)
def test_names_no_host_has_are_not_mentions(text):
    assert _names(text) == []


def test_the_message_names_the_hosts_and_an_older_name_as_such():
    assert "Codex CLI" in _message("review", "spawn_agent")
    assert "Cline" in _message("review", "spawn_agent")
    message = _message("ask", "ask_followup_question")
    assert "Roo Code" in message
    assert "Kilo Code's older name for question" in message

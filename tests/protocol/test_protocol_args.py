"""The command line parser: argv in, an Invocation or a precise usage error out."""

from __future__ import annotations

import pytest

from skillkit_core.errors import UsageError
from skillkit_core.protocol.args import MISSING, BadFlagValue, parse_args

SUBS = ("doctor", "setup")


def test_start_is_the_default_subcommand() -> None:
    inv = parse_args(["--params", '{"a": 1}', "--host", "codex"])
    assert inv.command == "start" and inv.params == {"a": 1} and inv.host == "codex"
    assert inv.output is MISSING and inv.history is MISSING


def test_flags_take_separate_or_inline_values_in_any_order() -> None:
    inv = parse_args(["--step=ask", "advance", "--output", "null", "--history=[]"])
    assert inv.command == "advance" and inv.step == "ask"
    assert inv.output is None and inv.given("output")  # JSON null is a real output
    assert inv.history == []


def test_tools_are_split_on_commas() -> None:
    assert parse_args(["--tools", " Read, ,Bash "]).tools == ("Read", "Bash")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--subagent"], True),
        (["--subagent=true"], True),
        (["--subagent=0"], False),
        ([], False),
    ],
)
def test_subagent_is_a_boolean_flag(argv: list[str], expected: bool) -> None:
    assert parse_args(argv).subagent is expected


def test_subskill_commands() -> None:
    assert (parse_args(["doctor"], SUBS).command, parse_args(["doctor"], SUBS).subskill) == (
        "start",
        "doctor",
    )
    inv = parse_args(["setup", "advance", "--step", "configure", "--output", "{}"], SUBS)
    assert (inv.command, inv.subskill) == ("advance", "setup")
    with pytest.raises(UsageError, match="unknown subcommand 'doctor'"):
        parse_args(["doctor"])  # not a composite


def test_topic_takes_exactly_one_name() -> None:
    assert parse_args(["topic", "auth"]).topic == "auth"
    with pytest.raises(UsageError, match="needs a NAME"):
        parse_args(["topic"])
    with pytest.raises(UsageError, match="unexpected argument 'more'"):
        parse_args(["topic", "auth", "more"])


def test_help_wins_over_everything_else() -> None:
    inv = parse_args(["setup", "advance", "--nope", "-h"], SUBS)
    assert inv.help and inv.help_topic == "advance" and inv.subskill == "setup"
    assert parse_args(["help", "mcp"]).help_topic == "mcp"
    assert parse_args(["--help"]).help_topic is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--parms", "{}"], "did you mean --params"),
        (["-x"], "unknown option '-x'"),
        (["--host", "a", "--host", "b"], "given twice"),
        (["--params"], "needs a value"),
        (["--step", "--output", "{}"], "--step needs a value"),
        (["mcp", "--params", "{}"], "--params does not apply to 'mcp'"),
        (["advance", "--output", "{}"], "advance needs --step"),
        (["advance", "--session", "new"], "--session new starts a session"),
        (["start", "--session", "abc"], "start takes --session new"),
        (["--output-mode", "file"], "only applies in session mode"),
        (["advance", "--session", "x", "--output", "{}"], "--output needs --step"),
        (["advance", "--session", "x", "--history", "[]"], "not used with --session"),
        (["launch"], "unknown subcommand 'launch'"),
    ],
)
def test_usage_errors_say_what_is_wrong(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        parse_args(argv)
    assert not isinstance(caught.value, BadFlagValue)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--params", "{"], "--params is not valid JSON"),
        (["advance", "--step", "a", "--output", "Infinity"], "--output is not valid JSON"),
        (["advance", "--step", "a", "--output", "{}", "--history", '{"a": 1}'], "JSON array"),
        (["--session", "new", "--output-mode", "pipe"], "file or flag"),
        (["--subagent=maybe"], "true/false"),
    ],
)
def test_bad_values_can_be_corrected_and_retried(argv: list[str], message: str) -> None:
    with pytest.raises(BadFlagValue, match=message) as caught:
        parse_args(argv)
    assert caught.value.retry is True and caught.value.code == "usage"

"""The command line of ``scripts/run``, parsed without argparse.

argparse prints its own messages and exits; an agent must instead get a JSON error for
every malformed call. So this is a small hand-written parser: it turns argv into an
``Invocation`` or raises a ``UsageError`` (``BadFlagValue`` when only a flag's value was
wrong, which the agent can correct and retry).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from skillkit_core.errors import UsageError
from skillkit_core.protocol import jsontext

COMMANDS: Final = ("start", "advance", "cleanup", "mcp", "topics", "topic", "help")
"""Subcommands; a composite also accepts ``<subskill> [start|advance]``."""

MISSING: Final = object()
"""A flag that was not given (``None`` is a valid JSON value for ``--output``)."""


class BadFlagValue(UsageError):
    """A flag's value is malformed (bad JSON, wrong type): the same call can be corrected."""

    retry = True


@dataclass(frozen=True)
class Flag:
    """One ``--name`` flag: ``json`` values are parsed, ``boolean`` ones take no value."""

    name: str
    help: str
    metavar: str = "VALUE"
    json: bool = False
    boolean: bool = False


FLAGS: Final = {
    flag.name: flag
    for flag in (
        Flag(
            "params",
            "JSON object checked against the skill's params schema (@FILE: read from a "
            "file; -: from stdin)",
            "JSON",
            json=True,
        ),
        Flag("step", "name of the step being submitted (sub-skill steps: sub/step)", "STEP"),
        Flag(
            "output",
            "JSON value: the agent's response for --step (@FILE: read from a file; -: from stdin)",
            "JSON",
            json=True,
        ),
        Flag(
            "history",
            "JSON array of earlier {step, response, actionResult?} (@FILE or -, as --output)",
            "JSON",
            json=True,
        ),
        Flag("host", "host id: claude-code, codex, opencode, gemini-cli, cursor, ...", "HOST"),
        Flag("tools", "comma-separated names of the tools the agent has", "A,B"),
        Flag("subagent", "the caller is a subagent: --tools is authoritative", boolean=True),
        Flag("session", "'new' on start, the session id on advance and cleanup", "new|ID"),
        Flag("all", "cleanup: every finished session of this skill", boolean=True),
        Flag("session-dir", "folder for session files (default: a private temp folder)", "DIR"),
        Flag(
            "output-mode",
            "session mode: agent appends output lines (file) or passes --output (flag)",
            "file|flag",
        ),
    )
}

ALLOWED: Final = {
    "start": ("params", "host", "tools", "subagent", "session", "session-dir", "output-mode"),
    "advance": (
        "step",
        "output",
        "history",
        "params",
        "host",
        "tools",
        "subagent",
        "session",
        "session-dir",
        "output-mode",
    ),
    "cleanup": ("session", "all", "session-dir"),
    "mcp": ("host", "tools", "subagent"),
    "topics": ("host", "tools", "subagent"),
    "topic": ("host", "tools", "subagent"),
    "help": (),
}

OUTPUT_MODES: Final = ("file", "flag")

MAX_JSON_INPUT: Final = 16 * 1024 * 1024
"""The most bytes a JSON flag reads from ``@FILE`` or standard input."""


@dataclass(frozen=True)
class Invocation:
    """One parsed call of ``scripts/run``."""

    command: str
    subskill: str | None = None
    topic: str | None = None
    help: bool = False
    help_topic: str | None = None
    params: Any = MISSING
    step: str | None = None
    output: Any = MISSING
    history: Any = MISSING
    host: str | None = None
    tools: tuple[str, ...] | None = None
    subagent: bool = False
    session: str | None = None
    session_dir: str | None = None
    output_mode: str | None = None
    all: bool = False
    output_problem: str | None = None
    """Session ``advance``: why ``--output`` could not be read (answered in the file)."""
    flags: frozenset[str] = frozenset()
    """The flags that appeared on the command line (without ``--``)."""

    def given(self, flag: str) -> bool:
        """Whether ``--flag`` appeared on the command line."""
        return flag in self.flags


def parse_args(argv: list[str], subskills: tuple[str, ...] = ()) -> Invocation:
    """Parse ``argv`` (without the program name); ``subskills`` are a composite's names."""
    positionals, raw_flags, wants_help = _split(argv)
    if wants_help:
        return _help_invocation(positionals, subskills)
    command, subskill, topic = _command(positionals, subskills)
    if command == "help":
        return _help_invocation(positionals[1:], subskills)
    for name in raw_flags:
        if name not in ALLOWED[command]:
            shown = f"{subskill} {command}" if subskill else command
            raise UsageError(
                f"--{name} does not apply to '{shown}' (it takes: "
                f"{', '.join('--' + f for f in ALLOWED[command]) or 'no flags'})"
            )
    stdin_flags = [f"--{name}" for name, raw in raw_flags.items() if raw == "-"]
    if len(stdin_flags) > 1:
        raise UsageError(
            f"only one flag can read standard input ('-'), not {', '.join(stdin_flags)}; pass "
            "the others as @FILE"
        )
    values: dict[str, Any] = {}
    for name, raw in raw_flags.items():
        try:
            values[name.replace("-", "_")] = _value(FLAGS[name], raw)
        except BadFlagValue as error:
            if not (command == "advance" and name == "output" and "session" in raw_flags):
                raise
            # In a session, an output that cannot be read is answered in the session file,
            # like any other output that cannot be used.
            values["output_problem"] = error.message
    invocation = Invocation(
        command=command, subskill=subskill, topic=topic, flags=frozenset(raw_flags), **values
    )
    _check_combinations(invocation)
    return invocation


def _split(argv: list[str]) -> tuple[list[str], dict[str, str | bool], bool]:
    """Positionals, ``{flag: raw value}`` and whether help was asked for.

    A malformed flag is raised only when no help was asked for: ``advance --bogus --help``
    still shows the help of ``advance``.
    """
    positionals: list[str] = []
    flags: dict[str, str | bool] = {}
    problems: list[UsageError] = []
    wants_help = False
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "--":
            positionals.extend(argv[index:])
            break
        if token in ("-h", "--help"):
            wants_help = True
        elif not token.startswith("-") or token == "-":
            positionals.append(token)
        elif not token.startswith("--"):
            problems.append(
                UsageError(f"unknown option '{token}'; flags are spelled --name (see --help)")
            )
        else:
            index = _flag(token, argv, index, flags, problems)
    if problems and not wants_help:
        raise problems[0]
    return positionals, flags, wants_help


def _flag(
    token: str,
    argv: list[str],
    index: int,
    flags: dict[str, str | bool],
    problems: list[UsageError],
) -> int:
    """Record one ``--name[=value]`` flag (taking its value from argv when needed); returns
    the index of the next token."""
    name, has_value, value = token[2:].partition("=")
    flag = FLAGS.get(name)
    if flag is None:
        problems.append(UsageError(f"unknown flag '--{name}'{_suggest(name)}; see --help"))
        return index
    if name in flags:
        problems.append(UsageError(f"--{name} is given twice; give each flag once"))
    if flag.boolean:
        try:
            flags[name] = _boolean(name, value) if has_value else True
        except UsageError as error:
            problems.append(error)
        return index
    if not has_value:
        if index >= len(argv) or argv[index].startswith("--"):
            problems.append(UsageError(f"--{name} needs a value ({flag.metavar})"))
            return index
        value = argv[index]
        index += 1
    flags.setdefault(name, value)
    return index


def _suggest(name: str) -> str:
    import difflib

    close = difflib.get_close_matches(name, FLAGS, n=1)
    return f" (did you mean --{close[0]}?)" if close else ""


def _boolean(name: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes"):
        return True
    if lowered in ("0", "false", "no"):
        return False
    raise BadFlagValue(f"--{name} takes no value, or true/false; got '{value}'")


def _command(positionals: list[str], subskills: tuple[str, ...]) -> tuple[str, str | None, Any]:
    """``(command, subskill, topic name)`` from the positional words."""
    if not positionals:
        return "start", None, None
    word, rest = positionals[0], positionals[1:]
    if word == "topic":
        if not rest:
            raise UsageError("topic needs a NAME: scripts/run topic NAME (list them with topics)")
        _no_more(rest[1:], "topic NAME")
        return "topic", None, rest[0]
    if word == "help":
        return "help", None, None
    if word in COMMANDS:
        _no_more(rest, word)
        return word, None, None
    if word in subskills:
        if rest and rest[0] in ("start", "advance"):
            _no_more(rest[1:], f"{word} {rest[0]}")
            return rest[0], word, None
        _no_more(rest, word)
        return "start", word, None
    known = [c for c in COMMANDS if c != "help"] + [f"{s} [start|advance]" for s in subskills]
    raise UsageError(f"unknown subcommand '{word}' (subcommands: {', '.join(known)})")


def _no_more(rest: list[str], what: str) -> None:
    if rest:
        raise UsageError(f"unexpected argument '{rest[0]}' after '{what}'")


def _value(flag: Flag, raw: str | bool) -> Any:
    if flag.boolean:
        return raw
    assert isinstance(raw, str)
    if flag.name == "tools":
        return tuple(name.strip() for name in raw.split(",") if name.strip())
    if not flag.json:
        return raw
    raw = _json_text(flag.name, raw)
    limit = jsontext.WRAPPED_NESTING if flag.name == "history" else jsontext.MAX_NESTING
    try:
        value = jsontext.loads(raw, limit=limit)
    except jsontext.TooDeep as error:
        raise BadFlagValue(f"--{flag.name} is {error}; flatten it") from None
    except ValueError as error:
        raise BadFlagValue(f"--{flag.name} is not valid JSON: {error}") from None
    if flag.name == "history" and not isinstance(value, list):
        raise BadFlagValue(
            f"--history must be a JSON array of {{step, response}} entries; got "
            f"{type(value).__name__}"
        )
    return value


def _json_text(name: str, raw: str) -> str:
    """The JSON text of a JSON flag: the value itself, ``@FILE``'s contents, or (``-``)
    standard input. A JSON value never starts with ``@``, so the forms cannot be confused;
    the file and stdin forms lift the kernel's limit on one argument (128 KiB)."""
    if raw != "-" and not raw.startswith("@"):
        return raw
    import sys

    where = "standard input" if raw == "-" else raw[1:]
    if raw == "-" and sys.stdin is None:  # started with standard input closed
        raise BadFlagValue(f"--{name} -: cannot read standard input: it is closed")
    try:
        if raw == "-":
            data = sys.stdin.buffer.read(MAX_JSON_INPUT + 1)
        else:
            with open(raw[1:], "rb") as stream:
                data = stream.read(MAX_JSON_INPUT + 1)
    except OSError as error:
        raise BadFlagValue(
            f"--{name} {raw}: cannot read {where}: {error.strerror or error}"
        ) from None
    if len(data) > MAX_JSON_INPUT:
        raise BadFlagValue(
            f"--{name} {raw}: {where} holds more than {MAX_JSON_INPUT // (1024 * 1024)} MiB"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadFlagValue(f"--{name} {raw}: {where} is not UTF-8 text ({error.reason})") from None


def _check_combinations(inv: Invocation) -> None:
    if inv.output_mode is not None and inv.output_mode not in OUTPUT_MODES:
        raise BadFlagValue(f"--output-mode must be file or flag; got '{inv.output_mode}'")
    for flag in ("session-dir", "output-mode"):
        if inv.given(flag) and inv.session is None and inv.command != "cleanup":
            raise UsageError(f"--{flag} only applies in session mode (with --session)")
    if inv.command == "cleanup":
        if (inv.session is None) == (not inv.all):
            raise UsageError("cleanup takes --session ID (one session) or --all, one of the two")
        if inv.session == "new":
            raise UsageError("cleanup takes the id of an existing session, not 'new'")
        return
    if inv.command == "start" and inv.session not in (None, "new"):
        raise UsageError(
            "start takes --session new (an existing session continues with advance --session ID)"
        )
    if inv.command != "advance":
        return
    if inv.session == "new":
        raise UsageError("--session new starts a session; use it with start, not advance")
    if inv.session is not None:
        if inv.given("history"):
            raise UsageError(
                "--history is not used with --session: the session file is the history"
            )
        if inv.given("output") and inv.step is None:
            raise UsageError("--output needs --step (the step the output is for)")
        return
    missing = [f"--{name}" for name in ("step", "output") if not inv.given(name)]
    if missing:
        raise UsageError(f"advance needs {' and '.join(missing)} (or --session ID in session mode)")


def _help_invocation(words: list[str], subskills: tuple[str, ...]) -> Invocation:
    """Help for the subcommand named in ``words`` (general help when there is none)."""
    topic = None
    subskill = None
    if words:
        if words[0] in COMMANDS and words[0] != "help":
            topic = words[0]
        elif words[0] in subskills:
            subskill = words[0]
            topic = words[1] if len(words) > 1 and words[1] in ("start", "advance") else "start"
        else:
            topic = None
    return Invocation(command="help", help=True, help_topic=topic, subskill=subskill)

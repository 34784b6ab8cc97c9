"""The one protocol entry: ``main(definition, argv) -> exit code``.

Used by a built skill's ``scripts/run`` and by ``skillkit run ENTRY …``. Results go to
stdout as one compact JSON line; diagnostics go to stderr; every failure is a JSON
``error`` result (never a traceback, unless ``SKILLKIT_DEBUG=1``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, TextIO

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition, schema_uses
from skillkit_core.errors import SkillkitError, UsageError
from skillkit_core.protocol.args import Invocation, parse_args
from skillkit_core.protocol.output import Reply, error_reply, error_wire, result_reply
from skillkit_core.streams import release_stdout, utf8

Definition = SkillDefinition | ReferenceDefinition


def main(
    definition: Definition,
    argv: list[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    skill_record: dict[str, Any] | None = None,
) -> int:
    """Run one protocol call for ``definition``; returns the process exit code.

    ``skill_record`` is what a built skill's build computed about its SKILL.md
    (:mod:`skillkit_core.build.record_data`), for the ``mcp`` subcommand's skills
    extension; the bundle's boot code and the binary's launcher pass it."""
    out = stdout or utf8(sys.stdout)
    err = stderr or utf8(sys.stderr)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        reply = dispatch(definition, args, err, skill_record)
    except SkillkitError as error:
        _debug_traceback(err)
        reply = error_reply(error, _step_of(args))
    except Exception as error:
        _debug_traceback(err)
        from skillkit_core.streams import cannot_write, failed_on_stream

        if failed_on_stream(error):
            # stdout (the MCP transport's, a full disk): no result can reach the client.

            return emit(Reply("", 1, (f"error[output]: {cannot_write(error)}",)), None, err)
        message = (
            f"internal error: {type(error).__name__}: {error} "
            "(set SKILLKIT_DEBUG=1 to see the traceback)"
        )
        reply = result_reply(error_wire("internal", message, _step_of(args)))
    return emit(reply, out, err)


def dispatch(
    definition: Definition,
    argv: list[str],
    err: TextIO,
    skill_record: dict[str, Any] | None = None,
) -> Reply:
    """Parse ``argv`` and run the subcommand; raises ``SkillkitError`` for refused calls
    (``skill_record``: see :func:`main`)."""
    subskills = (
        tuple(s.name for s in definition.subskills)
        if isinstance(definition, SkillDefinition)
        else ()
    )
    inv = parse_args(argv, subskills)
    if inv.help:
        from skillkit_core.protocol.help import help_text

        return Reply(help_text(definition, inv.help_topic, inv.subskill), 0)
    if inv.command in ("topics", "topic"):
        return _topics(definition, inv)
    if inv.command == "cleanup":
        from skillkit_core.protocol.session import cleanup

        return cleanup(definition, inv)
    if inv.session is not None and inv.command != "start":
        from skillkit_core.protocol import session

        # The session's header holds the host, tools and subagent flag of its start.
        return session.advance(definition, inv)
    from skillkit_core.protocol.engines import make_handshake

    handshake = make_handshake(inv.host, inv.tools, inv.subagent)
    if inv.command == "mcp":
        if sys.stdin is None:  # started with standard input closed: no client to serve
            return Reply("", 0)
        try:
            from skillkit_core.protocol.mcp_server import serve
        except ImportError as error:
            raise UsageError(
                f"the mcp subcommand needs the 'mcp' package, which cannot be imported here "
                f"({error}); install it (pip install mcp) or use the command line protocol"
            ) from None
        release_stdout()
        try:
            serve(definition, handshake, skill_record)
        except Exception as error:  # stdout is JSON-RPC's now: no protocol result goes there
            from skillkit_core.streams import failed_on_stream

            if failed_on_stream(error):
                raise  # said as an output error (see main)
            _debug_traceback(err)
            stopped = f"error[internal]: the MCP server stopped: {type(error).__name__}: {error}"
            return Reply("", 1, (stopped,))
        return Reply("", 0)
    if inv.session is not None:
        from skillkit_core.protocol import session

        return session.start(definition, inv, handshake)
    from skillkit_core.protocol import stateless
    from skillkit_core.protocol.engines import workflow_of

    workflow = workflow_of(definition)
    if inv.command == "start":
        return stateless.start(workflow, inv, handshake)
    return stateless.advance(workflow, inv, handshake)


def _topics(definition: Definition, inv: Invocation) -> Reply:
    from skillkit_core.protocol.engines import make_handshake
    from skillkit_core.protocol.output import text_reply
    from skillkit_core.protocol.topics import read_topic, topic_lines

    if inv.command == "topics":
        return text_reply(topic_lines(definition))
    handshake = make_handshake(inv.host, inv.tools, inv.subagent)
    return text_reply(read_topic(definition, inv.topic, handshake))


def preload(definition: Definition) -> None:
    """Load now what calls of ``definition`` would each load on first use: the modules
    :func:`dispatch` imports for every command but ``mcp`` (and those they import on
    first use: prompt assembly, the preamble, references, session snapshots and their
    tags), and each schema's validator and JSON Schema. For a process that serves many
    calls from one load (a built skill's warm process, ``skillkit_core.build.warm``); a
    call behaves the same either way. A schema pydantic refuses is left alone: the call
    that needs it reports the error."""
    from skillkit_core import fast_hash, preamble, refs, safe_text  # noqa: F401
    from skillkit_core.engine import snapshot  # noqa: F401
    from skillkit_core.primitives import registry  # noqa: F401
    from skillkit_core.prompts import assemble  # noqa: F401
    from skillkit_core.protocol import engines, help, session, stateless, topics  # noqa: F401

    for schema in _schemas(definition):
        try:
            schema.json_schema()
        except Exception:  # reported by the call that uses it
            continue


def _schemas(definition: Definition) -> list[Any]:
    if not isinstance(definition, SkillDefinition):
        return []
    d = definition
    found = [use[2] for use in schema_uses(d.params, d.final_output, d.stores, d.steps)]
    for sub in d.subskills:
        found += _schemas(sub.definition)
    return found


def emit(reply: Reply, out: TextIO | None, err: TextIO | None) -> int:
    """Write a reply; a closed stdout (the agent stopped reading, or the process started
    without one: ``None``) is not an error. A stdout that fails otherwise (a full disk,
    an I/O error) is: exit code 1 and a line on stderr. Diagnostics that stderr cannot
    take are dropped (the result still goes to stdout)."""
    if reply.notes:  # one line each, whatever a skill's exception put in them (ESC, CR…)
        from skillkit_core.safe_text import escape_controls

        notes = "".join(f"skillkit: {escape_controls(n, line_breaks=True)}\n" for n in reply.notes)
    else:
        notes = ""
    _write_quietly(err, reply.text + notes)
    if not reply.stdout:
        return reply.code
    if out is None:  # started with stdout closed
        _undo(reply)
        return reply.code
    try:
        out.write(reply.stdout)
        out.flush()
    except OSError as error:
        from skillkit_core.streams import cannot_write, send_to_null

        send_to_null(out)
        _undo(reply)
        if isinstance(error, BrokenPipeError):
            return reply.code
        _write_quietly(err, f"skillkit: error[output]: {cannot_write(error)}\n")
        return 1
    return reply.code


def _undo(reply: Reply) -> None:
    if reply.undo is not None:
        with contextlib.suppress(OSError):
            reply.undo()


def _write_quietly(stream: TextIO | None, text: str) -> None:
    if not text or stream is None:  # None: started without stderr
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        from skillkit_core.streams import send_to_null

        send_to_null(stream)


def _step_of(argv: list[str]) -> str | None:
    """The ``--step`` of a refused call, for the error result."""
    for index, token in enumerate(argv):
        if token == "--step" and index + 1 < len(argv):
            return argv[index + 1]
        if token.startswith("--step="):
            return token.split("=", 1)[1]
    return None


def _debug_traceback(err: TextIO) -> None:
    if os.environ.get("SKILLKIT_DEBUG", "") not in ("", "0"):
        import traceback

        traceback.print_exc(file=err)


def run_entry(
    entry: str | None,
    argv: list[str],
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Load ENTRY (``file.py[:attr]``) and run one protocol call; a load failure is a JSON
    error result like any other."""
    from skillkit_core.loader import load_entry

    out = stdout or utf8(sys.stdout)
    err = stderr or utf8(sys.stderr)
    if entry is None or entry in ("-h", "--help"):
        if entry is not None or "--help" in argv or "-h" in argv:
            return emit(Reply(ENTRY_USAGE, 0), out, err)
        missing = error_wire("usage", "no ENTRY given: " + " ".join(ENTRY_USAGE.split()))
        return emit(result_reply(missing), out, err)
    try:
        definition = load_entry(entry)
    except SkillkitError as error:
        _debug_traceback(err)
        return emit(error_reply(error, _step_of(argv)), out, err)
    except KeyboardInterrupt as error:  # the loader lets it through for commands a person
        from skillkit_core.raised import import_failure  # stops; a call answers it

        message = f"cannot load {entry}: {import_failure(error)}"
        return emit(result_reply(error_wire("entry", message, _step_of(argv))), out, err)
    return main(definition, argv, stdout=out, stderr=err)


ENTRY_USAGE = (
    "usage: skillkit run ENTRY [SUBCOMMAND] [FLAGS]\n"
    "  ENTRY is path/to/skill.py or path/to/skill.py:attr; the rest is scripts/run's command\n"
    "  line (see: skillkit run ENTRY --help)\n"
)

"""``start`` served from data computed at build time (:mod:`skillkit_core.build.start_data`).

A built skill whose first result depends on the host alone carries that result for every
known host. For a ``start`` that asks for nothing else (default params, no ``--tools``,
no ``--subagent``, no sub-skill), the bundle's boot calls :func:`serve` before it imports
the skill's module, so the call costs neither pydantic nor the skill's imports: it prints
the precomputed line, or writes the session file and its sidecar as
:func:`skillkit_core.protocol.session.start` would, with the same session-store code.

Anything else (another flag, a ``--flag=value`` spelling, params other than ``{}``, an
unknown host, a session folder that cannot be used) returns ``None`` before anything is
printed or written, and the call takes the full path, which gives the answer or the error
as always. The one difference a caller can see: the skill's module is not imported, so
what it prints at import time is not printed on such a call.

This module imports only the standard library and the session store, and nothing that
imports pydantic.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # no typing import at run time: it is a tenth of this path's cost
    from typing import Any

_VALUED = ("params", "session", "session-dir", "host", "output-mode")
_OUTPUT_MODES = ("file", "flag")


def serve(data: dict[str, Any], argv: list[str]) -> int | None:
    """Answer ``argv`` from ``data`` and return the exit code, or ``None`` (nothing
    printed or written) when the call needs the full path."""
    flags = _flags(argv)
    if flags is None:
        return None
    host = _host(data, flags.get("host"))
    if host is None:
        return None
    name, note = host
    line = data["lines"][name]
    if "session" not in flags:
        return _print(line, note, ())[0]
    return _start_session(data, flags, name, line, note)


def _flags(argv: list[str]) -> dict[str, str] | None:
    """The flags of ``[start] --flag value …`` when every one is one this path serves,
    given once, with a value that does not start with ``--``; else ``None``."""
    tokens = argv[1:] if argv[:1] == ["start"] else argv
    if len(tokens) % 2:
        return None
    flags: dict[str, str] = {}
    for index in range(0, len(tokens), 2):
        token, value = tokens[index], tokens[index + 1]
        name = token[2:]
        if not token.startswith("--") or name not in _VALUED or name in flags:
            return None
        if value.startswith("--"):
            return None
        flags[name] = value
    if "params" in flags and flags["params"].strip(" \t\n\r") != "{}":
        return None
    session = flags.get("session")
    if session is None:
        if "session-dir" in flags or "output-mode" in flags:
            return None  # a usage error: the full path reports it
    elif session != "new":
        return None
    if flags.get("output-mode", "file") not in _OUTPUT_MODES:
        return None
    return flags


def _host(data: dict[str, Any], given: str | None) -> tuple[str, str | None] | None:
    """The host id and the detection note, as ``protocol.engines.make_handshake`` and
    ``hosts.normalize_host`` give them; ``None`` for a host name they would warn about."""
    if given is not None:
        key = given.strip().lower()
        if not key:
            return "generic", None
        return (key, None) if key in data["lines"] else None
    for variable, host, reason in data["detect"]:
        if os.environ.get(variable):
            return host, f"skillkit: host: {host} (detected: {reason})"
    return "generic", None


def _start_session(
    data: dict[str, Any], flags: dict[str, str], host: str, line: str, note: str | None
) -> int | None:
    from skillkit_core.errors import SessionError
    from skillkit_core.protocol.session_store import (
        create_file,
        new_session_id,
        remove_session,
        session_dir,
        session_path,
        sidecar_path,
    )

    try:
        folder = session_dir(flags.get("session-dir"), create=True)
        session_id = new_session_id()
        header = {
            "type": "header",
            "sessionId": session_id,
            "skill": data["skill"],
            "host": host,
            "params": data["params"],
            "createdAt": _now(),
            "outputMode": flags.get("output-mode", "file"),
        }
        # The result line is the stdout line with "type" (its kind) in front.
        result = '{"type":"prompt",' + line[1:]
        body = (_json_line(header) + "\n" + result + "\n").encode("utf-8")
        path = session_path(folder, session_id)
        create_file(path, body)
    except (SessionError, OSError):
        return None  # the full path meets the same problem and reports it
    sidecar = sidecar_path(folder, session_id)
    warning = _write_sidecar(data, sidecar, session_id, body)
    pointer = {"sessionId": session_id, "file": str(path), "line": 2}
    code, delivered = _print(_json_line(pointer), note, (warning,) if warning else ())
    if not delivered:  # nobody learns of the session: it is not left behind
        remove_session(path, sidecar)
    return code


def _write_sidecar(data: dict[str, Any], path: Any, session_id: str, body: bytes) -> str | None:
    """``session._write_cache`` for the precomputed run state."""
    from skillkit_core.protocol.session_store import content_digest, write_signed_sidecar

    cache = {
        "v": data["sidecarVersion"],
        "sessionId": session_id,
        "bytes": len(body),
        "lines": 2,
        "blake2b": content_digest(body).hexdigest(),
        "engine": data["snapshot"],
    }
    return write_signed_sidecar(path, _json_line(cache).encode("utf-8"))


def _print(stdout: str, note: str | None, notes: tuple[str, ...]) -> tuple[int, bool]:
    """Write as ``protocol.runner.emit`` does: stderr first (dropped when it cannot be
    written), then the one stdout line, both UTF-8 whatever the locale. The exit code,
    and whether the line reached its reader."""
    err = []
    if note is not None:
        err.append(note + "\n")
    err.extend(f"skillkit: {text}\n" for text in notes)
    if err:
        _write_quietly(2, "".join(err))
    try:
        sys.stdout.flush()
        _write_all(sys.stdout.fileno(), (stdout + "\n").encode("utf-8"))
    except (BrokenPipeError, AttributeError, ValueError):
        return 0, False  # the agent stopped reading, or gave no stdout (as in emit)
    except OSError as error:
        from skillkit_core.streams import cannot_write, send_to_null

        send_to_null(sys.stdout)
        _write_quietly(2, f"skillkit: error[output]: {cannot_write(error)}\n")
        return 1, False
    return 0, True


def _write_quietly(fd: int, text: str) -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
        _write_all(fd, text.encode("utf-8"))


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def _json_line(value: Any) -> str:
    """``protocol.output.json_line``: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _now() -> str:
    """``protocol.session._now``."""
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

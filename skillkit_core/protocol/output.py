"""What a protocol call prints: one compact JSON line (or text) and an exit code.

Exit codes follow the protocol: 0 for ``prompt`` and ``done`` results and for validation
errors (a normal, retryable answer); 1 for every other error, which is still printed as a
JSON ``error`` result on stdout, with a one-line message on stderr.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from skillkit_core.errors import SkillkitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""skillkit's own encoder, made before any skill module is imported: a module that
rebinds ``json.dumps`` (``functools.partial(json.dumps, indent=2)``) made every result
span lines."""

RETRYABLE_CODES = frozenset({"params", "validation"})
"""Error codes whose call the agent can correct and repeat (besides ``BadFlagValue``)."""


def json_line(data: Any) -> str:
    """``data`` as one compact JSON line (no trailing newline), always UTF-8 text: a
    character that has none (a lone surrogate, such as the bytes of a command-line
    argument that is not UTF-8, echoed in a message) is written as its escape, ``\\xff``,
    and so are the line breaks of Unicode that JSON does not count (``\\u2028``)."""
    text = _COMPACT.encode(data)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _COMPACT.encode(_encodable(data))
        if any(brk in text for brk in _UNICODE_BREAKS):
            text = text.translate(_ESCAPED_BREAKS)
    return text


# Line breaks to Unicode (and to Python's str.splitlines) though not to JSON: written raw,
# a reader that splits lines that way sees a result cut in two. Only strings hold them,
# where their escapes mean the same.
_UNICODE_BREAKS = ("\x85", "\u2028", "\u2029")
_ESCAPED_BREAKS = {ord(c): f"\\u{ord(c):04x}" for c in _UNICODE_BREAKS}


def readable(text: str) -> str:
    """``text`` as UTF-8 text: bytes smuggled in by surrogateescape (a path or an argument
    that is not UTF-8) come back as ``\\xNN``, other lone surrogates as ``\\udNNN``."""
    if _escaped_bytes(text):
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _encodable(data: Any) -> Any:
    if isinstance(data, str):
        return readable(data)
    if isinstance(data, dict):
        return {_encodable(key): _encodable(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_encodable(item) for item in data]
    return data


def _escaped_bytes(text: str) -> bool:
    """Whether every lone surrogate of ``text`` is a byte ``surrogateescape`` kept."""
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class Reply:
    """The outcome of one call: text for stdout, the exit code, and for stderr one-line
    ``notes`` (printed as ``skillkit: <note>``) and free ``text`` (help). ``undo``
    removes what the call made when its stdout never reaches the agent (a session
    nobody would learn the id of)."""

    stdout: str
    code: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    text: str = ""
    undo: Callable[[], None] | None = None


def exit_code(wire: dict[str, Any]) -> int:
    """0 for prompt, done and validation errors; 1 for every other error."""
    if wire.get("kind") != "error" or wire.get("error") == "validation":
        return 0
    return 1


def result_reply(wire: dict[str, Any], notes: tuple[str, ...] = ()) -> Reply:
    """A result object printed as it is."""
    code = exit_code(wire)
    if code:
        notes = (*notes, _one_line(wire.get("error"), wire.get("message")))
    return Reply(json_line(wire) + "\n", code, notes)


def error_wire(
    code: str, message: str, step: str | None = None, *, retry: bool = False
) -> dict[str, Any]:
    """An ``error`` result in the protocol's shape."""
    return {"kind": "error", "error": code, "step": step, "message": message, "retry": retry}


def error_reply(error: SkillkitError, step: str | None = None) -> Reply:
    """A refused call: a JSON error result, exit code 1 (0 for a validation error)."""
    retry = bool(getattr(error, "retry", False)) or error.code in RETRYABLE_CODES
    return result_reply(error_wire(error.code, error.message, step, retry=retry))


def text_reply(text: str) -> Reply:
    """Plain text (topics, topic content), newline-terminated."""
    return Reply(text if text.endswith("\n") else text + "\n")


def _one_line(code: Any, message: Any) -> str:
    flat = " ".join(str(message or "").split())
    return f"error[{code}]: {flat}"

"""What every primitive shares: config base, preamble rows, XML escaping, validation.

A primitive is one module (``ask_user.py``, ``confirm.py``, ...) holding its frozen
config, a ``create`` function that validates author input, a ``render`` function that
produces the XML tag, and a ``PRIMITIVE`` spec listing its tag, candidate tools (every
host's tools for the tag, from the host inventory) and the two preamble texts (with a
tool / prose fallback).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from skillkit_core.errors import SkillDefinitionError

MAX_OPTIONS = 4
MIN_OPTIONS = 2
MAX_HEADER_CHARS = 12


class PrimitiveConfig:
    """Base of the frozen primitive configs; ``kind`` names the primitive."""

    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class PreambleRow:
    """One row of the preamble table: the tag, the resolved tool (or None), usage."""

    tag: str
    tool: str | None
    how: str


@dataclass(frozen=True)
class PrimitiveSpec:
    """The registry entry of one primitive."""

    kind: str
    tag: str
    tools: tuple[str, ...]
    config_type: type[PrimitiveConfig]
    render: Callable[..., str]
    usage_with_tool: str
    usage_without_tool: str

    def pick_tool(self, available: Iterable[str]) -> str | None:
        """The first candidate tool (in priority order) that ``available`` contains."""
        have = set(available)
        return next((tool for tool in self.tools if tool in have), None)

    def preamble_row(self, tool: str | None, note: str | None = None) -> PreambleRow:
        """This primitive's preamble row for the resolved ``tool`` (None: prose only);
        ``note`` (what the host needs first, say) follows the usage text."""
        how = self.usage_with_tool if tool else self.usage_without_tool
        if tool and note:
            how = f"{how} {note}"
        return PreambleRow(tag=f"<{self.tag}>", tool=tool, how=how)


# --- XML escaping -------------------------------------------------------------------

# Characters XML 1.0 cannot carry at all, not even as character references.
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ATTR_ESCAPES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "\n": "&#10;",
    "\r": "&#13;",
    "\t": "&#9;",
}
_TEXT_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"}
_ATTR_RE = re.compile('[&<>"\n\r\t]')
_TEXT_RE = re.compile("[&<>\r]")


def _legal(text: str) -> str:
    # A control character cannot appear in XML; U+FFFD keeps the tag parseable and
    # makes the loss visible instead of breaking the whole prompt.
    return _ILLEGAL_XML.sub("\ufffd", text)


def xml_attr(value: str) -> str:
    """Escape ``value`` for a double-quoted attribute (newlines and tabs survive)."""
    return _ATTR_RE.sub(lambda m: _ATTR_ESCAPES[m.group()], _legal(value))


def xml_text(value: str) -> str:
    """Escape ``value`` as element text."""
    return _TEXT_RE.sub(lambda m: _TEXT_ESCAPES[m.group()], _legal(value))


def open_tag(tag: str, attrs: Iterable[tuple[str, str | None]], *, empty: bool = False) -> str:
    """``<tag a="1" b="2">`` with escaped values; attributes whose value is None are left
    out; ``empty`` closes the tag (`` />``)."""
    parts = [tag] + [f'{name}="{xml_attr(value)}"' for name, value in attrs if value is not None]
    return "<" + " ".join(parts) + (" />" if empty else ">")


def element(tag: str, attrs: Iterable[tuple[str, str | None]], text: str) -> str:
    """A one-line element: ``<tag attrs>text</tag>``."""
    return f"{open_tag(tag, attrs)}{xml_text(text)}</{tag}>"


# --- input validation ---------------------------------------------------------------


def fail(where: str, message: str) -> SkillDefinitionError:
    """The error for invalid primitive input, prefixed with the call that got it."""
    return SkillDefinitionError(f"{where}: {message}")


def require_text(where: str, field: str, value: Any) -> str:
    """``value`` must be a string with some non-space content."""
    if not isinstance(value, str):
        raise fail(where, f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise fail(where, f"{field} must not be empty")
    return value


def optional_text(where: str, field: str, value: Any) -> str | None:
    """Like ``require_text`` but None passes through."""
    return None if value is None else require_text(where, field, value)


def require_bool(where: str, field: str, value: Any) -> bool:
    """``value`` must be a real bool (not 0/1 or a string)."""
    if not isinstance(value, bool):
        raise fail(where, f"{field} must be True or False, got {value!r}")
    return value


def require_choice(where: str, field: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` must be one of ``choices``."""
    if value not in choices:
        allowed = ", ".join(repr(choice) for choice in choices)
        raise fail(where, f"{field} must be one of {allowed}, got {value!r}")
    return value


def require_header(where: str, value: Any) -> str | None:
    """An optional short header (a chip label on hosts that show one)."""
    header = optional_text(where, "header", value)
    if header is not None and len(header) > MAX_HEADER_CHARS:
        raise fail(
            where,
            f"header must be at most {MAX_HEADER_CHARS} characters, got {len(header)} ({header!r})",
        )
    return header


def require_list(where: str, field: str, value: Any) -> list[Any]:
    """``value`` must be a list or tuple (a string is refused, it is not a list)."""
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise fail(where, f"{field} must be a list, got {type(value).__name__}")
    return list(value)


def fields_of(
    where: str,
    item: Any,
    cls: type,
    required: tuple[str, ...],
    optional: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Read a config item given as a mapping or as an instance of ``cls``.

    Unknown keys are refused (a typo such as ``desc`` would otherwise vanish silently),
    and missing required keys are named.
    """
    if isinstance(item, cls):
        return {name: getattr(item, name) for name in (*required, *optional)}
    if not isinstance(item, Mapping):
        raise fail(where, f"expected a dict, got {type(item).__name__} ({item!r:.60})")
    unknown = sorted(set(item) - set(required) - set(optional))
    if unknown:
        allowed = ", ".join((*required, *optional))
        raise fail(where, f"unknown key(s) {', '.join(map(repr, unknown))} (allowed: {allowed})")
    missing = [name for name in required if name not in item]
    if missing:
        raise fail(where, f"missing key(s) {', '.join(map(repr, missing))}")
    return {name: item.get(name) for name in (*required, *optional)}

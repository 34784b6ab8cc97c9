"""JSON text from an agent: parsed with a bound on nesting, scanned without parsing.

Python's ``json`` parser recurses once per level of nesting, so a value nested a few
thousand levels deep raises ``RecursionError`` (and one nested a few hundred levels deep
can still exhaust the stack of whatever walks it next). Agent input (a ``--output`` flag,
a line appended to a session file) is checked first with a scan that does not recurse:
deeper than :data:`MAX_NESTING` levels is an ordinary ``ValueError``, like any other
JSON the protocol cannot use. Standard library only (this is on the per-call path).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

MAX_NESTING = 200
"""Arrays and objects nested deeper than this are refused (the MCP transport's own JSON
parser stops at about 250)."""

WRAPPED_NESTING = MAX_NESTING + 3
"""The limit of JSON that holds answers inside skillkit's own wrapping: a ``--history``
(a list of entries, each an object around the response) and a session file's lines (a
result's ``completed``, an ``autoAdvanced`` list of entries). An answer accepted at
:data:`MAX_NESTING` levels must be accepted again there: it was refused as history, and
a session rebuilt without its snapshot took skillkit's own result line for unusable."""

_TOKEN = r'"(?:[^"\\]|\\.)*"|[{}\[\]]'
_token: re.Pattern[str] | None = None

_SURROGATE_ESCAPE = "\\ud"
"""How every escaped surrogate starts (lower-cased); most texts have none, and skip the
check that the value can be written out as UTF-8."""

OPENING = frozenset("{[")
CLOSING = frozenset("}]")


class TooDeep(ValueError):
    """JSON text nested deeper than :data:`MAX_NESTING` levels."""


def loads(text: str, *, limit: int = MAX_NESTING, **options: Any) -> Any:
    """``json.loads(text, **options)``, refusing text nested deeper than ``limit`` levels
    with :class:`TooDeep`, and with a ``ValueError``: what is
    not JSON although Python's parser takes it (``NaN``, ``Infinity``, a number beyond a
    64-bit float), an integer of more digits than Python converts, and a string that is
    not Unicode text (a lone surrogate, escaped as ``\\ud800`` or left in a command-line
    argument by bytes that are not UTF-8), which could not be written back out."""
    check_nesting(text, limit)
    options.setdefault("parse_constant", _no_constant)
    options.setdefault("parse_float", _finite_float)
    try:
        value = json.loads(text, **options)
    except RecursionError:  # a nesting the scan did not see; never a crash
        raise TooDeep(_too_deep_message(limit)) from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # int(): a number of more digits than Python converts
        if "digits" not in str(error):
            raise
        raise ValueError(
            f"a number has more than {sys.get_int_max_str_digits()} digits, more than "
            "skillkit reads"
        ) from None
    try:
        if not text.isascii():
            text.encode("utf-8")  # a raw lone surrogate (argv bytes that are not UTF-8)
        if _SURROGATE_ESCAPE in text.lower():  # an escaped one: only the value can tell
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(
            "a string holds a lone surrogate (\\ud800-\\udfff unpaired, or bytes that "
            "are not UTF-8), which is not Unicode text"
        ) from None
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or an exponent, refused when it does not fit a
    64-bit float (Python reads ``1e400`` as infinity, which no JSON can hold)."""
    value = float(text)
    if value - value != 0.0:  # inf - inf is nan
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"the number {shown} is out of range (beyond ±1.8e308)")
    return value


def check_nesting(text: str, limit: int = MAX_NESTING) -> None:
    """Raise :class:`TooDeep` when ``text`` opens more than ``limit`` arrays or objects
    inside one another. Linear; brackets inside strings do not count."""
    if text.count("[") + text.count("{") <= limit:
        return  # cannot be deeper than the number of brackets it opens
    depth = 0
    for match in token_pattern().finditer(text):
        token = match.group()
        if token in OPENING:
            depth += 1
            if depth > limit:
                raise TooDeep(_too_deep_message(limit))
        elif token in CLOSING:
            depth -= 1


def token_pattern() -> re.Pattern[str]:
    """A JSON string, or one bracket: what a scan that tracks nesting looks at (compiled
    on first use, off the per-call path)."""
    global _token
    if _token is None:
        _token = re.compile(_TOKEN)
    return _token


def _too_deep_message(limit: int = MAX_NESTING) -> str:
    return f"nested more than {limit} levels deep (arrays and objects)"


def request_id_in_text(text: str) -> int | str | None:
    """The ``id`` member of the JSON object ``text``, read without parsing the rest (which
    may be malformed or nested too deeply to parse); ``None`` when there is none."""
    if not text.lstrip().lstrip("\ufeff").startswith("{"):  # a BOM makes no JSON, but its id
        return None
    depth = 0
    for match in token_pattern().finditer(text):
        token = match.group()
        if token in OPENING:
            depth += 1
        elif token in CLOSING:
            depth -= 1
            if depth <= 0:
                return None
        elif depth == 1 and token == '"id"':
            colon = re.compile(r"\s*:\s*").match(text, match.end())  # re caches it
            if colon is None:
                continue  # a string value "id", not the key
            try:
                value, _ = json.JSONDecoder().raw_decode(text, colon.end())
            except (ValueError, RecursionError):  # an id nested thousands deep: no id
                return None
            return request_id(value)
    return None


def request_id(value: Any) -> int | str | None:
    """``value`` when it can be a JSON-RPC request's id (a string or an integer, as MCP
    and LSP allow), else ``None``. A string with a lone surrogate (``"\\udcff"``, which
    JSON's escapes can write) is none: no UTF-8 answer can carry it back, and the MCP
    SDK's writer died trying."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return value
    return None

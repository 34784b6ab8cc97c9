"""Text from skill folders made safe to show: control characters escaped, long values cut.

A SKILL.md, a file name or an author's message can hold ESC, OSC and other C0/C1 control
characters. Printed raw, they move the cursor, retitle or clear the terminal, hide what
follows or spoof links. Every face (``skillkit check``'s text, JSON, SARIF and GitHub
output, the language server's messages) passes such text through :func:`escape_controls`
(or :func:`escape_json_controls` for JSON it has already encoded) before showing it.
"""

import re

# C0 controls but tab and line feed, DEL and the C1 controls (CSI is U+009B, OSC U+009D).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROLS_AND_BREAKS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# What JSON encoders leave raw (they escape C0 themselves); lone surrogates too (the bytes
# of a file name that is not UTF-8, as Python keeps them), which cannot be encoded.
_JSON_RAW_CONTROLS = re.compile(r"[\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def escape_controls(text: str, *, line_breaks: bool = False) -> str:
    """``text`` with each control character written as ``\\xNN`` (ESC as ``\\x1b``).

    Tabs are kept, and line feeds unless ``line_breaks`` asks to escape them too (for
    text that must stay on one line)."""
    pattern = _CONTROLS_AND_BREAKS if line_breaks else _CONTROLS
    if pattern.search(text) is None:  # the common case: nothing to copy
        return text
    return pattern.sub(_escape, text)


def escape_json_controls(encoded: str) -> str:
    """JSON text (as ``json.dumps(..., ensure_ascii=False)`` writes it) with DEL, the C1
    controls and lone surrogates written as ``\\uNNNN`` escapes: the same document once
    parsed, and text that any UTF-8 stream can take."""
    if _JSON_RAW_CONTROLS.search(encoded) is None:
        return encoded
    return _JSON_RAW_CONTROLS.sub(lambda match: f"\\u{ord(match.group()):04x}", encoded)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with ``…``."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


_BACKTICK_RUNS = re.compile(r"`+")


def code_span(text: object) -> str:
    """``text`` as one Markdown code span (CommonMark 6.1) on one line: delimited by a
    backtick run longer than any inside it, padded with a space where it starts or ends
    with a backtick, control characters and line breaks escaped (a condition testing
    ``"`"`` ended its span early; a step name over two lines broke its heading)."""
    shown = escape_controls(str(text), line_breaks=True)
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(shown)), default=0)
    marks = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{marks}{pad}{shown}{pad}{marks}"

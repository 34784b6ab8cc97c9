"""Writing YAML scalars back into a frontmatter (for fixes), without importing PyYAML."""

from __future__ import annotations

import re

# Plain scalars YAML 1.1 or 1.2 parsers would read as something other than a string.
_TYPED = re.compile(
    r"[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.\d+|\.inf|\.nan|0x[0-9a-fA-F]+|0o[0-7]+)"
    r"|y|n|yes|no|on|off|true|false|null|~|\d{4}-\d\d?-\d\d?.*",
    re.IGNORECASE,
)
_NEEDS_QUOTES = re.compile(r"^[\s\-?:,\[\]{}#&*!|>'\"%@`]|: |\s#|[\s:]$|[\x00-\x1f]")


def needs_quotes(text: str) -> bool:
    """True when ``text`` written as a plain scalar would not read back as that string."""
    return not text or bool(_NEEDS_QUOTES.search(text) or _TYPED.fullmatch(text))


def scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when that is safe, else double-quoted."""
    return quoted(text) if needs_quotes(text) else text


def quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar (JSON string syntax is valid YAML)."""
    import json  # only fixes quote, and most checks fix nothing

    return json.dumps(text, ensure_ascii=False)


def anchored(anchor: str, text: str) -> str:
    """``text`` as a new value for a node that had ``anchor`` (``&name``, or ""): aliases
    elsewhere in the frontmatter name the anchor, so a fix keeps it."""
    return f"{anchor} {text}" if anchor else text

"""``render.checklist``, ``render.code``, ``render.kv`` and ``render.section``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.render.fields import as_mapping, cell_text


def checklist(items: Iterable[Any]) -> str:
    """Items ``{"text", "done"}`` as a markdown task list (``- [x]`` / ``- [ ]``)."""
    lines = []
    for item in items:
        record = as_mapping(item, "render.checklist")
        if "text" not in record:
            raise SkillDefinitionError(f"render.checklist: item without 'text': {item!r:.60}")
        mark = "x" if record.get("done") else " "
        lines.append(f"- [{mark}] {cell_text(record['text'])}")
    return "\n".join(lines)


def code(source: str, lang: str | None = None) -> str:
    """``source`` in a fenced code block, with an optional language tag.

    The fence is made longer than any run of backticks inside ``source`` so the block
    cannot be closed early.
    """
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    body = source.rstrip("\n")
    return f"{fence}{lang or ''}\n{body}\n{fence}"


def kv(pairs: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> str:
    """Key/value lines with the values aligned after the longest key.

    Accepts a mapping or a list of ``(key, value)`` pairs; continuation lines of a
    multi-line value are indented to the value column. Empty input gives ``""``.
    """
    items = list(pairs.items()) if isinstance(pairs, Mapping) else [_pair(p) for p in pairs]
    if not items:
        return ""
    keys = [str(key) for key, _ in items]
    width = max(len(key) for key in keys)
    lines = []
    for key, (_, value) in zip(keys, items, strict=True):
        first, *rest = cell_text(value).split("\n")
        lines.append(f"{key.ljust(width)}  {first}".rstrip())
        lines += [" " * (width + 2) + line for line in rest]
    return "\n".join(lines)


def _pair(pair: Any) -> tuple[Any, Any]:
    if isinstance(pair, str) or not isinstance(pair, tuple | list) or len(pair) != 2:
        raise SkillDefinitionError(f"render.kv: expected (key, value) pairs, got {pair!r:.60}")
    return pair[0], pair[1]


def section(title: str, body: str) -> str:
    """A ``## title`` heading followed by ``body`` (just the heading when empty)."""
    text = body.strip("\n")
    return f"## {title}\n\n{text}" if text.strip() else f"## {title}"

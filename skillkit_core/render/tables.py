"""``render.table``: rows as a markdown table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from skillkit_core.render.fields import as_mapping, cell_text

STATUS_COLUMN = "status"

# Icons put in front of well-known values of a ``status`` column.
DEFAULT_STATUS_ICONS: Mapping[str, str] = {
    "pass": "✅",
    "passed": "✅",
    "ok": "✅",
    "success": "✅",
    "done": "✅",
    "fail": "❌",
    "failed": "❌",
    "error": "❌",
    "warn": "⚠️",
    "warning": "⚠️",
    "skip": "⏭️",
    "skipped": "⏭️",
    "pending": "⏳",
}


def _escape_cell(text: str) -> str:
    # Pipes would split the cell and newlines would end the row.
    return text.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


def table(
    rows: Iterable[Any],
    columns: Sequence[str] | None = None,
    status_icons: Mapping[str, str] | None = None,
) -> str:
    """Render ``rows`` (dicts, models or dataclasses) as a markdown table.

    ``columns`` picks and orders the columns (default: the first row's keys); a missing
    field is an empty cell. Values of a ``status`` column get an icon in front
    (``status_icons`` adds to or overrides the defaults; values without an icon stay
    as they are). No rows give an empty string.
    """
    records = [as_mapping(row, "render.table") for row in rows]
    if not records:
        return ""
    names = list(columns) if columns is not None else list(records[0].keys())
    icons = {**DEFAULT_STATUS_ICONS, **(status_icons or {})}
    lines = [
        "| " + " | ".join(_escape_cell(str(name)) for name in names) + " |",
        "| " + " | ".join("---" for _ in names) + " |",
    ]
    for record in records:
        cells = [_cell(name, record.get(name), icons) for name in names]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(column: str, value: Any, icons: Mapping[str, str]) -> str:
    text = cell_text(value)
    if column == STATUS_COLUMN and text in icons:
        text = f"{icons[text]} {text}"
    return _escape_cell(text)

"""Render helpers: deterministic markdown for views, reports and topics.

Used as a namespace: ``from skillkit_core import render`` then ``render.table(...)``,
``render.checklist(...)``, ``render.code(...)``, ``render.kv(...)``,
``render.section(...)`` and ``render.diff(...)``.
"""

from skillkit_core.render.blocks import checklist, code, kv, section
from skillkit_core.render.diffs import diff
from skillkit_core.render.tables import DEFAULT_STATUS_ICONS, table

__all__ = ["DEFAULT_STATUS_ICONS", "checklist", "code", "diff", "kv", "section", "table"]

"""Folding ranges of SKILL.md and reference files: the frontmatter, sections by heading,
fenced code blocks (see :mod:`skill_lsp.skill_md_structure`)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability


def register(server: Any) -> None:
    """Declare ``textDocument/foldingRange``."""

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding_ranges(
        ls: Any, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange] | None:
        from skill_lsp.skill_md_structure import folding_ranges as ranges_of

        snapshot = ls.documents.get(params.text_document.uri)
        if snapshot is None:
            return None
        limit = get_capability(ls.client_capabilities, "text_document.folding_range.range_limit")
        return ranges_of(snapshot, limit if isinstance(limit, int) and limit > 0 else None)

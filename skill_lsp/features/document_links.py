"""Document links: every relative link and skill-relative path in a SKILL.md or a
reference file that names an existing file (see :mod:`skill_lsp.skill_md_links`).

Each target is checked on disk, so the answer is computed in a thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability


def register(server: Any) -> None:
    """Declare ``textDocument/documentLink`` (targets given at once, no resolve)."""

    @server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False)
    )
    async def document_links(
        ls: Any, params: types.DocumentLinkParams
    ) -> list[types.DocumentLink] | None:
        from skill_lsp.skill_md_links import document_links as links_of

        snapshot = ls.documents.get(params.text_document.uri)
        if snapshot is None:
            return None
        tooltips = get_capability(
            ls.client_capabilities, "text_document.document_link.tooltip_support", False
        )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, links_of, snapshot, bool(tooltips))

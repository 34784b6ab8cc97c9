"""Where a rule's documentation lives, for ``codeDescription`` links and hovers.

Each registered rule gets a small Markdown page (summary, rationale, a bad and a good
example, all from the registry) written once per server version into the user's cache
folder; the link is that file's URI, so it opens offline in any editor.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

_written: dict[str, str | None] = {}


def find_rule(rule_id: str) -> Any:
    """The registered rule with this id, or None (server-side findings have no entry)."""
    try:
        from skillkit_core.lint.registry import RULES
    except ImportError:
        return None
    return next((rule for rule in RULES if rule.id == rule_id), None)


def rule_doc_uri(rule_id: str, version: str) -> str | None:
    """A ``file:`` URI of the rule's page, written on first use; None for unknown rules."""
    key = f"{version}/{rule_id}"
    if key in _written:
        return _written[key]
    rule = find_rule(rule_id)
    uri = None
    if rule is not None:
        uri = _write_page(rule, version)
    _written[key] = uri
    return uri


def _write_page(rule: Any, version: str) -> str | None:
    """Write the rule's page under ``rules`` in skillkit's cache, else under
    ``skillkit-<uid>`` in the temp folder, as the editor previews do
    (:func:`~skillkit_core.cache_folder.own_cache_folder`); its URI, or None when
    neither serves."""
    try:
        from skillkit_core.cache_folder import own_cache_folder, own_folder
        from skillkit_core.lint.rules_doc import rule_markdown

        folder = Path(own_folder(os.path.join(own_cache_folder("rules"), version)))
        target = folder / f"{rule.id}.md"
        page = rule_markdown(rule).encode("utf-8")
        # Compared as bytes: a damaged page (not UTF-8) is one to write again, not an error.
        if not target.is_file() or target.read_bytes() != page:
            # Write beside, then rename: two servers starting together never see half a page.
            handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(handle, "wb") as stream:
                stream.write(page)
            os.replace(temporary, target)
    except OSError:
        return None
    return target.as_uri()

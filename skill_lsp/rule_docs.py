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


def _cache_root() -> Path:
    from skillkit_core.cache_folder import cache_folder

    return Path(cache_folder("rules"))


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
    """Write the rule's page under ``rules`` in skillkit's cache, else (a cache folder
    another user could change, or none that can be written) under ``skillkit-<uid>`` in
    the temp folder, as the editor previews do; its URI, or None when neither serves."""
    from skillkit_core.cache_folder import temp_cache_root

    for root in (_cache_root(), Path(temp_cache_root()) / "rules"):
        uri = _write_page_in(root / version, rule)
        if uri is not None:
            return uri
    return None


def _write_page_in(folder: Path, rule: Any) -> str | None:
    target = folder / f"{rule.id}.md"
    try:
        from skillkit_core.cache_folder import own_folder
        from skillkit_core.lint.rules_doc import rule_markdown

        own_folder(str(folder))

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

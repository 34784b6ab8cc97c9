"""The built SKILL.md's registry record, computed at build time for ``scripts/run mcp``.

A built skill's MCP server serves its own folder through the MCP skills extension
(SEP-2640), which lists the skill's name, description and frontmatter. Reading those from
SKILL.md takes the manifest parser (PyYAML) and the linter's serving rules, which a bundle
must not carry. The build wrote that SKILL.md, so it reads it here with the registry's own
:func:`~skillkit_core.runtime.registry.read_record` and stores the outcome, with the
``sha256`` of the bytes it came from, in the bundle's configuration;
:mod:`skillkit_core.protocol.built_record` turns it back into a record at run time, as
long as SKILL.md still has those bytes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

SKILL_MD = "SKILL.md"


def skill_record_data(folder: Path) -> dict[str, Any] | None:
    """The record data of the SKILL.md in the built ``folder``: ``name``, ``description``,
    ``frontmatter`` (JSON-safe, as the registry lists it), ``body`` and ``digest``
    (``sha256:<hex>`` of the file's bytes); ``None`` when the registry would not serve it
    (the build's own check then reports why)."""
    from skillkit_core.manifest.parse import parse_skill_md
    from skillkit_core.runtime.registry import RegistryWarning, read_record

    path = folder / SKILL_MD
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # Parsed from the very bytes the digest is taken of, so the two cannot disagree.
    outcome = read_record(folder, folder, parse_skill_md(text, str(path)))
    if isinstance(outcome, RegistryWarning):
        return None
    return {
        "name": outcome.name,
        "description": outcome.description,
        "frontmatter": outcome.properties,
        "body": outcome.body,
        "digest": "sha256:" + hashlib.sha256(raw).hexdigest(),
    }

"""A built skill's own registry record, from what its build computed
(:mod:`skillkit_core.build.record_data`), for the MCP skills extension of
``scripts/run mcp``.

The bundle carries neither the manifest parser nor the linter, so SKILL.md is not parsed
here: the build stored the record of the SKILL.md it wrote with the ``sha256`` of its
bytes, and :func:`built_reader` gives that record while the file still has those bytes. A
SKILL.md edited after the build is refused with a warning saying so (the server then runs
without the extension); rebuilding the skill serves the new text.

This module imports only the standard library and :mod:`skillkit_core.runtime.records`.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from skillkit_core.runtime.records import RecordReader, RegistryWarning, SkillRecord

SKILL_MD = "SKILL.md"


def built_reader(data: dict[str, Any], skill_dir: str | Path) -> RecordReader:
    """A registry reader for the built skill in ``skill_dir`` whose build stored ``data``
    (see :func:`skillkit_core.build.record_data.skill_record_data`).

    It reads that one folder: its SKILL.md's bytes are hashed and, when they are the ones
    the build saw, the stored record is returned with this folder's paths. Any other
    folder (a nested skill, which would need parsing) and a changed, missing or unreadable
    SKILL.md give a :class:`RegistryWarning`.
    """
    own_folder = os.path.realpath(skill_dir)

    def read(folder: Path, source_root: Path) -> SkillRecord | RegistryWarning:
        where = str(folder / SKILL_MD)
        if os.path.realpath(folder) != own_folder:
            return RegistryWarning(
                where,
                "skipped: a built skill's server reads no SKILL.md but its own (any other "
                "would need the manifest parser, which the bundle leaves out)",
            )
        location = Path(os.path.realpath(where))
        if not location.is_relative_to(os.path.realpath(source_root)):
            return RegistryWarning(where, f"skipped: it leads to {location}, outside the root")
        if not location.is_file():
            return RegistryWarning(where, "skipped: it is missing or not a regular file")
        try:
            with open(location, "rb") as handle:
                digest = "sha256:" + hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError as error:
            return RegistryWarning(where, f"skipped: cannot read it: {error.strerror or error}")
        if digest != data["digest"]:
            return RegistryWarning(
                where,
                "skipped: it was changed after 'skillkit build' wrote it (its sha256 is not "
                "the build's) and a built skill's server cannot parse SKILL.md; rebuild the "
                "skill to serve the new text",
            )
        return SkillRecord(
            name=data["name"],
            description=data["description"],
            location=location,
            root_dir=location.parent,
            properties=data["frontmatter"],
            digest=digest,
            body=data["body"],
            source_root=Path(source_root),
        )

    return read

"""A built skill's own record: computed by the build from the SKILL.md it wrote
(``build.record_data``), given back at run time without parsing (``protocol.built_record``)
while SKILL.md keeps the bytes the build saw."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from skillkit_core.build.record_data import skill_record_data
from skillkit_core.errors import SkillkitError
from skillkit_core.protocol.built_record import built_reader
from skillkit_core.runtime.records import Registry, RegistryWarning, SkillRecord
from skillkit_core.runtime.registry import read_record

SKILL_MD = """\
---
name: release-notes
description: "  Draft release notes from merged pull requests.  "
released: 2025-01-02
metadata:
  tags: [notes, git]
  ratio: .nan
---

# Release notes

Run `scripts/run start`.
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    skill = tmp_path / "release-notes"
    skill.mkdir()
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    return skill


def test_the_built_record_is_the_record_discovery_reads(folder: Path) -> None:
    data = skill_record_data(folder)
    assert data is not None
    raw = (folder / "SKILL.md").read_bytes()
    assert data["digest"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    # YAML-only values (a date, a NaN) come out as the registry lists them.
    assert data["frontmatter"]["released"] == "2025-01-02"
    assert data["frontmatter"]["metadata"] == {"tags": ["notes", "git"], "ratio": "nan"}
    built = built_reader(data, folder)(folder, folder)
    parsed = read_record(folder, folder)
    assert isinstance(built, SkillRecord) and built == parsed


def test_a_skill_md_edited_after_the_build_is_refused_with_the_reason(folder: Path) -> None:
    data = skill_record_data(folder)
    assert data is not None
    read = built_reader(data, folder)
    (folder / "SKILL.md").write_text(SKILL_MD.replace("Draft", "Write"), encoding="utf-8")
    outcome = read(folder, folder)
    assert isinstance(outcome, RegistryWarning)
    assert outcome.path == str(folder / "SKILL.md")
    assert "changed after 'skillkit build' wrote it" in outcome.message
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    assert isinstance(read(folder, folder), SkillRecord)


def test_a_missing_skill_md_is_refused(folder: Path) -> None:
    data = skill_record_data(folder)
    assert data is not None
    (folder / "SKILL.md").unlink()
    outcome = built_reader(data, folder)(folder, folder)
    assert isinstance(outcome, RegistryWarning) and "missing" in outcome.message


def test_no_other_folder_is_read(folder: Path) -> None:
    """A nested skill would need the manifest parser, which a bundle does not carry."""
    data = skill_record_data(folder)
    assert data is not None
    nested = folder / "assets" / "example"
    nested.mkdir(parents=True)
    (nested / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    outcome = built_reader(data, folder)(nested, folder)
    assert isinstance(outcome, RegistryWarning)
    assert "reads no SKILL.md but its own" in outcome.message


def test_a_skill_md_the_registry_would_not_serve_has_no_record(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("---\nname: Bad Name\n---\nbody\n", encoding="utf-8")
    assert skill_record_data(tmp_path) is None


def test_a_registry_refreshes_the_built_record_with_its_reader(folder: Path) -> None:
    data = skill_record_data(folder)
    assert data is not None
    read = built_reader(data, folder)
    record = read(folder, folder)
    assert isinstance(record, SkillRecord)
    record = dataclasses.replace(record, skill_path=("release-notes",), hidden=frozenset({"bin"}))
    registry = Registry((record,), read=read)
    assert registry.reread("release-notes") == record
    (folder / "SKILL.md").write_text(SKILL_MD + "\nMore.\n", encoding="utf-8")
    with pytest.raises(SkillkitError, match=r"can no longer be loaded: .*changed after"):
        registry.reread("release-notes")

"""Skill-scoped reads without MCP: text, bytes, listings, limits."""

from __future__ import annotations

import os

import pytest

from skillkit_core.runtime.errors import SkillFileError
from skillkit_core.runtime.reading import read_skill_file
from tests.runtime.support import SKILLS, SkillTree

TOOLBOX = SKILLS / "library" / "toolbox"


def test_utf8_files_come_back_as_text_with_a_mime_type() -> None:
    found = read_skill_file(TOOLBOX, "assets/template.json", skill="toolbox")
    assert found.text == '{"template": "Hello, {name}!"}\n'
    assert (found.mime_type, found.data, found.listing) == ("application/json", None, None)


def test_binary_files_come_back_as_bytes() -> None:
    found = read_skill_file(TOOLBOX, "assets/pixel.png", skill="toolbox")
    assert found.data == (TOOLBOX / "assets/pixel.png").read_bytes()
    assert (found.mime_type, found.text) == ("image/png", None)


def test_a_folder_comes_back_as_a_sorted_listing() -> None:
    found = read_skill_file(TOOLBOX, "scripts/lib", skill="toolbox")
    assert found.listing == ("helpers.py",)
    assert read_skill_file(TOOLBOX, ".", skill="toolbox").listing == (
        "SKILL.md",
        "assets/",
        "references/",
        "scripts/",
    )


def test_reads_over_the_limit_are_refused() -> None:
    with pytest.raises(SkillFileError, match="reads are limited to 10"):
        read_skill_file(TOOLBOX, "references/guide.md", skill="toolbox", max_bytes=10)


def test_a_missing_file_names_what_its_folder_holds() -> None:
    with pytest.raises(SkillFileError, match=r"references/ has: guide\.md"):
        read_skill_file(TOOLBOX, "references/gide.md", skill="toolbox")


def test_special_files_are_refused(own_tree: SkillTree) -> None:
    os.mkfifo(own_tree.toolbox / "references/pipe")
    with pytest.raises(SkillFileError, match="not a regular file"):
        read_skill_file(own_tree.toolbox, "references/pipe", skill="toolbox")


def test_a_link_that_leads_nowhere_is_named_so(own_tree: SkillTree) -> None:
    # A loop or a dangling link was "does not exist", though the listing names it.
    references = own_tree.toolbox / "references"
    (references / "loop-a").symlink_to("loop-b")
    (references / "loop-b").symlink_to("loop-a")
    (references / "dangling").symlink_to("nowhere.md")
    for name in ("loop-a", "dangling"):
        with pytest.raises(SkillFileError, match="is a symlink that leads nowhere"):
            read_skill_file(own_tree.toolbox, f"references/{name}", skill="toolbox")
    (references / "gone").symlink_to("no-such-folder")
    with pytest.raises(SkillFileError, match="'references/gone', on the way to 'references/"):
        read_skill_file(own_tree.toolbox, "references/gone/guide.md", skill="toolbox")

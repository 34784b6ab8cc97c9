"""Path containment: the textual pre-check and the realpath post-check."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillkit_core.runtime.errors import PathRefusedError
from skillkit_core.runtime.paths import is_inside, resolve_inside
from skillkit_core.runtime.reading import read_skill_file
from tests.runtime.support import SkillTree


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "is absolute"),
        ("\\windows\\system32", "is absolute"),
        ("C:\\secret.txt", "is absolute"),
        ("../summarize/SKILL.md", "'..' segment"),
        ("references/../../outside/secret.txt", "'..' segment"),
        ("references/..", "'..' segment"),
        ("..\\..\\outside", "'..' segment"),
        ("references//..//..", "'..' segment"),
        ("", "non-empty"),
        ("   ", "non-empty"),
        ("references/\x00guide.md", r"^path 'references/\\x00guide.md' contains a NUL"),
        ("a/" * 2100, "of 4200 characters is longer than any path"),
        ("references/" + "é" * 128, r"longer than a file name can be \(255 bytes\)"),
    ],
)
def test_the_precheck_refuses_absolute_and_climbing_paths(
    skill_tree: SkillTree, path: str, reason: str
) -> None:
    with pytest.raises(PathRefusedError, match=reason):
        resolve_inside(skill_tree.toolbox, path, skill="toolbox")


@pytest.mark.parametrize(
    "path",
    [
        "references/secret-link.md",  # absolute link to a file outside
        "references/sibling-link.md",  # relative link into a sibling skill
        "linked-outside/secret.txt",  # a file inside a linked folder outside
        "linked-outside",  # the linked folder itself
    ],
)
def test_symlinks_leading_outside_the_skill_are_refused(skill_tree: SkillTree, path: str) -> None:
    with pytest.raises(PathRefusedError, match="outside the skill folder") as caught:
        resolve_inside(skill_tree.toolbox, path, skill="toolbox")
    # Where the link leads is the server's business, not the client's.
    assert str(skill_tree.toolbox.parent.parent) not in caught.value.message
    with pytest.raises(PathRefusedError):
        read_skill_file(skill_tree.toolbox, path, skill="toolbox")


def test_a_symlink_staying_inside_the_skill_is_allowed(skill_tree: SkillTree) -> None:
    real = resolve_inside(skill_tree.toolbox, "references/inner-link.md", skill="toolbox")
    assert real == (skill_tree.toolbox / "references/guide.md").resolve()
    read = read_skill_file(skill_tree.toolbox, "references/inner-link.md", skill="toolbox")
    assert read.text is not None and "GUIDE-MARKER-7" in read.text


def test_dots_inside_names_and_the_root_itself_are_fine(skill_tree: SkillTree) -> None:
    root = skill_tree.toolbox.resolve()
    assert resolve_inside(skill_tree.toolbox, ".", skill="toolbox") == root
    assert resolve_inside(skill_tree.toolbox, "./references/guide.md", skill="toolbox") == (
        root / "references/guide.md"
    )
    assert resolve_inside(skill_tree.toolbox, "a..b", skill="toolbox") == root / "a..b"


def test_is_inside_follows_symlinks(skill_tree: SkillTree) -> None:
    assert is_inside(skill_tree.toolbox / "references/inner-link.md", skill_tree.toolbox)
    assert not is_inside(skill_tree.toolbox / "references/secret-link.md", skill_tree.toolbox)


_segment = st.sampled_from(
    ["..", ".", "references", "guide.md", "linked-outside", "secret-link.md", "", "~", "x"]
)


@settings(max_examples=300, deadline=None)
@given(segments=st.lists(_segment, max_size=6), separator=st.sampled_from(["/", "\\"]))
def test_any_accepted_path_resolves_inside_the_skill(
    skill_tree: SkillTree, segments: list[str], separator: str
) -> None:
    path = separator.join(segments)
    try:
        real = resolve_inside(skill_tree.toolbox, path, skill="toolbox")
    except PathRefusedError:
        return
    root = os.path.realpath(skill_tree.toolbox)
    assert real == type(real)(root) or str(real).startswith(root + os.sep)

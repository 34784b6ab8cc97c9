"""The references loader reads inside the skill folder only."""

import os

import pytest

from skillkit_core.errors import ReferenceLoadError, SkillkitError
from skillkit_core.refs import ReferenceLoader


@pytest.fixture
def skill_dir(tmp_path):
    (tmp_path / "references" / "deep").mkdir(parents=True)
    (tmp_path / "references" / "guide.md").write_text("guide")
    (tmp_path / "references" / "deep" / "more.md").write_text("more")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "logo.svg").write_text("<svg/>")
    (tmp_path / "secret.txt").write_text("secret")
    return tmp_path


def test_reads_references_and_assets_and_caches(skill_dir) -> None:
    refs = ReferenceLoader(skill_dir)
    assert refs.load("guide.md") == "guide"
    assert refs.load("deep/more.md") == "more"
    assert refs.asset("logo.svg") == "<svg/>"
    (skill_dir / "references" / "guide.md").write_text("changed")
    assert refs.load("guide.md") == "guide"


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/passwd", "deep/../../secret.txt", ""])
def test_escapes_are_refused_naming_the_path(skill_dir, path) -> None:
    with pytest.raises(ReferenceLoadError) as caught:
        ReferenceLoader(skill_dir).load(path)
    assert repr(path) in str(caught.value) or path in str(caught.value)


def test_symlinks_leading_outside_are_refused(skill_dir) -> None:
    os.symlink(skill_dir / "secret.txt", skill_dir / "references" / "link.md")
    with pytest.raises(ReferenceLoadError, match="resolves outside references/"):
        ReferenceLoader(skill_dir).load("link.md")


def test_missing_files_name_the_expected_location(skill_dir) -> None:
    with pytest.raises(ReferenceLoadError) as caught:
        ReferenceLoader(skill_dir).load("nope.md")
    assert str(skill_dir / "references" / "nope.md") in str(caught.value)


def test_skill_dir_environment_variable_wins(skill_dir, monkeypatch) -> None:
    monkeypatch.setenv("SKILL_DIR", str(skill_dir))
    assert ReferenceLoader.beside("/somewhere/else.py").load("guide.md") == "guide"


@pytest.mark.parametrize(("folder", "read"), [("references", "load"), ("assets", "asset")])
def test_a_folder_symlinked_outside_the_skill_is_refused_naming_it(tmp_path, folder, read) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    skill_dir = tmp_path / "skill"
    skill_dir.mkdir()
    os.symlink(outside, skill_dir / folder, target_is_directory=True)
    with pytest.raises(ReferenceLoadError) as caught:
        getattr(ReferenceLoader(skill_dir), read)("secret.txt")
    message = str(caught.value)
    assert str(skill_dir / folder) in message and "outside the skill folder" in message


def test_a_folder_symlinked_inside_the_skill_is_read(tmp_path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("guide")
    os.symlink(tmp_path / "docs", tmp_path / "references", target_is_directory=True)
    assert ReferenceLoader(tmp_path).load("guide.md") == "guide"


def test_a_skill_folder_reached_through_a_symlink_still_reads(skill_dir, tmp_path_factory) -> None:
    link = tmp_path_factory.mktemp("links") / "skill"
    os.symlink(skill_dir, link, target_is_directory=True)
    assert ReferenceLoader(link).load("deep/more.md") == "more"


def test_run_skill_takes_references_as_a_plain_mapping() -> None:
    from skillkit_core import skill, terminal
    from skillkit_core.testing import mock_model, run_skill

    guide = (
        skill(name="guide", entry="read", description="Reads its guide.")
        .step("read", prompt=lambda ctx: ctx.refs.load("guide.md"), next=terminal)
        .build()
    )
    result = run_skill(guide, model=mock_model({"read": {}}), refs={"guide.md": "Be brief."})
    assert result.prompts["read"] == "<prompt>\nBe brief.\n</prompt>"
    with pytest.raises(SkillkitError, match=r"references file 'guide\.md' not found"):
        run_skill(guide, model=mock_model({"read": {}}), refs={"other.md": "x"})

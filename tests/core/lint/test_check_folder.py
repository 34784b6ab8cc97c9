"""check_folder / check_skill_folder: the driver around the SKILL.md rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillkit_core.lint.check_folder import check_folder, check_skill_folder
from skillkit_core.lint.rule import Rule
from tests.core.lint.skillmd_support import make_skill, skill_md, summary


def test_unsaved_text_replaces_the_file_on_disk(tmp_path: Path) -> None:
    root = make_skill(tmp_path)
    edited = skill_md(name="PDF-tools")
    found = summary(check_skill_folder(root, text=edited))
    assert found == [
        ("name-folder-mismatch", "error", 2, "SKILL.md"),
        ("name-format", "error", 2, "SKILL.md"),
    ]
    assert check_skill_folder(root) == []


def test_skill_md_path_is_accepted_for_its_folder(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf-tools")})
    assert summary(check_skill_folder(root / "SKILL.md")) == [
        ("name-folder-mismatch", "error", 2, "SKILL.md")
    ]


def test_a_crashing_rule_becomes_a_diagnostic_not_a_crash(tmp_path: Path) -> None:
    def explode(folder):
        raise RuntimeError("boom")

    broken = Rule("exploding", "warning", "s", "r", "b", "g", explode, "manifest")
    report = check_folder(make_skill(tmp_path), rules=[broken])
    (diagnostic,) = report.diagnostics
    assert diagnostic.rule == "exploding"
    assert diagnostic.severity == "error"
    assert diagnostic.message == "internal error in rule exploding: RuntimeError: boom"


def test_diagnostics_are_sorted_by_file_then_position(tmp_path: Path) -> None:
    root = make_skill(
        tmp_path,
        "pdf",
        {
            "SKILL.md": skill_md("pdf-tools", extra="licence: x\n"),
            "scripts/a.py": "print(1)\n",
        },
    )
    found = summary(check_skill_folder(root))
    assert found == [
        ("name-folder-mismatch", "error", 2, "SKILL.md"),
        ("unknown-key", "warning", 4, "SKILL.md"),
        ("script-shebang", "warning", 1, "a.py"),
    ]


# Symbolic links and unreadable entries inside a skill folder (issue 17).

SECRET = "AKIAQ3MZ7T4XH2PLW9RC"  # random-looking: a placeholder would not count


def test_a_symbolic_link_cycle_is_walked_once(tmp_path: Path) -> None:
    root = make_skill(
        tmp_path,
        "pdf-tools",
        {"SKILL.md": skill_md(body="See [a](references/a.md).\n"), "references/a.md": "x"},
    )
    (root / "references" / "loop").symlink_to("..")  # back to the skill folder
    (root / "references" / "self").symlink_to(".")
    report = check_folder(root)
    assert [file.relative for file in report.folder.files] == ["SKILL.md", "references/a.md"]
    assert report.diagnostics == []


def test_a_symbolic_link_inside_the_folder_is_followed(tmp_path: Path) -> None:
    root = make_skill(
        tmp_path,
        "pdf-tools",
        {"SKILL.md": skill_md(body="See [a](docs/a.md).\n"), "references/a.md": "x"},
    )
    (root / "docs").symlink_to("references")
    report = check_folder(root)
    assert [f.relative for f in report.folder.files] == ["SKILL.md", "docs/a.md", "references/a.md"]
    assert report.diagnostics == []


def test_symbolic_links_never_lead_the_check_out_of_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "keys.sh").write_text(f"#!/bin/sh\nexport KEY={SECRET}\n")
    (outside / "run.sh").write_text(f"#!/bin/sh\nexport KEY={SECRET}\n")
    root = make_skill(tmp_path, "pdf-tools")
    (root / "scripts").mkdir()
    (root / "scripts" / "more").symlink_to(outside / "deep")
    (root / "scripts" / "run.sh").symlink_to(outside / "run.sh")
    report = check_folder(root)
    # The linked file is part of the skill, but what it holds outside is not read.
    assert [f.relative for f in report.folder.files] == ["SKILL.md", "scripts/run.sh"]
    assert [d.rule for d in report.diagnostics if d.rule == "secret-literal"] == []


def test_folders_and_files_that_cannot_be_read_are_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_skill(
        tmp_path,
        "pdf-tools",
        {"SKILL.md": skill_md(), "references/a.md": "x", "scripts/run.sh": "#!/bin/sh\necho\n"},
        executable=("scripts/run.sh",),
    )
    real_scandir = os.scandir
    real_open = os.open

    def scandir(path: object = ".") -> object:
        if os.fspath(path) == str(root / "references"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def open_(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) == str(root / "scripts" / "run.sh"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "open", open_)
    report = check_folder(root)
    assert report.suppressed == 0
    found = [(d.rule, d.file, d.message) for d in report.diagnostics]
    assert found == [
        (
            "unreadable-path",
            str(root / "references"),
            f"cannot read {root / 'references'}: permission denied; it was not checked",
        ),
        (
            "unreadable-path",
            str(root / "scripts" / "run.sh"),
            f"cannot read {root / 'scripts' / 'run.sh'}: permission denied; it was not checked",
        ),
    ]


def test_suppressions_are_read_only_from_files_the_check_reads(tmp_path) -> None:
    # The scan for `skillkit: ignore` comments opened each finding's file whole: a link to
    # a 3 GB file outside the skill was read to its end, a 500 MB reference held 1 GB.
    from skillkit_core.manifest.folder import MAX_SCAN_BYTES, SkillFolder

    skill = tmp_path / "pdf-tools"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Reads PDFs. Use for PDFs.\n---\nBody.\n"
    )
    (skill / "references" / "small.md").write_text("# skillkit: ignore-file[x]\n")
    with open(skill / "references" / "big.md", "wb") as big:
        big.truncate(MAX_SCAN_BYTES + 1)
    (tmp_path / "secret.md").write_text("outside\n")
    (skill / "references" / "out.md").symlink_to(tmp_path / "secret.md")
    folder = SkillFolder(str(skill))
    listed = {Path(file.path).name: folder.display(file) for file in folder.files}
    assert folder.text_of(listed["small.md"]) == "# skillkit: ignore-file[x]\n"
    assert folder.text_of(listed["big.md"]) is None
    assert folder.text_of(listed["out.md"]) is None
    assert folder.text_of(folder.skill_md).startswith("---\nname: pdf-tools")


def test_unsaved_text_over_the_size_limit_is_read_as_the_file_would_be(tmp_path: Path) -> None:
    # check reads at most MAX_BYTES of a SKILL.md and says so; the editor's unsaved text
    # was linted whole, without that error and with other line and token counts.
    from skillkit_core.manifest.parse import MAX_BYTES

    text = skill_md(body="Words and more words.\n" * (MAX_BYTES // 20))
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})
    from_disk = {(d.rule, d.message) for d in check_folder(root).diagnostics}
    from_text = {(d.rule, d.message) for d in check_folder(root, text=text).diagnostics}
    assert from_text == from_disk
    assert any("only the start was read" in message for _, message in from_text)

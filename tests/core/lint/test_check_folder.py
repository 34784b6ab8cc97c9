"""check_folder / check_skill_folder: the driver around the SKILL.md rules."""

from __future__ import annotations

from pathlib import Path

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

"""Safe fixes of SKILL.md rules: each edit is exact, and applying it clears the finding."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from skillkit_core.lint.check_folder import check_folder
from skillkit_core.lint.diagnostic import SourceRange, TextEdit
from skillkit_core.lint.fixing import apply_edits, apply_fixes, make_executable
from tests.core.lint.skillmd_support import check, make_skill, skill_md


def fixes_of(root: Path, rule: str) -> list:
    return [d.fix for d in check_folder(root).diagnostics if d.rule == rule]


def test_name_fix_rewrites_the_name_in_spec_form(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(name="PDF_Tools-")})
    fixes = fixes_of(root, "name-format")
    assert fixes and all(f == fixes[0] for f in fixes)
    assert fixes[0].title == "Rename the skill to 'pdf-tools'"
    assert fixes[0].edits == (TextEdit(SourceRange(1, 6, 1, 16), "pdf-tools"),)
    apply_fixes(check_folder(root).diagnostics)
    assert (root / "SKILL.md").read_text().startswith("---\nname: pdf-tools\n")
    assert check(root) == []


def suggestions_of(root: Path, rule: str) -> list:
    return [d.suggestions for d in check_folder(root).diagnostics if d.rule == rule]


def test_name_folder_mismatch_has_no_safe_fix_and_fix_leaves_it(tmp_path: Path) -> None:
    # Renaming the skill changes its public name (what users and other skills call it):
    # --fix must not do it silently.
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md(name="pdf-tools")})
    assert fixes_of(root, "name-folder-mismatch") == [None]
    before = (root / "SKILL.md").read_text()
    apply_fixes(check_folder(root).diagnostics)
    assert (root / "SKILL.md").read_text() == before
    assert ("name-folder-mismatch", "error", 2, "SKILL.md") in check(root)


def test_name_folder_mismatch_suggests_renaming_the_skill_or_the_folder(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md(name="pdf-tools")})
    ((name, folder),) = suggestions_of(root, "name-folder-mismatch")
    assert name.title == "Rename the skill to 'pdf' (its public name 'pdf-tools' changes)"
    assert name.edits == (TextEdit(SourceRange(1, 6, 1, 15), "pdf"),)
    assert folder.title == "Rename the folder to 'pdf-tools' (paths to 'pdf' change)"
    assert folder.edits == () and folder.renames == ((str(root), str(tmp_path / "pdf-tools")),)
    (root / "SKILL.md").write_text(apply_edits(skill_md(name="pdf-tools"), list(name.edits)))
    assert check(root) == []


@pytest.mark.parametrize("folder", ["PDF_Tools", "pdf--tools", "-pdf"])
def test_no_rename_of_the_skill_is_suggested_when_the_folder_name_is_not_a_valid_name(
    tmp_path: Path, folder: str
) -> None:
    root = make_skill(tmp_path, folder, {"SKILL.md": skill_md(name="pdf-tools")})
    ((only,),) = suggestions_of(root, "name-folder-mismatch")
    assert only.title.startswith("Rename the folder to 'pdf-tools'")


def test_no_folder_rename_is_suggested_onto_an_existing_folder(tmp_path: Path) -> None:
    make_skill(tmp_path, "pdf-tools")
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md(name="pdf-tools")})
    ((only,),) = suggestions_of(root, "name-folder-mismatch")
    assert only.title.startswith("Rename the skill to 'pdf'")


def test_quoting_fix_repairs_a_description_with_a_colon(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: Extract text. Use when: a PDF # arrives\n---\nx\n"
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})
    (fix,) = fixes_of(root, "frontmatter-invalid-yaml")
    assert fix.title == "Quote the value of 'description'"
    apply_fixes(check_folder(root).diagnostics)
    assert (root / "SKILL.md").read_text().splitlines()[2] == (
        'description: "Extract text. Use when: a PDF # arrives"'
    )
    assert check(root) == []


def test_no_quoting_fix_when_quoting_would_not_help(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: [unclosed\n---\n"
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})
    assert fixes_of(root, "frontmatter-invalid-yaml") == [None]


def test_typed_scalar_fix_quotes_the_value(tmp_path: Path) -> None:
    root = make_skill(
        tmp_path, "pdf-tools", {"SKILL.md": skill_md(extra="metadata:\n  version: 1.10\n")}
    )
    (fix,) = fixes_of(root, "yaml-typed-scalar")
    assert fix.edits == (TextEdit(SourceRange(4, 11, 4, 15), '"1.10"'),)
    apply_fixes(check_folder(root).diagnostics)
    assert check(root) == []


def test_shebang_fix_adds_the_interpreter_line(tmp_path: Path) -> None:
    root = make_skill(
        tmp_path,
        "pdf-tools",
        {"SKILL.md": skill_md(), "scripts/run.sh": "echo hi\n"},
        executable=("scripts/run.sh",),
    )
    (fix,) = fixes_of(root, "script-shebang")
    assert fix.edits[0].new_text == "#!/usr/bin/env bash\n"
    assert fix.edits[0].file == str(root / "scripts/run.sh")
    apply_fixes(check_folder(root).diagnostics)
    assert (root / "scripts/run.sh").read_text() == "#!/usr/bin/env bash\necho hi\n"
    assert check(root) == []


def test_shebang_fix_also_sets_the_executable_bit(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(), "scripts/run.sh": "ls\n"})
    (fix,) = fixes_of(root, "script-shebang")
    assert fix.title == "Add '#!/usr/bin/env bash'"  # what an editor applies as text
    assert fix.executable == (str(root / "scripts/run.sh"),)
    result = apply_fixes(check_folder(root).diagnostics)
    assert result.files == (str(root / "scripts/run.sh"),)
    assert (root / "scripts/run.sh").stat().st_mode & 0o777 == 0o755
    assert check(root) == []  # no script-not-executable left behind


def test_make_executable_adds_x_where_the_file_is_readable_once(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o640)
    assert make_executable(str(script))
    assert script.stat().st_mode & 0o777 == 0o750  # owner and group read it: they run it
    assert not make_executable(str(script))  # nothing left to change
    assert not make_executable(str(tmp_path / "missing.sh"))


def test_shebang_fix_runs_a_pep_723_script_with_uv(tmp_path: Path) -> None:
    script = '# /// script\n# dependencies = ["pyyaml"]\n# ///\nimport yaml\n'
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(), "scripts/tool.py": script})
    (fix,) = fixes_of(root, "script-shebang")
    assert fix.edits[0].new_text == "#!/usr/bin/env -S uv run --script\n"
    apply_fixes(check_folder(root).diagnostics)
    assert (root / "scripts/tool.py").read_text().startswith("#!/usr/bin/env -S uv run --script\n")
    assert check(root) == []


def test_extensionless_script_gets_no_guessed_shebang(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(), "scripts/run": "echo\n"})
    assert fixes_of(root, "script-shebang") == [None]


def test_apply_edits_keeps_crlf_and_drops_overlaps() -> None:
    text = "a: 1\r\nb: 2\r\n"
    edits = [
        TextEdit(SourceRange(1, 3, 1, 4), '"2"'),
        TextEdit(SourceRange(1, 0, 1, 4), "zzz"),
        TextEdit(SourceRange(0, 3, 0, 4), '"1"'),
    ]
    assert apply_edits(text, edits) == 'a: "1"\r\nzzz\r\n'


@pytest.mark.parametrize("line_break", ["\r\n", "\r"], ids=["crlf", "lone-cr"])
def test_fixes_keep_the_files_line_breaks(tmp_path: Path, line_break: str) -> None:
    # The file was read with universal newlines: --fix turned every CRLF into LF.
    skill = "---\nname: pdf\ndescription: Use when: x\n---\n# Body\n".replace("\n", line_break)
    script = "echo hi\nls\n".replace("\n", line_break)
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill, "scripts/run.sh": script})
    apply_fixes(check_folder(root).diagnostics)
    fixed = (root / "SKILL.md").read_bytes().decode()
    assert fixed == skill.replace("Use when: x", '"Use when: x"')
    # A fix that inserts a line inserts it with the file's own break.
    expected = f"#!/usr/bin/env bash{line_break}{script}"
    assert (root / "scripts/run.sh").read_bytes().decode() == expected


def test_fixes_keep_a_byte_order_mark(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": "\ufeff" + skill_md(name="Pdf-Tools")})
    apply_fixes(check_folder(root).diagnostics)
    text = (root / "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("\ufeff---\nname: pdf-tools\n")


def test_suggestions_survive_the_helpers_pipe_and_the_workers_json(tmp_path: Path) -> None:
    # Folders are checked in forked helpers and Python skills in a worker: what they send
    # back keeps every suggestion, its renames included.
    from skillkit_core.lint.check_paths import (
        Target,
        TargetReport,
        _plain_report,
        _report_from_plain,
    )
    from skillkit_core.lint.load_worker import diagnostic_from_json, diagnostic_to_json

    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md(name="pdf-tools")})
    report = check_folder(root)
    target = Target("manifest", str(root))
    plain = _plain_report(TargetReport(target, report.diagnostics, report.hosts))
    assert _report_from_plain(target, plain).diagnostics == report.diagnostics
    (mismatch,) = [d for d in report.diagnostics if d.rule == "name-folder-mismatch"]
    assert len(mismatch.suggestions) == 2
    assert diagnostic_from_json(diagnostic_to_json(mismatch)) == mismatch


def test_the_workers_json_keeps_a_fixs_executable_bit() -> None:
    # The worker's JSON dropped Fix.executable (the other two encodings kept it).
    from skillkit_core.lint.diagnostic import Fix, LintDiagnostic
    from skillkit_core.lint.load_worker import diagnostic_from_json, diagnostic_to_json

    fix = Fix("Add a #! line", (), executable=("scripts/run.py",))
    diagnostic = LintDiagnostic("script-shebang", "warning", "m", fix=fix)
    assert diagnostic_from_json(diagnostic_to_json(diagnostic)).fix == fix


def test_a_script_whose_shebang_cannot_be_written_is_not_made_executable(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(), "lib/helper.sh": "ls\n"})
    (root / "scripts").mkdir()
    (root / "scripts" / "run.sh").symlink_to("../lib/helper.sh")  # inside the skill
    link = root / "scripts" / "run.sh"
    assert [f.executable for f in fixes_of(root, "script-shebang")] == [(str(link),)]
    result = apply_fixes(check_folder(root).diagnostics)
    assert result.refused == (f"{link}: a symbolic link; fix the file it leads to by hand",)
    assert (result.applied, result.files) == (0, ())
    helper = root / "lib" / "helper.sh"
    assert helper.read_text() == "ls\n" and helper.stat().st_mode & 0o111 == 0


def test_a_fix_keeps_the_files_group_and_extended_attributes(tmp_path: Path) -> None:
    import os

    root = make_skill(
        tmp_path, "pdf-tools", {"SKILL.md": "---\nname: PDF_Tools\ndescription: D.\n---\nx\n"}
    )
    file = root / "SKILL.md"
    if os.getuid() == 0:
        os.chown(file, -1, 4)  # a group the file's folder would not give a new file
    with contextlib.suppress(AttributeError, OSError):  # no user attributes here
        os.setxattr(file, "user.note", b"kept")
    before = file.stat()
    result = apply_fixes(check_folder(root).diagnostics)
    assert result.files == (str(file),) and "name: pdf-tools" in file.read_text()
    after = file.stat()
    assert (after.st_gid, after.st_mode) == (before.st_gid, before.st_mode)
    if hasattr(os, "listxattr") and "user.note" in os.listxattr(file):
        assert os.getxattr(file, "user.note") == b"kept"


def test_a_fix_in_a_folder_that_takes_no_new_file_writes_the_file_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    root = make_skill(
        tmp_path, "pdf-tools", {"SKILL.md": "---\nname: PDF_Tools\ndescription: D.\n---\nx\n"}
    )

    def refused(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    result = apply_fixes(check_folder(root).diagnostics)
    assert result.refused == () and "name: pdf-tools" in (root / "SKILL.md").read_text()

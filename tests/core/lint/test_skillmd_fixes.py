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
    # A '#!' line ends with a line feed whatever the file's breaks (the kernel reads the
    # interpreter up to it): see test_a_shebang_line_ends_with_a_line_feed_in_any_file.
    expected = f"#!/usr/bin/env bash\n{script}"
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


# -- found by checking --fix against skills-ref, agnix and the kernel ------------------------


@pytest.mark.parametrize("header", [">-", "|", ">"])
@pytest.mark.parametrize("last", [False, True], ids=["before-description", "last-key"])
def test_a_name_written_as_a_block_is_replaced_up_to_its_own_end(
    tmp_path: Path, header: str, last: bool
) -> None:
    # PyYAML ends a block scalar at the next line's start: the fix swallowed the line
    # break, joining the next key (or the closing ---) onto the name.
    name = f"name: {header}\n  My Tool\n"
    description = "description: Extract text from PDF files. Use when the user sends a PDF.\n"
    fields = description + name if last else name + description
    root = make_skill(tmp_path, "my-tool", {"SKILL.md": f"---\n{fields}---\n# Body\n"})
    apply_fixes(check_folder(root).diagnostics)
    expected = "name: my-tool\n"
    fixed = description + expected if last else expected + description
    assert (root / "SKILL.md").read_text() == f"---\n{fixed}---\n# Body\n"
    assert check(root) == []


def test_fixes_keep_the_anchor_of_the_value_they_replace(tmp_path: Path) -> None:
    text = (
        "---\nname: &n PDF_Tools\ndescription: Extract text. Use when a PDF arrives.\n"
        "metadata:\n  version: &v 1.0\n  id: *n\n  release: *v\n---\nx\n"
    )
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})
    apply_fixes(check_folder(root).diagnostics)
    fixed = (root / "SKILL.md").read_text()
    assert "name: &n pdf-tools\n" in fixed and '  version: &v "1.0"\n' in fixed
    import yaml

    metadata = yaml.safe_load(fixed.split("---\n")[1])["metadata"]
    assert metadata == {"version": "1.0", "id": "pdf-tools", "release": "1.0"}


@pytest.mark.parametrize("name", ["Pdf", "p" * 70])
def test_a_name_shared_with_its_folder_is_renamed_with_it_by_choice_only(
    tmp_path: Path, name: str
) -> None:
    # Renaming the skill alone made name-folder-mismatch out of name-format (skills-ref
    # and agnix then refuse the folder instead of the name).
    root = make_skill(tmp_path, name, {"SKILL.md": skill_md(name=name)})
    assert fixes_of(root, "name-format") == [None]
    ((suggestion,),) = suggestions_of(root, "name-format")
    better = "pdf" if name == "Pdf" else "p" * 64
    assert suggestion.title == f"Rename the skill and its folder to '{better}'"
    assert suggestion.renames == ((str(root), str(tmp_path / better)),)
    (root / "SKILL.md").write_text(apply_edits(skill_md(name=name), list(suggestion.edits)))
    root.rename(tmp_path / better)
    assert check(tmp_path / better) == []


def test_a_folder_rename_checked_from_inside_names_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md(name="pdf-tools")})
    monkeypatch.chdir(root)
    ((_, folder),) = suggestions_of(Path("."), "name-folder-mismatch")
    assert folder.renames == ((str(root), str(tmp_path / "pdf-tools")),)


@pytest.mark.parametrize("line_break", ["\r\n", "\r"], ids=["crlf", "lone-cr"])
def test_a_shebang_line_ends_with_a_line_feed_in_any_file(tmp_path: Path, line_break: str) -> None:
    import subprocess

    script = "import sys\nprint('ok')\n".replace("\n", line_break)
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md(name="pdf"), "scripts/run.py": script})
    apply_fixes(check_folder(root).diagnostics)
    run = root / "scripts" / "run.py"
    assert run.read_bytes().decode() == "#!/usr/bin/env python3\n" + script
    done = subprocess.run([str(run)], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr


def test_a_shebang_fix_drops_the_byte_order_mark_it_would_hide_behind(tmp_path: Path) -> None:
    import subprocess

    files = {"SKILL.md": skill_md(name="pdf"), "scripts/run.py": "\ufeffprint('ok')\n"}
    root = make_skill(tmp_path, "pdf", files)
    assert apply_fixes(check_folder(root).diagnostics).applied == 1
    run = root / "scripts" / "run.py"
    assert run.read_bytes() == b"#!/usr/bin/env python3\nprint('ok')\n"
    assert subprocess.run([str(run)], capture_output=True, text=True).stdout == "ok\n"
    assert apply_fixes(check_folder(root).diagnostics).applied == 0  # once only


def test_a_shebang_behind_a_byte_order_mark_is_reported_without_a_fix(tmp_path: Path) -> None:
    files = {"SKILL.md": skill_md(name="pdf"), "scripts/run.py": "\ufeff#!/usr/bin/env python3\n"}
    root = make_skill(tmp_path, "pdf", files, executable=("scripts/run.py",))
    (finding,) = [d for d in check_folder(root).diagnostics if d.rule == "script-shebang"]
    assert "byte-order mark before its '#!' line" in finding.message and finding.fix is None


def test_a_script_that_is_not_utf8_is_refused_and_not_made_executable(tmp_path: Path) -> None:
    latin1 = "print('caf\xe9')\n".encode("latin-1")
    files = {"SKILL.md": skill_md(name="pdf"), "scripts/run.py": latin1}
    root = make_skill(tmp_path, "pdf", files)
    result = apply_fixes(check_folder(root).diagnostics)
    run = root / "scripts" / "run.py"
    assert result.refused == (f"{run}: not UTF-8 text; fix it by hand",)
    assert (result.applied, result.files) == (0, ())
    assert run.stat().st_mode & 0o111 == 0


def test_no_shebang_fix_pushes_an_encoding_declaration_off_line_two(tmp_path: Path) -> None:
    script = "# A tool.\n# -*- coding: latin-1 -*-\nprint('x')\n"
    root = make_skill(tmp_path, "pdf", {"SKILL.md": skill_md(name="pdf"), "scripts/run.py": script})
    assert fixes_of(root, "script-shebang") == [None]
    on_line_one = "# -*- coding: latin-1 -*-\nprint('x')\n"
    (root / "scripts" / "run.py").write_text(on_line_one)  # it moves to line 2: still read
    (fix,) = fixes_of(root, "script-shebang")
    assert fix is not None


def test_a_read_only_file_is_not_rewritten(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(name="PDF_Tools")})
    skill = root / "SKILL.md"
    before = skill.read_text()
    skill.chmod(0o444)
    result = apply_fixes(check_folder(root).diagnostics)
    assert result.refused == (f"{skill}: read-only; make it writable to fix it",)
    assert skill.read_text() == before and skill.stat().st_mode & 0o777 == 0o444


def test_a_file_changed_since_it_was_checked_is_not_fixed(tmp_path: Path) -> None:
    # An editor saved SKILL.md between the check and --fix: the edit landed at its old
    # line and column, in the middle of the line the save had put there.
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(name="PDF_Tools")})
    diagnostics = check_folder(root).diagnostics
    fix = next(d.fix for d in diagnostics if d.rule == "name-format")
    assert fix is not None and [file for file, _ in fix.based_on] == [str(root / "SKILL.md")]
    saved = skill_md(name="PDF_Tools").replace("---\n", "---\nlicense: MIT\n", 1)
    (root / "SKILL.md").write_text(saved)
    result = apply_fixes(diagnostics)
    assert result.refused == (f"{root / 'SKILL.md'}: changed since it was checked; check it again",)
    assert (root / "SKILL.md").read_text() == saved
    apply_fixes(check_folder(root).diagnostics)  # checked again: fixed
    assert (root / "SKILL.md").read_text() == saved.replace("PDF_Tools", "pdf-tools")


def test_what_a_fix_was_based_on_survives_the_helpers_pipe_and_the_workers_json(
    tmp_path: Path,
) -> None:
    from skillkit_core.lint.check_paths import _fix_from_plain, _plain_fix
    from skillkit_core.lint.load_worker import diagnostic_from_json, diagnostic_to_json

    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(name="PDF_Tools")})
    finding = next(d for d in check_folder(root).diagnostics if d.rule == "name-format")
    assert finding.fix is not None and finding.fix.based_on
    assert _fix_from_plain(_plain_fix(finding.fix)) == finding.fix
    assert diagnostic_from_json(diagnostic_to_json(finding)) == finding

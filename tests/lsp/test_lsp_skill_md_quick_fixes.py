"""SKILL.md quick fixes: every manifest rule with a fix gets a quick fix in the editor that
makes exactly the edit ``skillkit check --fix`` makes (its suggestions, which ``--fix``
leaves alone, are offered as actions that are not preferred); "disable for this line" and
"disable for this file" write suppressions the core honours.

The cases are keyed by rule id and checked against the registry: a rule that gains a fix
(or suggestions) without a case here fails :func:`test_every_fixable_rule_has_a_case`.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from skillkit_core.lint.check_folder import check_skill_folder
from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.fixing import apply_edits, apply_fixes
from skillkit_core.lint.registry import MANIFEST_RULES
from tests.lsp.support import (
    LINKED_SKILLS,
    apply_text_edits,
    codes,
    open_file,
    read_code_actions_by_their_command_type,
    replace_all,
    uri_of,
    wait_for,
    wait_for_codes,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

WORKSPACE = LINKED_SKILLS

DESCRIPTION = "description: Reads PDF files. Use when the user sends a PDF.\n"


@dataclass(frozen=True)
class Case:
    """A skill folder (``files`` by relative path) with a finding of the rule in ``where``."""

    folder: str
    files: dict[str, str]
    where: str = "SKILL.md"
    # Rules whose findings sit where no comment can go above them (a script's first line
    # with the finding in a file that is not open) skip the disable checks.
    disable: bool = True


CASES: dict[str, Case] = {
    "frontmatter-invalid-yaml": Case(
        "pdf-reader",
        {
            "SKILL.md": "---\nname: pdf-reader\ndescription: Extract text. Use when: the user "
            "sends a PDF\n---\n\n# PDF reader\n",
        },
    ),
    "name-format": Case(
        "pdf-tools",
        {"SKILL.md": f"---\nname: PDF_Tools\n{DESCRIPTION}---\n\n# PDF tools\n"},
    ),
    "name-folder-mismatch": Case(
        "pdf",
        {"SKILL.md": f"---\nname: pdf-tools\n{DESCRIPTION}---\n\n# PDF\n"},
    ),
    "yaml-typed-scalar": Case(
        "versioned",
        {
            "SKILL.md": f"---\nname: versioned\n{DESCRIPTION}metadata:\n  version: 1.10\n---\n"
            "\n# Versioned\n",
        },
    ),
    "script-shebang": Case(
        "tidy-notes",
        {
            "SKILL.md": "---\nname: tidy-notes\ndescription: Tidies notes. Use after writing "
            "notes.\n---\n\nRun scripts/tidy.sh after each note.\n",
            "scripts/tidy.sh": "set -eu\nsed -i 's/ *$//' notes.md\n",
        },
        where="scripts/tidy.sh",
        disable=False,
    ),
    "argument-in-code": Case(
        "first-column",
        {
            "SKILL.md": "---\nname: first-column\ndescription: Print the first column of a "
            "table. Use when asked for a column.\n---\n\n```bash\nawk '{print $1}' "
            "table.txt\n```\n",
        },
    ),
}


def _fixable_by_registry() -> set[str]:
    """Manifest rules that declare a fix or suggestions, or whose own ``bad`` example gets
    one (a rule may attach suggestions in its check)."""
    found = {rule.id for rule in MANIFEST_RULES if rule.fix or rule.suggest}
    scratch = Path(tempfile.mkdtemp(prefix="skillkit-fixable-"))
    try:
        for rule in MANIFEST_RULES:
            if not rule.bad.startswith("---\n"):
                continue
            folder = scratch / rule.id / "example"
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(rule.bad + "\n", encoding="utf-8")
            for finding in check_skill_folder(folder):
                if finding.rule == rule.id and (finding.fix or finding.suggestions):
                    found.add(rule.id)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return found


async def test_every_fixable_rule_has_a_case() -> None:
    missing = _fixable_by_registry() - set(CASES)
    assert not missing, f"fixable SKILL.md rules without a quick-fix case: {sorted(missing)}"


def _write(parent: Path, case: Case) -> Path:
    folder = parent / case.folder
    for relative, text in case.files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def _core_findings(folder: Path, rule: str) -> list[LintDiagnostic]:
    found = [d for d in check_skill_folder(folder) if d.rule == rule]
    assert found, f"the case for {rule} has no finding of it"
    return found


def _fixed_by_check_fix(case: Case, diagnostic: types.Diagnostic, scratch: Path) -> Path:
    """The case's file after ``--fix`` applied the safe fix of the finding the client
    shows as ``diagnostic`` (on a copy of the folder)."""
    folder = _write(scratch, case)
    finding = _finding(folder, diagnostic)
    assert apply_fixes([finding]).applied == 1
    return folder / case.where


def _finding(folder: Path, diagnostic: types.Diagnostic) -> LintDiagnostic:
    """The core's finding that the client shows as ``diagnostic``."""
    (finding,) = [
        d
        for d in _core_findings(folder, str(diagnostic.code))
        if d.range is not None
        and d.range.line == diagnostic.range.start.line
        and d.message == diagnostic.message
    ]
    return finding


async def _actions(
    client: LanguageClient, uri: str, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    read_code_actions_by_their_command_type(client)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    return [a for a in found or () if isinstance(a, types.CodeAction)]


async def _open_case(
    client: LanguageClient, rule: str, label: str
) -> tuple[Case, Path, str, types.Diagnostic]:
    case = CASES[rule]
    folder = _write(client.root / f"{label}-{client.preset}", case)
    open_file(client, folder / "SKILL.md")
    uri = uri_of(folder / case.where)
    found = await wait_for_codes(client, uri, {rule})
    return case, folder, uri, next(d for d in found if d.code == rule)


@pytest.mark.parametrize("rule", sorted(CASES))
async def test_quick_fixes_make_the_edits_of_check_fix(
    client: LanguageClient, rule: str, tmp_path: Path
) -> None:
    case, folder, uri, diagnostic = await _open_case(client, rule, "fix")
    text = (folder / case.where).read_text(encoding="utf-8")
    finding = _finding(folder, diagnostic)
    actions = await _actions(client, uri, diagnostic)
    assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)
    assert all(
        [(d.code, d.range) for d in a.diagnostics or ()] == [(rule, diagnostic.range)]
        for a in actions
    )
    by_title = {a.title: a for a in actions}
    offered = 0
    if finding.fix is not None:
        action = by_title[finding.fix.title]
        assert action.is_preferred
        fixed = apply_text_edits(text, action.edit.changes[uri], client.encoding)
        by_check_fix = _fixed_by_check_fix(case, diagnostic, tmp_path)
        assert fixed == by_check_fix.read_text(encoding="utf-8")
        # The part of the fix that is no text edit (chmod +x) is the action's command,
        # which the client runs after the edit.
        if finding.fix.executable:
            assert action.command is not None
            assert action.command.command == "skillkit.makeExecutable"
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command=action.command.command, arguments=action.command.arguments
                )
            )
        else:
            assert action.command is None
        mode = stat.S_IMODE((folder / case.where).stat().st_mode)
        assert mode == stat.S_IMODE(by_check_fix.stat().st_mode)
        offered += 1
    for suggestion in finding.suggestions:
        action = by_title[suggestion.title]
        assert not action.is_preferred
        expected = apply_edits(text, list(suggestion.edits))
        changes = action.edit.changes
        if suggestion.renames:
            operations = action.edit.document_changes
            edits = [op for op in operations if isinstance(op, types.TextDocumentEdit)]
            renames = [op for op in operations if isinstance(op, types.RenameFile)]
            assert [(r.old_uri, r.new_uri) for r in renames] == [
                (uri_of(Path(old)), uri_of(Path(new))) for old, new in suggestion.renames
            ]
            changes = {e.text_document.uri: e.edits for e in edits}
        fixed = apply_text_edits(text, changes.get(uri, []), client.encoding)
        assert fixed == expected
        offered += 1
    assert offered, f"the core offers no fix for this {rule} finding"
    # One action per fix of the core, then the disable actions.
    assert len([a for a in actions if not a.title.startswith("Disable ")]) == offered


@pytest.mark.parametrize("scope", ["line", "file"])
@pytest.mark.parametrize("rule", sorted(r for r, case in CASES.items() if case.disable))
async def test_disable_actions_silence_the_rule(
    client: LanguageClient, rule: str, scope: str
) -> None:
    case, folder, uri, diagnostic = await _open_case(client, rule, f"off-{scope}")
    text = (folder / case.where).read_text(encoding="utf-8")
    actions = await _actions(client, uri, diagnostic)
    (action,) = [a for a in actions if a.title == f"Disable {rule} for this {scope}"]
    assert action.kind == types.CodeActionKind.QuickFix and not action.is_preferred
    silenced = apply_text_edits(text, action.edit.changes[uri], client.encoding)
    marker = f"skillkit: ignore[{rule}]" if scope == "line" else f"skillkit: ignore-file[{rule}]"
    assert marker in silenced
    # The core's check of the edited file no longer reports the rule...
    assert rule not in {d.rule for d in check_skill_folder(folder, text=silenced)}
    # ...and neither does the server, once the editor has the new text.
    replace_all(client, uri, silenced, 2)
    await wait_for(lambda: rule not in codes(client, uri), what=f"{rule} to be silenced")


async def test_disable_for_the_line_extends_a_marker_already_there(
    client: LanguageClient,
) -> None:
    folder = client.root / f"marked-{client.preset}" / "pdf"
    folder.mkdir(parents=True)
    text = (
        f"---\n# skillkit: ignore[yaml-typed-scalar]\nname: pdf-tools\n{DESCRIPTION}---\n\n# PDF\n"
    )
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    uri = open_file(client, folder / "SKILL.md")
    found = await wait_for_codes(client, uri, {"name-folder-mismatch"})
    mismatch = next(d for d in found if d.code == "name-folder-mismatch")
    actions = await _actions(client, uri, mismatch)
    (line,) = [a for a in actions if a.title == "Disable name-folder-mismatch for this line"]
    silenced = apply_text_edits(text, line.edit.changes[uri], client.encoding)
    assert silenced == text.replace(
        "ignore[yaml-typed-scalar]", "ignore[yaml-typed-scalar, name-folder-mismatch]"
    )
    assert "name-folder-mismatch" not in {d.rule for d in check_skill_folder(folder, text=silenced)}


async def test_findings_on_a_delimiter_can_only_be_disabled_for_the_file(
    client: LanguageClient,
) -> None:
    folder = client.root / f"delimiters-{client.preset}" / "notes"
    folder.mkdir(parents=True)
    text = "---\nname: notes\ndescription: Takes notes. Use when asked to.\n\n# Notes\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    uri = open_file(client, folder / "SKILL.md")
    found = await wait_for(
        lambda: [d for d in client.diagnostics.get(uri, ()) if d.range.start.line == 0],
        what="a finding on the first line",
    )
    rule = str(found[0].code)
    titles = [a.title for a in await _actions(client, uri, found[0])]
    assert f"Disable {rule} for this file" in titles
    assert f"Disable {rule} for this line" not in titles


@pytest.mark.parametrize("target", ["SKILL.md", "../outside.sh"])
async def test_make_executable_refuses_what_is_no_script_of_a_skill(
    client: LanguageClient, target: str
) -> None:
    folder = _write(client.root / f"refuse-{client.preset}", CASES["script-shebang"])
    path = (folder / target).resolve()
    path.touch()
    with pytest.raises(JsonRpcException, match="not a script of a skill"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="skillkit.makeExecutable", arguments=[{"uris": [uri_of(path)]}]
            )
        )
    assert not os.access(path, os.X_OK)


async def test_an_open_script_keeps_the_skill_md_findings_and_their_fix(
    client: LanguageClient,
) -> None:
    case = Case(
        "tidy-python",
        {
            "SKILL.md": "---\nname: tidy-python\ndescription: Tidies notes. Use after writing "
            "notes.\n---\n\nRun scripts/tidy.py after each note.\n",
            "scripts/tidy.py": "import sys\n\nprint(sys.argv[1:])\n",
        },
    )
    folder = _write(client.root / f"open-script-{client.preset}", case)
    open_file(client, folder / "SKILL.md")
    script = folder / "scripts" / "tidy.py"
    uri = uri_of(script)
    await wait_for_codes(client, uri, {"script-shebang"})
    # Forget what was shown: only a publication made while the script is open brings the
    # finding back (opening it used to replace it with the script's own findings: none).
    client.diagnostics[uri] = ()
    open_file(client, script)
    (shebang,) = [
        d
        for d in await wait_for_codes(client, uri, {"script-shebang"})
        if d.code == "script-shebang"
    ]
    actions = await _actions(client, uri, shebang)
    titles = [a.title for a in actions]
    assert titles[0] == "Add '#!/usr/bin/env python3'" and actions[0].is_preferred
    assert "Disable script-shebang for this file" in titles  # the script is open: it can
    fixed = apply_text_edits(script.read_text(), actions[0].edit.changes[uri], client.encoding)
    assert fixed.startswith("#!/usr/bin/env python3\nimport sys\n")


async def test_a_fix_made_for_an_older_text_is_not_offered(client: LanguageClient) -> None:
    # A diagnostic a keystroke behind the buffer carried edits in its text's positions:
    # applied to the newer text they landed in the wrong place (the probe's
    # "pleasbrainstormingstormin").
    _case, folder, uri, diagnostic = await _open_case(client, "yaml-typed-scalar", "stale")
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    assert any(not a.title.startswith("Disable ") for a in await _actions(client, uri, diagnostic))
    replace_all(client, uri, text.replace("  version: 1.10", "  version:   1.10"), 2)
    stale = await _actions(client, uri, diagnostic)
    assert stale and all(a.title.startswith("Disable ") for a in stale)
    replace_all(client, uri, text, 3)  # the same text again: its fix is good again
    assert any(not a.title.startswith("Disable ") for a in await _actions(client, uri, diagnostic))

"""Code actions: the fixes diagnostics carry, and "disable this rule" on the line or in the
file for each one (every SKILL.md rule's fix against --fix: test_lsp_skill_md_quick_fixes)."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import (
    apply_text_edits,
    codes,
    open_file,
    read_code_actions_by_their_command_type,
    replace_all,
    span_text,
    uri_of,
    wait_for,
    wait_for_codes,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENUM_SKILL = """from typing import Literal

from pydantic import BaseModel

from skillkit_core import act, skill, terminal


class Pick(BaseModel):
    color: Literal["red", "green"]


colors = (
    skill(name="colors", entry="ask", description="Pick a colour 🎨.")
    .step(
        "ask",
        prompt=act.ask_user(
            type="structured",
            question="Couleur ?",
            options=[
                {"value": "red", "label": "Rouge"},
                {"value": "green", "label": "Vert"},
                {"value": "blue", "label": "Bleu"},
            ],
        ),
        response=Pick,
        next="done",
    )
    .step("done", prompt="Merci.", next=terminal)
    .build()
)
"""

# An unguarded loop ask -> check -> ask (and a semantic-only finding on "done", so a test
# knows when the worker's results are in).
LOOP_SKILL = """from skillkit_core import branch, skill, terminal

loop = (
    skill(name="loop", entry="ask", description="Ask until it is clear.")
    .step("ask", prompt="Ask the question again.", next="check")
    .step(
        "check",
        prompt="Is it clear now?",
        next=[branch("ask", when=lambda ctx: True), branch("done")],
    )
    .step("done", prompt="Use AskUserQuestion to say thanks.", next=terminal)
    .build()
)
"""


async def _actions(client: LanguageClient, uri: str, diagnostic: types.Diagnostic):
    read_code_actions_by_their_command_type(client)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    return list(found or ())


def _one(diagnostics, code: str) -> types.Diagnostic:
    return next(d for d in diagnostics if d.code == code)


def _titled(actions: list[types.CodeAction], title: str) -> types.CodeAction:
    return next(a for a in actions if a.title == title)


async def test_did_you_mean_fix_renames_the_target(client: LanguageClient) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    guard = _one(await wait_for_codes(client, uri, {"cycle-guard"}), "cycle-guard")
    actions = await _actions(client, uri, guard)
    fix = actions[0]
    assert fix.title == "Change on_max_visits to 'finish'" and fix.is_preferred
    fixed = apply_text_edits(text, fix.edit.changes[uri], client.encoding)
    assert 'on_max_visits="finish"' in fixed
    assert [a.title for a in actions][-2:] == [
        "Disable cycle-guard for this line",
        "Disable cycle-guard for this file",
    ]


async def test_missing_enum_value_fix_extends_the_literal(client: LanguageClient) -> None:
    path = client.root / "deploy" / "colors.py"
    path.write_text(ENUM_SKILL, encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"primitive-schema-mismatch"})
    mismatch = _one(found, "primitive-schema-mismatch")
    fix = (await _actions(client, uri, mismatch))[0]
    fixed = apply_text_edits(ENUM_SKILL, fix.edit.changes[uri], client.encoding)
    assert 'color: Literal["red", "green", "blue"]' in fixed


async def test_cycle_guard_fix_adds_a_limit_and_a_way_out(client: LanguageClient) -> None:
    folder = client.root / "loop"
    folder.mkdir(exist_ok=True)
    path = folder / "loop_skill.py"
    path.write_text(LOOP_SKILL, encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"cycle-guard", "no-host-tool-names"})
    assert codes(client, uri).count("cycle-guard") == 1  # syntax and semantic agree once
    cycle = _one(found, "cycle-guard")
    assert span_text(LOOP_SKILL, cycle.range, client.encoding) == '"ask"'
    assert cycle.severity == types.DiagnosticSeverity.Warning
    assert "steps 'ask', 'check' form a cycle" in cycle.message
    actions = await _actions(client, uri, cycle)
    fix = actions[0]
    assert fix.title == "Limit 'ask' and leave the loop for 'done'" and fix.is_preferred
    fixed = apply_text_edits(LOOP_SKILL, fix.edit.changes[uri], client.encoding)
    assert fixed == LOOP_SKILL.replace(
        'next="check")', 'next="check", max_visits=10, on_max_visits="done")'
    )
    replace_all(client, uri, fixed, 2)
    # Both layers agree on the new text (the semantic finding is back, the loop's is not).
    await wait_for(
        lambda: (
            "cycle-guard" not in (found := codes(client, uri)) and "no-host-tool-names" in found
        ),
        what="the loop to be guarded",
    )


async def test_ignore_action_silences_the_rule_on_that_line(client: LanguageClient) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=100)
    guard = _one(await wait_for_codes(client, uri, {"cycle-guard"}), "cycle-guard")
    actions = await _actions(client, uri, guard)
    ignore = _titled(actions, "Disable cycle-guard for this line")
    silenced = apply_text_edits(text, ignore.edit.changes[uri], client.encoding)
    assert "        # skillkit: ignore[cycle-guard]\n        on_max_visits=" in silenced
    replace_all(client, uri, silenced, 101)
    await wait_for(lambda: "cycle-guard" not in codes(client, uri), what="the finding to go")


async def test_disable_for_the_file_writes_one_marker_after_the_preamble(
    client: LanguageClient,
) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = "#!/usr/bin/env python3\n" + path.read_text(encoding="utf-8")
    uri = open_file(client, path, text=text, version=200)
    guard = _one(await wait_for_codes(client, uri, {"cycle-guard"}), "cycle-guard")
    actions = await _actions(client, uri, guard)
    whole = _titled(actions, "Disable cycle-guard for this file")
    silenced = apply_text_edits(text, whole.edit.changes[uri], client.encoding)
    assert silenced == text.replace("\n", "\n# skillkit: ignore-file[cycle-guard]\n", 1)
    replace_all(client, uri, silenced, 201)
    await wait_for(lambda: "cycle-guard" not in codes(client, uri), what="the finding to go")


async def test_skill_md_fixes_and_ignores(client: LanguageClient) -> None:
    path = client.root / "notes-skill" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"name-format", "broken-link"})
    name = _one(found, "name-format")
    actions = await _actions(client, uri, name)
    fixes = [a for a in actions if a.is_preferred]
    assert fixes, [a.title for a in actions]
    fixed = apply_text_edits(text, fixes[0].edit.changes[uri], client.encoding)
    assert "name: notes-skill\n" in fixed
    link = _one(found, "broken-link")
    ignore = _titled(await _actions(client, uri, link), "Disable broken-link for this line")
    silenced = apply_text_edits(text, ignore.edit.changes[uri], client.encoding)
    assert "<!-- skillkit: ignore[broken-link] -->\nRead [the guide]" in silenced


async def test_name_folder_mismatch_offers_renaming_the_skill_or_its_folder(
    client: LanguageClient,
) -> None:
    folder = client.root / "pdf"
    folder.mkdir(exist_ok=True)
    text = "---\nname: pdf-tools\ndescription: Reads PDF files. Use for PDFs.\n---\n\n# PDF\n"
    path = folder / "SKILL.md"
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"name-folder-mismatch"})
    mismatch = _one(found, "name-folder-mismatch")
    actions = await _actions(client, uri, mismatch)
    # Renaming changes the skill's public name or its path: two choices, none preferred.
    rename, move = actions[0], actions[1]
    assert rename.title == "Rename the skill to 'pdf' (its public name 'pdf-tools' changes)"
    assert move.title == "Rename the folder to 'pdf-tools' (paths to 'pdf' change)"
    assert not rename.is_preferred and not move.is_preferred
    (operation,) = move.edit.document_changes
    assert isinstance(operation, types.RenameFile)
    assert (operation.old_uri, operation.new_uri) == (
        uri_of(folder),
        uri_of(client.root / "pdf-tools"),
    )
    assert list(rename.edit.changes) == [uri]
    fixed = apply_text_edits(text, rename.edit.changes[uri], client.encoding)
    assert fixed == text.replace("name: pdf-tools\n", "name: pdf\n")
    replace_all(client, uri, fixed, 2)
    await wait_for(lambda: "name-folder-mismatch" not in codes(client, uri), what="the fix")


RETRY_SKILL = """from skillkit_core import branch, skill, terminal

retry = (
    skill(name="retry", entry="fix", description="Fix until the tests pass.")
    .step("fix", prompt="Fix the failing test.", next="test")
    .step(
        "test",
        prompt="Run the tests.",
        next=[
            branch("done", when=lambda ctx: ctx.response == "passed"),
            branch("give_up", when=lambda ctx: ctx.response == "flaky"),
            branch("fix"),
        ],
    )
    .step("done", prompt="Tests passed.", next=terminal)
    .step("give_up", prompt="Report the flaky test.", next=terminal)
    .build()
)
"""


async def test_cycle_guard_offers_one_action_per_way_out_of_a_retry_loop(
    client: LanguageClient,
) -> None:
    folder = client.root / "retry"
    folder.mkdir(exist_ok=True)
    path = folder / "retry_skill.py"
    path.write_text(RETRY_SKILL, encoding="utf-8")
    uri = open_file(client, path)
    cycle = _one(await wait_for_codes(client, uri, {"cycle-guard"}), "cycle-guard")
    actions = await _actions(client, uri, cycle)
    choices = [a for a in actions if a.title.startswith("Limit")]
    assert [a.title for a in choices] == [
        "Limit 'fix' and leave the loop for 'done' (reached when a condition holds)",
        "Limit 'fix' and leave the loop for 'give_up' (reached when a condition holds)",
    ]
    assert not any(a.is_preferred for a in choices)
    fixed = apply_text_edits(RETRY_SKILL, choices[1].edit.changes[uri], client.encoding)
    assert 'next="test", max_visits=10, on_max_visits="give_up")' in fixed


async def test_a_script_that_is_not_open_gets_its_shebang_fix(client: LanguageClient) -> None:
    script = client.root / "notes-skill" / "scripts" / "tidy.sh"
    uri = uri_of(script)
    shebang = _one(await wait_for_codes(client, uri, {"script-shebang"}), "script-shebang")
    actions = await _actions(client, uri, shebang)
    assert len(actions) == 1  # not open: no ignore action, only the rule's fix
    fixed = apply_text_edits(
        script.read_text(encoding="utf-8"), actions[0].edit.changes[uri], client.encoding
    )
    assert fixed.startswith("#!")


@pytest.mark.parametrize(("only", "expected"), [("quickfix", True), ("refactor", False)])
async def test_actions_honour_the_requested_kinds(
    client: LanguageClient, only: str, expected: bool
) -> None:
    uri = open_file(client, client.root / "broken" / "broken_steps.py", version=300)
    unknown = _one(await wait_for_codes(client, uri, {"cycle-guard"}), "cycle-guard")
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=unknown.range,
            context=types.CodeActionContext(diagnostics=[unknown], only=[only]),
        )
    )
    assert bool(found) is expected

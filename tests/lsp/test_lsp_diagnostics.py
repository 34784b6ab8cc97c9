"""Diagnostics: both layers merged per document, rule metadata, SKILL.md, workspace files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from tests.lsp.support import (
    codes,
    edit,
    open_file,
    replace_all,
    span_text,
    uri_of,
    wait_for,
    wait_for_codes,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _by_code(diagnostics: list[types.Diagnostic], code: str) -> types.Diagnostic:
    return next(d for d in diagnostics if d.code == code)


async def test_files_not_open_are_linted_in_the_background(client: LanguageClient) -> None:
    broken = uri_of(client.root / "broken" / "broken_steps.py")
    script = uri_of(client.root / "notes-skill" / "scripts" / "tidy.sh")
    await wait_for_codes(client, broken, {"cycle-guard"})
    await wait_for_codes(client, script, {"script-shebang"})


async def test_a_broken_guard_has_rule_metadata_and_a_fix(client: LanguageClient) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"cycle-guard", "unreachable-step", "build-error"})
    unknown = _by_code(found, "cycle-guard")
    assert span_text(text, unknown.range, client.encoding) == "finsh"
    assert unknown.source == "skillkit"
    assert unknown.severity == types.DiagnosticSeverity.Error
    assert "finish" in unknown.message
    fix = unknown.data["fix"]
    assert fix["edits"][0]["newText"] == "finish"
    page = Path(to_fs_path(unknown.code_description.href))
    assert page.read_text(encoding="utf-8").startswith("# cycle-guard")
    unreachable = _by_code(found, "unreachable-step")
    assert span_text(text, unreachable.range, client.encoding).strip('"') == "orphan"
    build = _by_code(found, "build-error")
    assert span_text(text, build.range, client.encoding) == "build"
    assert codes(client, uri).count("cycle-guard") == 1  # syntax and semantic agree once


async def test_fixing_the_text_clears_both_layers(client: LanguageClient) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=10)
    await wait_for_codes(client, uri, {"build-error", "cycle-guard"})
    fixed = text.replace('on_max_visits="finsh"', 'on_max_visits="finish"')
    replace_all(client, uri, fixed, 11)
    await wait_for(
        lambda: (
            not {"build-error", "cycle-guard"} & set(codes(client, uri))
            and "unreachable-step" in codes(client, uri)
        ),
        what="diagnostics of the fixed text",
    )


async def test_suppression_comment_hides_a_finding(client: LanguageClient) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = path.read_text(encoding="utf-8").replace(
        '.step("orphan"', '# skillkit: ignore[unreachable-step]\n    .step("orphan"'
    )
    uri = open_file(client, path, text, version=20)
    await wait_for_codes(client, uri, {"build-error", "cycle-guard"})
    assert "unreachable-step" not in codes(client, uri)


async def test_a_load_error_points_at_the_raising_line(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8") + "\nraise RuntimeError('boom at import')\n"
    uri = open_file(client, path, text, version=30)
    found = await wait_for_codes(client, uri, {"load-error"})
    load = _by_code(found, "load-error")
    assert "boom at import" in load.message
    assert load.range.start.line == len(text.split("\n")) - 2


async def test_incremental_edits_keep_ranges_right_with_non_ascii(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=40)
    await wait_for(lambda: uri in client.diagnostics, what="first diagnostics")
    # Break a target on a line that holds non-ASCII text before it.
    needle = 'prompt="Déploie ✅ maintenant.", response=Deployed, next=terminal'
    line_no = text[: text.index(needle)].count("\n")
    line = text.split("\n")[line_no]
    start = line.index("next=terminal")
    from tests.lsp.support import units

    encoding = client.encoding
    where = types.Range(
        types.Position(line_no, units(line[:start], encoding)),
        types.Position(line_no, units(line[: start + len("next=terminal")], encoding)),
    )
    edit(client, uri, 41, where, 'next="nowhere"')
    new_text = text.replace(
        'next=terminal)\n    .step("abort"', 'next="nowhere")\n    .step("abort"', 1
    )
    found = await wait_for_codes(client, uri, {"unknown-step"})
    unknown = _by_code(found, "unknown-step")
    assert span_text(new_text, unknown.range, encoding) == "nowhere"


async def test_skill_md_findings_point_into_the_frontmatter(client: LanguageClient) -> None:
    path = client.root / "notes-skill" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(
        client, uri, {"name-format", "name-folder-mismatch", "broken-link"}
    )
    mismatch = _by_code(found, "name-folder-mismatch")
    assert span_text(text, mismatch.range, client.encoding) == "Notes_Skill"
    link = _by_code(found, "broken-link")
    assert span_text(text, link.range, client.encoding) == "references/missing.md"
    assert "script-shebang" not in codes(client, uri)  # it belongs to the script


async def test_unsaved_skill_md_text_is_what_gets_checked(client: LanguageClient) -> None:
    path = client.root / "notes-skill" / "SKILL.md"
    text = path.read_text(encoding="utf-8").replace("Notes_Skill", "notes-skill")
    uri = open_file(client, path, text, version=5)
    await wait_for(
        lambda: (
            uri in client.diagnostics
            and not {"name-format", "name-folder-mismatch"} & set(codes(client, uri))
            and "broken-link" in codes(client, uri)
        ),
        what="SKILL.md diagnostics of the edited text",
    )


async def test_closing_an_edited_file_shows_the_saved_files_findings(
    client: LanguageClient,
) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text.replace('"finsh"', '"finish"'), version=200)
    await wait_for(
        lambda: "cycle-guard" not in codes(client, uri), what="the edited text's findings"
    )
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await wait_for_codes(client, uri, {"cycle-guard"})

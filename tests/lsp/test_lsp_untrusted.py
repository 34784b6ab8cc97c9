"""An untrusted workspace (the client says so): no author code runs, whatever the settings."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import codes, open_file, span_text, uri_of, wait_for_codes

pytestmark = pytest.mark.asyncio(loop_scope="module")

INIT_OPTIONS = {"workspaceTrusted": False, "executeCode": True}


async def test_settings_cannot_turn_execution_on(client: LanguageClient) -> None:
    client.set_configuration({"executeCode": True, "workspaceTrusted": True}, section="skillkit")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    uri = open_file(client, client.root / "broken" / "broken_steps.py")
    await wait_for_codes(client, uri, {"cycle-guard"})
    await asyncio.sleep(1.5)
    assert "build-error" not in codes(client, uri)
    assert not any("analysis worker started" in m.message for m in client.log_messages)


LOOP = """from skillkit_core import branch, skill, terminal

loop = (
    skill(name="loop", entry="a", description="A loop with no limit.")
    .step("a", prompt="A.", next="b")
    .step("b", prompt="B.", next=[branch("a", when=lambda ctx: True), branch("end")])
    .step("end", prompt="End.", next=terminal)
    .build()
)
"""


async def test_an_unguarded_cycle_is_reported_by_the_syntax_layer(client: LanguageClient) -> None:
    folder = client.root / "loop"
    folder.mkdir(exist_ok=True)
    path = folder / "loop_skill.py"
    path.write_text(LOOP, encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"cycle-guard"})
    (cycle,) = [d for d in found if d.code == "cycle-guard"]
    assert span_text(LOOP, cycle.range, client.encoding) == '"a"'
    assert cycle.severity == types.DiagnosticSeverity.Warning
    assert cycle.message == (
        "steps 'a', 'b' form a cycle with no max_visits/on_max_visits; the implicit limit "
        "of 10 visits ends the run with an error. Add both to 'a'"
    )
    (edit,) = cycle.data["fix"]["edits"]  # the quick fix works without the worker too
    assert edit["newText"] == ', max_visits=10, on_max_visits="end"'
    assert not any("analysis worker started" in m.message for m in client.log_messages)


async def test_checking_a_skill_md_runs_nothing_of_the_workspace(client: LanguageClient) -> None:
    # A folder named like skillkit's own package: `python -m skillkit_core` started in the
    # workspace would run it instead of skillkit.
    shadow = client.root / "skillkit_core"
    shadow.mkdir(exist_ok=True)
    (shadow / "__init__.py").write_text("")
    mark = client.root / "SHADOW_RAN"
    (shadow / "__main__.py").write_text(f"open({str(mark)!r}, 'w').write('ran')\n")
    try:
        report = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="skillkit.check",
                arguments=[{"uri": uri_of(client.root / "notes-skill" / "SKILL.md")}],
            )
        )
        assert "summary" in report
        assert not mark.exists()
    finally:
        for name in ("__init__.py", "__main__.py"):
            (shadow / name).unlink()
        shadow.rmdir()


async def test_checking_the_workspace_checks_its_skill_md_folders(client: LanguageClient) -> None:
    # The guide's Trust section keeps every SKILL.md check in an untrusted workspace; the
    # workspace check (Neovim's :SkillkitCheck sends no uri) refused, as the workspace
    # also holds Python skills.
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="skillkit.check", arguments=[{}])
    )
    skill_folders = {str(p.parent) for p in client.root.rglob("SKILL.md")}
    files = [d["file"] for d in report["diagnostics"] if d.get("file")]
    assert files and report["summary"]["targets"] == len(skill_folders)
    assert all(any(f.startswith(folder + "/") for folder in skill_folders) for f in files)
    assert "Python skill files were not checked" in report["notes"][0]
    assert not any("analysis worker started" in m.message for m in client.log_messages)
    with pytest.raises(Exception, match="runs their code, which is off"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="skillkit.check",
                arguments=[{"uri": uri_of(client.root / "broken" / "broken_steps.py")}],
            )
        )

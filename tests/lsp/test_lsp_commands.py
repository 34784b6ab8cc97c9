"""Commands: simulate, preview, build (with progress), check, set the host, restart."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from tests.lsp.support import checks_of, open_file, uri_of, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _run(client: LanguageClient, command: str, *arguments):
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments))
    )


async def test_simulate_shows_a_transcript(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    uri = open_file(client, path)
    shown = len(client.shown_documents)
    result = await _run(client, "skillkit.simulate", {"uri": uri, "skill": "deploy_check"})
    assert result["markdown"].startswith("# Simulation of `deploy-check` on claude-code")
    assert '"step": "choose"' in result["markdown"]
    assert result["data"]["runs"][0]["status"] == "done"
    assert client.shown_documents[shown].uri == result["uri"]
    assert Path(to_fs_path(result["uri"])).read_text(encoding="utf-8") == result["markdown"]


async def test_clients_that_show_the_transcript_themselves_can_say_so(
    client: LanguageClient,
) -> None:
    uri = uri_of(client.root / "deploy" / "deploy_check.py")
    shown = len(client.shown_documents)
    result = await _run(client, "skillkit.simulate", {"uri": uri, "show": False})
    assert result["shown"] is False and result["markdown"].startswith("# Simulation of")
    assert len(client.shown_documents) == shown


async def test_simulate_of_a_skill_md_says_it_has_no_steps(client: LanguageClient) -> None:
    uri = uri_of(client.root / "notes-skill" / "SKILL.md")
    with pytest.raises(JsonRpcException, match=r"a SKILL\.md has no steps to run"):
        await _run(client, "skillkit.simulate", {"uri": uri})


async def test_simulate_follows_a_chosen_branch(client: LanguageClient) -> None:
    uri = uri_of(client.root / "deploy" / "deploy_check.py")
    result = await _run(
        client, "skillkit.simulate", {"uri": uri, "path": ["choose", "verify", "abort"]}
    )
    assert result["data"]["runs"][0]["path"] == ["choose", "verify", "abort"]


async def test_simulate_uses_the_unsaved_text(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8").replace("Déploie ✅ maintenant.", "Déploie 🛫 vite.")
    uri = open_file(client, path, text, version=2)
    result = await _run(
        client, "skillkit.simulate", {"uri": uri, "path": ["choose", "verify", "deploy"]}
    )
    assert "Déploie 🛫 vite." in result["markdown"]


async def test_preview_renders_every_step(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "deploy" / "deploy_check.py", version=3)
    result = await _run(client, "skillkit.preview", {"uri": uri, "host": "codex"})
    markdown = result["markdown"]
    assert markdown.startswith("# Preview of `deploy-check` on codex")
    for step in ("choose", "verify", "deploy", "abort"):
        assert f"`{step}`" in markdown


async def test_build_reports_progress_and_the_output(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "deploy" / "deploy_check.py", version=4)
    before = set(client.progress_reports)
    result = await _run(
        client, "skillkit.build", {"uri": uri, "skill": "deploy_check", "single": True}
    )
    output = Path(result["output"])
    assert output.name == "deploy-check"
    assert (output / "SKILL.md").is_file() and (output / "scripts" / "run").is_file()
    (token,) = set(client.progress_reports) - before
    kinds = [report.kind for report in client.progress_reports[token]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert any(str(output) in message.message for message in client.messages)


async def test_check_returns_findings_of_the_workspace(client: LanguageClient) -> None:
    report = await _run(client, "skillkit.check")
    rules = {d["rule"] for d in report["diagnostics"]}
    assert {"name-format", "script-shebang"} <= rules
    assert report["summary"]["errors"] >= 1
    single = await _run(client, "skillkit.check", {"uri": uri_of(client.root / "notes-skill")})
    assert {d["rule"] for d in single["diagnostics"]} >= {"name-format", "broken-link"}


async def test_set_host_refuses_unknown_hosts(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException, match="unknown host 'nope'"):
        await _run(client, "skillkit.setHost", "nope")
    assert await _run(client, "skillkit.setHost", {"host": "opencode"}) == {"host": "opencode"}
    await _run(client, "skillkit.setHost", "claude-code")


async def test_restart_worker_keeps_analysis_working(client: LanguageClient) -> None:
    result = await _run(client, "skillkit.restartWorker")
    assert result == {"restarted": True, "executeCode": True}
    path = client.root / "broken" / "broken_steps.py"
    uri = open_file(client, path, version=50)
    await wait_for(lambda: "build-error" in {d.code for d in client.diagnostics.get(uri, ())})


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
async def test_a_cancelled_check_stops_its_processes(client: LanguageClient) -> None:
    # pygls runs the command as a step of its executeCommand generator and cancelled only
    # the request: `skillkit check` and its worker went on running the skill's code.
    import asyncio
    import shutil

    folder = client.root / "slow-check"
    folder.mkdir()
    slow = folder / "slow.py"
    slow.write_text("import time\n\ntime.sleep(60)\n", encoding="utf-8")
    before = set(client.protocol._request_futures)
    try:
        request = asyncio.ensure_future(_run(client, "skillkit.check", {"uri": uri_of(slow)}))
        await wait_for(lambda: checks_of(slow), 30, "the check to start")
        (request_id,) = set(client.protocol._request_futures) - before
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
        with pytest.raises(JsonRpcException, match="canceled"):
            await request
        await wait_for(lambda: not checks_of(slow), 10, "the check's processes to end")
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize(
    ("command", "options", "message"),
    [
        ("skillkit.simulate", {"seed": "abc"}, "'seed' must be an integer, not 'abc'"),
        ("skillkit.simulate", {"tools": 5}, "'tools' must be a list of names, not 5"),
        ("skillkit.preview", {"tools": [1]}, "'tools' must be a list of names, not [1]"),
    ],
)
async def test_options_of_the_wrong_type_are_invalid_params(
    client: LanguageClient, command: str, options: dict, message: str
) -> None:
    # They were internal errors, with a traceback in the server's log.
    uri = uri_of(client.root / "deploy" / "deploy_check.py")
    with pytest.raises(JsonRpcException) as raised:
        await _run(client, command, {"uri": uri, "show": False, **options})
    assert (raised.value.code, raised.value.message) == (-32602, message)


async def test_a_check_of_a_uri_with_a_nul_is_invalid_params(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await _run(client, "skillkit.check", {"uri": uri_of(client.root) + "/%00.py"})
    assert raised.value.code == -32602 and "names no file" in raised.value.message


LOOPING_NEXT = """\
from pydantic import BaseModel

from skillkit_core import skill, terminal


class A(BaseModel):
    x: int


def forever(ctx):
    while True:
        pass


flow = (
    skill(name="loops", entry="a")
    .step("a", prompt="A", response=A, next=forever)
    .step("b", prompt="B", response=A, next=terminal)
    .build()
)
"""


async def test_a_simulate_that_never_ends_stops_at_the_workers_time_limit(
    client: LanguageClient,
) -> None:
    # A fixed 120 s applied, not worker.timeout (20 s for these clients), and every other
    # document's analysis waited behind it.
    import asyncio
    import time

    path = client.root / "deploy" / "loops.py"
    path.write_text(LOOPING_NEXT, encoding="utf-8")
    uri = open_file(client, path)
    started = time.monotonic()
    with pytest.raises(JsonRpcException, match="did not finish within 20 s"):
        await _run(client, "skillkit.simulate", {"uri": uri})
    assert time.monotonic() - started < 60
    # A cancelled one leaves no busy worker behind for the next document to be blamed for.
    before = set(client.protocol._request_futures)
    request = asyncio.ensure_future(_run(client, "skillkit.simulate", {"uri": uri}))
    await wait_for(lambda: set(client.protocol._request_futures) - before, 10, "the request")
    await asyncio.sleep(0.5)
    (request_id,) = set(client.protocol._request_futures) - before
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
    with pytest.raises(JsonRpcException):
        await request
    good = open_file(client, client.root / "deploy" / "deploy_check.py")
    result = await _run(client, "skillkit.simulate", {"uri": good, "skill": "deploy_check"})
    assert result["data"]["runs"][0]["status"] == "done"

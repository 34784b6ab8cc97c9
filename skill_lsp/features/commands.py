"""``workspace/executeCommand``: simulate, preview, build, check, set the host, restart,
and make a skill's script executable (the part of a fix an editor cannot apply as text).

Commands that run the author's code (simulate, preview, build, check of a Python file)
run it out of process: simulate and preview in the analysis worker, build and check as a
``skillkit`` subprocess. Transcripts and previews are written to a Markdown file and
shown with ``window/showDocument`` when the client can; the Markdown is also returned as
the command's result for clients that render it themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.uris import from_fs_path, to_fs_path

from skill_lsp.index import DocumentKind
from skill_lsp.log import log_message

SIMULATE = "skillkit.simulate"
PREVIEW = "skillkit.preview"
BUILD = "skillkit.build"
CHECK = "skillkit.check"
SET_HOST = "skillkit.setHost"
RESTART_WORKER = "skillkit.restartWorker"
MAKE_EXECUTABLE = "skillkit.makeExecutable"
BUILD_TIMEOUT = 600.0
_tokens = itertools.count(1)


class JsonRpcRequestFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid, but doing it failed."""

    CODE = -32803


def register(server: Any) -> None:
    """Declare every command."""

    @server.command(SIMULATE)
    async def simulate(ls: Any, *arguments: Any) -> dict[str, Any]:
        options = _options(arguments)
        if _is_skill_md(options):  # not "code execution is off": it would not run trusted
            raise JsonRpcInvalidParams(
                "simulate runs a Python workflow skill; a SKILL.md has no steps to run "
                "(skillkit.preview shows what each of its tiers loads)"
            )
        request = _code_request(ls, options)
        request.update(
            responses=options.get("responses"),
            choose=options.get("choose"),
            path=options.get("path"),
            all_paths=bool(options.get("allPaths", False)),
            seed=_integer(options, "seed"),
        )
        answer = await _in_worker(ls, "simulate", request)
        stem = f"simulate-{answer.get('skill', 'skill')}"
        return await _show_markdown(ls, answer, stem, show=options.get("show", True))

    @server.command(PREVIEW)
    async def preview(ls: Any, *arguments: Any) -> dict[str, Any]:
        options = _options(arguments)
        if _is_skill_md(options):
            # A hand-written skill's tiers: read, never run (trusted or not).
            answer = await asyncio.get_running_loop().run_in_executor(
                None, _skill_md_preview, *_document(ls, options)
            )
            stem = f"preview-{answer.get('skill', 'skill')}"
            return await _show_markdown(ls, answer, stem, show=options.get("show", True))
        request = _code_request(ls, options)
        request["step"] = options.get("step")
        answer = await _in_worker(ls, "preview", request)
        stem = f"preview-{answer.get('skill', 'skill')}"
        return await _show_markdown(ls, answer, stem, show=options.get("show", True))

    @server.command(BUILD)
    async def build(ls: Any, *arguments: Any) -> dict[str, Any]:
        options = _options(arguments)
        return await run_build(ls, options)

    @server.command(CHECK)
    async def check(ls: Any, *arguments: Any) -> dict[str, Any]:
        options = _options(arguments)
        return await run_check(ls, options)

    @server.command(SET_HOST)
    async def set_host(ls: Any, *arguments: Any) -> dict[str, Any]:
        from skillkit_core.hosts import HOSTS

        options = _options(arguments)
        host = options.get("host")
        if host is None and arguments and isinstance(arguments[0], str):
            host = arguments[0]
        known = [info.id for info in HOSTS]
        if host not in known:
            raise JsonRpcInvalidParams(f"unknown host {host!r}; known hosts: {', '.join(known)}")
        from skill_lsp.features.lifecycle import apply_settings

        await apply_settings(ls, ls.settings.with_host(host))
        return {"host": host}

    @server.command(MAKE_EXECUTABLE)
    async def make_executable(ls: Any, *arguments: Any) -> dict[str, Any]:
        uris = _options(arguments).get("uris")
        if not (isinstance(uris, list) and all(isinstance(u, str) for u in uris)):
            raise JsonRpcInvalidParams("skillkit.makeExecutable takes {'uris': [file URI, ...]}")
        loop = asyncio.get_running_loop()
        changed = await loop.run_in_executor(None, make_scripts_executable, ls.roots, uris)
        return {"changed": changed}

    @server.command(RESTART_WORKER)
    async def restart_worker(ls: Any, *arguments: Any) -> dict[str, Any]:
        await ls.semantic.restart()
        return {"restarted": True, "executeCode": ls.settings.semantic_enabled}


def make_scripts_executable(roots: list[str], uris: list[str]) -> list[str]:
    """``chmod +x`` (the core's, as ``--fix`` does) for each file of ``uris`` that is a
    script of a skill (under the ``scripts/`` folder of a folder holding SKILL.md) inside a
    workspace folder; anything else is refused. The URIs whose mode changed."""
    from skillkit_core.lint.fixing import make_executable
    from skillkit_core.manifest.parse import find_skill_md
    from skillkit_core.runtime.paths import is_inside

    changed = []
    for uri in uris:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path or not os.path.isfile(path):
            raise JsonRpcInvalidParams(f"not a file: {uri}")
        script = Path(path)
        folder = next((p.parent for p in script.parents if p.name == "scripts"), None)
        if folder is None or find_skill_md(folder) is None:
            raise JsonRpcInvalidParams(f"not a script of a skill: {uri}")
        if not any(is_inside(script, Path(root)) for root in roots):
            raise JsonRpcInvalidParams(f"outside the workspace: {uri}")
        if make_executable(path):
            changed.append(uri)
    return changed


def _options(arguments: tuple[Any, ...]) -> dict[str, Any]:
    """The first argument when it is an object (commands take one options object)."""
    if arguments and isinstance(arguments[0], dict):
        return dict(arguments[0])
    return {}


def _integer(options: dict[str, Any], key: str) -> int:
    value = options.get(key) or 0
    if not isinstance(value, int) or isinstance(value, bool):
        raise JsonRpcInvalidParams(f"'{key}' must be an integer, not {value!r}")
    return value


def _names(options: dict[str, Any], key: str) -> list[str]:
    value = options.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise JsonRpcInvalidParams(f"'{key}' must be a list of names, not {value!r}")
    return value


def _document(ls: Any, options: dict[str, Any]) -> tuple[str, str]:
    """(path, text) of the document named by ``uri``: the editor's text when open."""
    uri = options.get("uri")
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams("the command needs a 'uri' naming a skill file")
    snapshot = ls.documents.get(uri)
    path = to_fs_path(uri)
    if snapshot is not None:
        return snapshot.path or path or uri, snapshot.text
    if not path or not os.path.isfile(path):
        raise JsonRpcInvalidParams(f"no such file: {uri}")
    return path, Path(path).read_text(encoding="utf-8", errors="replace")


def _is_skill_md(options: dict[str, Any]) -> bool:
    uri = options.get("uri")
    return isinstance(uri, str) and uri.rsplit("/", 1)[-1].lower() == "skill.md"


def _skill_md_preview(path: str, text: str) -> dict[str, Any]:
    """``skillkit preview FOLDER`` of the SKILL.md at ``path``, with its unsaved ``text``."""
    from skillkit_core.simulate import json_format, markdown
    from skillkit_core.simulate.errors import SimulationError
    from skillkit_core.simulate.tiers import tier_view

    try:
        view = tier_view(os.path.dirname(path), text=text)
    except SimulationError as error:
        raise JsonRpcRequestFailed(str(error)) from None

    return {
        "markdown": markdown.tiers_markdown(view),
        "skill": view.name or os.path.basename(os.path.dirname(path)),
        "data": json.loads(json_format.to_json(view)),
    }


def _require_code(ls: Any, what: str) -> None:
    if not ls.settings.semantic_enabled:
        raise JsonRpcRequestFailed(
            f"{what} runs the skill's code, which is off here (untrusted workspace or "
            "skillkit.executeCode is false)"
        )


def _code_request(ls: Any, options: dict[str, Any]) -> dict[str, Any]:
    _require_code(ls, "this command")
    path, text = _document(ls, options)
    settings = ls.settings
    return {
        "path": path,
        "text": text,
        "root": ls.roots[0] if ls.roots else None,
        "skill": options.get("skill"),
        "host": options.get("host") or settings.host,
        "tools": _names(options, "tools") or list(settings.tools),
        "params": options.get("params"),
    }


async def _in_worker(ls: Any, op: str, request: dict[str, Any]) -> dict[str, Any]:
    from skill_lsp.worker.manager import WorkerError

    try:
        # worker.timeout, as for every request the worker serves (it was a fixed 120 s,
        # for which a looping `next` held the analysis of every other document).
        answer = await ls.semantic.run_command(op, request, ls.settings.worker_timeout)
    except WorkerError as error:
        raise JsonRpcRequestFailed(f"{op} failed: {error}") from None
    if not isinstance(answer, dict):
        raise JsonRpcRequestFailed(f"{op} returned nothing")
    if answer.get("error"):
        raise JsonRpcRequestFailed(str(answer["error"]))
    return answer


def _output_folder() -> Path:
    """``editor`` in skillkit's cache, else in the user's ``skillkit-<uid>`` temp folder,
    either used only when it is the user's alone
    (:func:`~skillkit_core.cache_folder.own_cache_folder`; not a shared
    ``<temp>/skillkit-editor``). ``OSError`` when neither is, and the command fails with
    its message."""
    from skillkit_core.cache_folder import own_cache_folder

    return Path(own_cache_folder("editor"))


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "-", name).strip("-") or "skill"


async def _show_markdown(
    ls: Any, answer: dict[str, Any], stem: str, *, show: Any = True
) -> dict[str, Any]:
    """Write the answer's Markdown to a file, show it when the client can (unless the
    caller asked ``show: false``, as editor plugins that show it their own way do), and
    return both."""
    markdown = str(answer.get("markdown") or "")
    target = _output_folder() / f"{_safe(stem)}.md"
    target.write_text(markdown, encoding="utf-8")
    uri = from_fs_path(str(target)) or target.as_uri()
    shown = False
    if show is not False and get_capability(
        ls.client_capabilities, "window.show_document.support", False
    ):
        with contextlib.suppress(Exception):
            result = await ls.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True)
            )
            shown = bool(result and result.success)
    return {"markdown": markdown, "uri": uri, "shown": shown, "data": answer.get("data")}


# -- build ---------------------------------------------------------------------------


class _Progress:
    """``$/progress`` work-done reporting, when the client supports it."""

    def __init__(self, ls: Any, title: str) -> None:
        self.ls = ls
        self.title = title
        self.token: str | None = None

    async def __aenter__(self) -> _Progress:
        if get_capability(self.ls.client_capabilities, "window.work_done_progress", False):
            token = f"skillkit-{os.getpid()}-{next(_tokens)}"
            try:
                await self.ls.work_done_progress.create_async(token)
            except Exception:
                return self
            self.token = token
            self.ls.work_done_progress.begin(
                token, types.WorkDoneProgressBegin(title=self.title, cancellable=False)
            )
        return self

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.token is not None:
            self.ls.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    async def __aexit__(self, *exc: object) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message="done"))


async def run_build(ls: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``skillkit build`` for one skill of a file, as a subprocess, with progress.

    The output folder defaults to ``dist/<skill name>`` beside the file (a SKILL.md's
    folder must be named after its skill). ``single`` builds for this machine only.
    """
    _require_code(ls, "building")
    path, _ = _document(ls, options)
    skill = options.get("skill")
    entry = f"{path}:{skill}" if skill else path
    name = _skill_name(ls, options.get("uri"), skill) or str(skill or Path(path).stem)
    output = options.get("output") or str(Path(path).parent / "dist" / _safe(name))
    # -P: started in the workspace, whose modules must not stand in for skillkit's own.
    command = [sys.executable, "-P", "-m", "skillkit_core", "build", entry, "-o", str(output)]
    for flag in ("mode", "protocol", "targets", "python"):
        if options.get(flag):
            command += [f"--{flag}", str(options[flag])]
    if options.get("single"):
        command.append("--single")
    async with _Progress(ls, f"Building {name}") as progress:
        progress.report(f"skillkit build {Path(entry).name}", 0)
        code, out, err = await _run(command, ls, progress)
    if code != 0:
        reason = _failure(err or out) or f"exit code {code}"
        _show(ls, f"skillkit build failed: {reason}", types.MessageType.Error)
        raise JsonRpcRequestFailed(f"build failed: {reason}")
    _show(ls, f"Built {name} into {output}", types.MessageType.Info)
    return {"output": str(output), "uri": from_fs_path(str(output)), "log": out}


def _skill_name(ls: Any, uri: Any, variable: Any) -> str | None:
    """The literal ``name=`` of the chain bound to ``variable`` (from the open document)."""
    snapshot = ls.documents.get(uri) if isinstance(uri, str) else None
    if snapshot is None or snapshot.kind != DocumentKind.PYTHON:
        return None
    chains = [c for c in snapshot.index.chains if c.kind in ("skill", "reference")]
    for chain in chains:
        if variable is None and len(chains) > 1:
            break
        if variable is None or variable in chain.names or variable == chain.var:
            return chain.name.value if chain.name is not None else None
    return None


async def _run(command: list[str], ls: Any, progress: _Progress | None) -> tuple[int, str, str]:
    """Run a ``skillkit`` command under a keeper: it ends with its whole tree when the
    request is cancelled, times out, or the server goes away."""
    from skillkit_core.process_tree import keeper_command, kill_tree

    cwd = ls.roots[0] if ls.roots else None
    process = await asyncio.create_subprocess_exec(
        *keeper_command(command),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"},
        start_new_session=True,
    )
    lines: list[str] = []

    async def follow(stream: Any, keep: list[str]) -> None:
        while raw := await stream.readline():
            text = raw.decode("utf-8", "replace").rstrip()
            keep.append(text)
            if progress is not None and text.strip():
                progress.report(text.strip()[:120])

    errors: list[str] = []
    try:
        await asyncio.wait_for(
            asyncio.gather(
                follow(process.stdout, lines), follow(process.stderr, errors), process.wait()
            ),
            BUILD_TIMEOUT,
        )
    except TimeoutError:
        # The whole tree: skillkit runs the skill's code in children of its own.
        await asyncio.get_running_loop().run_in_executor(None, kill_tree, process.pid)
        await process.wait()
        return 124, "\n".join(lines), f"timed out after {BUILD_TIMEOUT:g} s"
    except asyncio.CancelledError:  # $/cancelRequest, or shutdown: nothing may go on
        kill_tree(process.pid)
        raise
    return process.returncode or 0, "\n".join(lines), "\n".join(errors)


def _failure(output: str) -> str:
    """The line of a failed command's output that says why (``error[...]`` first)."""
    lines = [line.strip(" │╭╮╰╯─") for line in output.splitlines()]
    lines = [line for line in lines if line]
    for line in reversed(lines):
        if line.lower().startswith(("error", "no such")) or "error[" in line:
            return line
    return lines[-1] if lines else ""


def _show(ls: Any, message: str, kind: types.MessageType) -> None:
    from skillkit_core.safe_text import escape_controls

    with contextlib.suppress(Exception):
        shown = escape_controls(message)
        ls.window_show_message(types.ShowMessageParams(type=kind, message=shown))
    log_message(ls, message)


# -- check ---------------------------------------------------------------------------


def _skill_md_folders(targets: list[str]) -> list[str]:
    """``targets`` without Python files, each folder replaced by the SKILL.md folders
    under it (a SKILL.md named itself stays)."""
    from skillkit_core.lint.check_paths import find_skill_folders

    found: list[str] = []
    for target in targets:
        if os.path.isdir(target):
            found += [str(folder) for folder in find_skill_folders(target)]
        elif not target.endswith(".py"):
            found.append(target)
    return list(dict.fromkeys(found))


async def run_check(ls: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``skillkit check --format json`` on a file, a folder, or the workspace."""
    uri = options.get("uri")
    targets: list[str] = []
    if isinstance(uri, str):
        path = to_fs_path(uri)
        if path and "\0" in path:
            raise JsonRpcInvalidParams(f"'uri' names no file: {uri}")
        if path:
            targets.append(path)
    targets = targets or list(ls.roots)
    if not targets:
        raise JsonRpcInvalidParams("nothing to check: give a 'uri' or open a workspace")
    only_skill_md = not ls.settings.semantic_enabled
    if only_skill_md:
        # Python skill files are imported to be checked; SKILL.md folders are only read,
        # and an untrusted workspace keeps every SKILL.md check (the editors guide, Trust).
        loop = asyncio.get_running_loop()
        targets = await loop.run_in_executor(None, _skill_md_folders, targets)
        if not targets:
            raise JsonRpcRequestFailed(
                "there is no SKILL.md folder to check here, and checking Python skills runs "
                "their code, which is off (untrusted workspace or skillkit.executeCode is "
                "false)"
            )
    # -P: started in the workspace, whose modules must not stand in for skillkit's own.
    command = [sys.executable, "-P", "-m", "skillkit_core", "check", *targets, "--format", "json"]
    for flag, values in (
        ("--select", ls.settings.lint_select),
        ("--ignore", ls.settings.lint_ignore),
    ):
        if values:
            command += [flag, ",".join(values)]
    _, out, err = await _run(command, ls, None)
    try:
        report = json.loads(out)
    except ValueError:
        raise JsonRpcRequestFailed(f"skillkit check failed: {(err or out).strip()}") from None
    summary = report.get("summary", {})
    skipped = " (SKILL.md folders only: Python skills are not imported here)"
    _show(
        ls,
        f"skillkit check: {summary.get('errors', 0)} errors, {summary.get('warnings', 0)} "
        f"warnings in {summary.get('targets', 0)} targets{skipped if only_skill_md else ''}",
        types.MessageType.Info,
    )
    if only_skill_md:
        report["notes"] = [
            "Python skill files were not checked: checking them runs their code, which is "
            "off here (untrusted workspace or skillkit.executeCode is false)"
        ]
    for snapshot in ls.documents.all():
        if snapshot.kind != DocumentKind.OTHER:
            ls.diagnostics.changed(snapshot.uri)
    return report

"""The language server and its worker keep the regular expressions they compile
(``skillkit_core.pattern_cache``), in ``skillkit check``'s cache folder: a later server
and worker take them from there."""

from __future__ import annotations

from pathlib import Path

from skillkit_core.pattern_cache import _HEADER as HEADER
from skillkit_core.pattern_cache import file_name
from skillkit_core.sealed import unseal
from tests.lsp.raw_lsp import RawLsp
from tests.lsp.support import SERVER, copy_workspace, uri_of


def _session(root: Path, stderr: Path, env: dict[str, str]) -> None:
    """A server on ``root`` until its worker reported on a skill file nobody opened."""
    raw = RawLsp(root, stderr, options={"workspaceTrusted": True}, env=env)
    uri = uri_of(root / "broken" / "broken_steps.py")

    def worker_reported(messages: list[dict]) -> bool:
        return any(
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and any(d.get("code") == "cycle-guard" for d in m["params"]["diagnostics"])
            for m in messages
        )

    try:
        raw.wait(worker_reported, timeout=90, what="the worker's findings")
    finally:
        raw.close()
    assert "Traceback" not in stderr.read_text(encoding="utf-8", errors="replace")


def _worker_only_patterns() -> list[tuple[str, int]]:
    """The patterns of workflow-no-host-tool-names: the workflow rules run in the worker,
    never in the server, so finding them in the file shows that the worker saved."""
    from skillkit_core.lint.rules.workflow_no_host_tool_names import _patterns

    return [(pattern.pattern, 0) for pattern in _patterns()]


def _server_only_patterns() -> list[tuple[str, int]]:
    """The patterns of the server's completion feature, which the worker never imports."""
    from skill_lsp.features import completion

    return [(completion._OPEN_STRING.pattern, 0), (completion._KEY_VALUE.pattern, 0)]


def test_the_server_and_its_worker_keep_the_patterns_they_compile(tmp_path: Path) -> None:
    root = copy_workspace(tmp_path / "ws")
    env = {
        k: v
        for k, v in SERVER.server_env.items()
        if k not in ("SKILLKIT_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")
    }
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    path = tmp_path / "cache" / "skillkit" / "check" / str(file_name())

    _session(root, tmp_path / "first.txt", env)
    table = unseal(HEADER, path.read_bytes())
    assert len(table) > 100  # the server's patterns and its worker's
    assert all(key in table for key in _worker_only_patterns())
    assert all(key in table for key in _server_only_patterns())
    _session(root, tmp_path / "second.txt", env)
    second = set(unseal(HEADER, path.read_bytes()))
    _session(root, tmp_path / "third.txt", env)
    third = set(unseal(HEADER, path.read_bytes()))
    # Everything kept stays. The third session took the rest from the file: what it adds
    # is the pattern tokenize builds from a set of string prefixes, whose text changes
    # with every process's hash seed (one per process that tokenizes).
    assert second <= third
    assert len(third - second) <= 2, sorted(third - second)

"""A trusted workspace: the background lint imports an unopened skill file in the worker
only, and the processes that file starts at import do not outlive the analysis."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.lsp.support import copy_workspace, uri_of, wait_for_codes
from tests.process_support import LINUX, new_marker, none_left, spawns

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not LINUX, reason="finds processes through /proc"),
]

MARKER = new_marker()
# Spawns two sleepers, writes the importing process's pid beside itself; `next="nowhere"`
# is a syntax finding and `"b"` unreachable, so diagnostics arrive either way.
SPAWNING = (
    spawns(MARKER)
    + """
import pathlib
from skillkit_core import skill, terminal

pathlib.Path(__file__).with_name("IMPORTED_BY").write_text(str(_os.getpid()))

spawning = (
    skill(name="spawning", entry="a", description="Starts processes when imported.")
    .step("a", prompt="A.", next="nowhere")
    .step("b", prompt="B.", next=terminal)
    .build()
)
"""
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_workspace(tmp_path_factory.mktemp("lsp") / "ws")
    folder = root / "spawning"
    folder.mkdir()
    (folder / "spawning_skill.py").write_text(SPAWNING, encoding="utf-8")
    return root


async def test_an_unopened_file_runs_in_the_worker_and_leaves_no_process(
    client: LanguageClient,
) -> None:
    path: Path = client.root / "spawning" / "spawning_skill.py"
    await wait_for_codes(client, uri_of(path), {"unknown-step", "build-error"}, timeout=60)
    importer = int(path.with_name("IMPORTED_BY").read_text())
    started = [m.message for m in client.log_messages if "analysis worker started" in m.message]
    assert started and started[-1].endswith(f"(pid {importer})")
    assert importer != os.getpid()
    assert none_left(MARKER, 5)

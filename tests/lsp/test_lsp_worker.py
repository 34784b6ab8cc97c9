"""The analysis worker and its manager, driven directly (no language server)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from skill_lsp.settings import Settings, merge_settings
from skill_lsp.worker.manager import WorkerCrashed, WorkerManager, WorkerTimeout
from tests.process_support import LINUX, new_marker, none_left, spawns

SKILL = """from skillkit_core import skill, terminal
from helper import GREETING

flow = (
    skill(name="flow", entry="hello", description="Says hello.")
    .step("hello", prompt=GREETING, next=terminal)
    .build()
)
"""


@pytest.fixture
async def manager(tmp_path: Path):
    worker = WorkerManager(cwd=str(tmp_path))
    yield worker
    await worker.stop()


def _request(tmp_path: Path, text: str) -> dict:
    return {"path": str(tmp_path / "flow.py"), "text": text, "root": str(tmp_path)}


async def test_helper_modules_are_reloaded_between_analyses(
    manager: WorkerManager, tmp_path: Path
) -> None:
    (tmp_path / "helper.py").write_text('GREETING = "Bonjour 👋"\n', encoding="utf-8")
    first = await manager.call("analyze", _request(tmp_path, SKILL), 30)
    assert first["load"] is None
    (step,) = first["definitions"][0]["steps"]
    assert "Bonjour 👋" in step["prompt"]
    (tmp_path / "helper.py").write_text('GREETING = "Hallo"\n', encoding="utf-8")
    second = await manager.call("analyze", _request(tmp_path, SKILL), 30)
    assert "Hallo" in second["definitions"][0]["steps"][0]["prompt"]


async def test_prints_and_stdin_reads_do_not_touch_the_channel(
    manager: WorkerManager, tmp_path: Path
) -> None:
    text = "import sys\nprint('x' * 100000)\nsys.stdout.write('{\"id\": 1}\\n')\nsys.stdin.read()\n"
    answer = await manager.call("analyze", _request(tmp_path, text), 30)
    assert answer["load"] is None
    assert answer["definitions"] == []


async def test_a_large_answer_arrives_whole(manager: WorkerManager, tmp_path: Path) -> None:
    steps = "".join(
        f'    .step("s{i}", prompt="{"p" * 400}", next="s{i + 1}")\n' for i in range(300)
    )
    text = (
        "from skillkit_core import skill, terminal\n\nflow = (\n"
        '    skill(name="big", entry="s0")\n'
        + steps
        + '    .step("s300", prompt="end", next=terminal)\n'
        "    .build()\n)\n"
    )
    answer = await manager.call("analyze", _request(tmp_path, text), 60)
    assert len(answer["definitions"][0]["steps"]) == 301


async def test_a_hang_is_killed_and_the_next_request_works(
    manager: WorkerManager, tmp_path: Path
) -> None:
    with pytest.raises(WorkerTimeout):
        await manager.call("analyze", _request(tmp_path, "while True:\n    pass\n"), 1.5)
    assert not manager.running
    answer = await manager.call("analyze", _request(tmp_path, "x = 1\n"), 30)
    assert answer["load"] is None


async def test_a_crash_is_reported_and_survived(manager: WorkerManager, tmp_path: Path) -> None:
    with pytest.raises(WorkerCrashed, match="exit code 7"):
        await manager.call("analyze", _request(tmp_path, "import os\nos._exit(7)\n"), 30)
    answer = await manager.call("ping", {}, 30)
    assert answer["pid"] == manager.pid


async def test_restart_interrupts_a_request_in_flight(
    manager: WorkerManager, tmp_path: Path
) -> None:
    pending = asyncio.ensure_future(
        manager.call("analyze", _request(tmp_path, "import time\ntime.sleep(30)\n"), 60)
    )
    await asyncio.sleep(1.0)
    await manager.restart()
    with pytest.raises(WorkerCrashed):
        await pending


def test_settings_read_nested_and_dotted_keys_and_ignore_bad_values() -> None:
    settings = merge_settings(
        Settings(),
        {
            "skillkit": {
                "host": "codex",
                "tools": "Bash, Read",
                "lint": {"select": ["name-*"]},
                "lint.ignore": ["broken-link"],
                "executeCode": "yes",
                "trace": {"server": "verbose"},
                "worker": {"timeout": 5, "memoryLimit": 512.0},
            }
        },
    )
    assert settings.host == "codex"
    assert settings.tools == ("Bash", "Read")
    assert settings.lint_select == ("name-*",) and settings.lint_ignore == ("broken-link",)
    assert settings.execute_code is True and settings.ignored == ("executeCode",)
    assert settings.trace == "verbose" and settings.worker_timeout == 5.0
    assert settings.worker_memory_limit == 512


@pytest.mark.parametrize("value", [-1, 32, 100.5, True, "512", float("inf"), float("nan")])
def test_a_memory_limit_the_worker_could_not_run_under_is_ignored(value) -> None:
    settings = merge_settings(Settings(), {"worker.memoryLimit": value})
    assert settings.worker_memory_limit == Settings().worker_memory_limit
    assert settings.ignored == ("worker.memoryLimit",)


def test_only_the_client_may_say_the_workspace_is_trusted() -> None:
    untrusted = merge_settings(Settings(), {"workspaceTrusted": False}, from_client=True)
    assert not untrusted.semantic_enabled
    still = merge_settings(untrusted, {"workspaceTrusted": True, "executeCode": True})
    assert not still.semantic_enabled


# -- processes the author's code starts -----------------------------------------------

needs_proc = pytest.mark.skipif(not LINUX, reason="finds processes through /proc")


@needs_proc
async def test_processes_a_module_starts_end_with_its_analysis(
    manager: WorkerManager, tmp_path: Path
) -> None:
    marker = new_marker()
    answer = await manager.call("analyze", _request(tmp_path, spawns(marker)), 30)
    assert answer["load"] is None
    assert none_left(marker, 5)
    assert (await manager.call("ping", {}, 30))["pid"] == manager.pid  # the worker lives on


@needs_proc
async def test_a_module_that_exits_leaves_no_process(
    manager: WorkerManager, tmp_path: Path
) -> None:
    marker = new_marker()
    with pytest.raises(WorkerCrashed, match="exit code 7"):
        await manager.call("analyze", _request(tmp_path, spawns(marker) + "_os._exit(7)\n"), 30)
    assert none_left(marker, 5)


@needs_proc
async def test_a_module_that_hangs_leaves_no_process(
    manager: WorkerManager, tmp_path: Path
) -> None:
    marker = new_marker()
    text = spawns(marker) + "while True:\n    pass\n"
    with pytest.raises(WorkerTimeout):
        await manager.call("analyze", _request(tmp_path, text), 3)
    assert none_left(marker, 5)


THREAD_AT_IMPORT = """import threading, time

threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
"""


def _threads_of(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


@pytest.mark.skipif(not LINUX, reason="reads /proc")
async def test_threads_the_module_leaves_are_bounded_by_a_fresh_worker(
    manager: WorkerManager, tmp_path: Path
) -> None:
    # Each analysis imports the module again; one that starts a thread at import left
    # one more every time (32 threads after 30 edits), each holding its module alive.
    from skill_lsp.worker.__main__ import MAX_LEFT_THREADS

    pids = set()
    for _ in range(MAX_LEFT_THREADS + 3):
        answer = await manager.call("analyze", _request(tmp_path, THREAD_AT_IMPORT), 30)
        assert answer["load"] is None  # every analysis answered, the ending one too
        if manager.running:
            pids.add(manager.pid)
            assert _threads_of(manager.pid) <= MAX_LEFT_THREADS + 2
    assert len(pids) == 2  # the worker was replaced once, between two requests


# -- memory and builtins the author's code leaves behind ------------------------------

# Written, not only allocated: calloc'd zeros would not count as resident.
ALLOCATES_AT_IMPORT = "import os\nBLOCK = os.urandom(1) * (160 << 20)\n"


@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize(("limit", "replaced"), [(128, True), (0, False)])
async def test_a_worker_over_its_memory_limit_is_replaced_after_answering(
    tmp_path: Path, limit: int, replaced: bool
) -> None:
    # The worker keeps the last few loaded texts: a module allocating a gigabyte at
    # import held four after a few edits. Over worker.memoryLimit it ends after its answer.
    worker = WorkerManager(cwd=str(tmp_path), memory_limit=lambda: limit)
    try:
        answer = await worker.call("analyze", _request(tmp_path, ALLOCATES_AT_IMPORT), 60)
        assert answer["load"] is None  # the request itself is answered
        assert worker.running is not replaced
    finally:
        await worker.stop()


BUILTINS_BOUND = """import builtins
from skillkit_core import skill, terminal

builtins._ = str.upper  # as gettext.install() binds it
builtins.oct = lambda value: "eight"
del builtins.bin

flow = (
    skill(name="flow", entry="hello", description="Says hello.")
    .step("hello", prompt=lambda ctx: _("bonjour ") + oct(8), next=terminal)
    .build()
)
"""

BUILTINS_USED = """import builtins
from skillkit_core import skill, terminal

STATE = f"{oct(8)} {hasattr(builtins, '_')} {bin(2)}"
flow = (
    skill(name="other", entry="hello", description="Says what it finds.")
    .step("hello", prompt=STATE, next=terminal)
    .build()
)
"""


async def test_builtins_a_module_changes_are_its_own(
    manager: WorkerManager, tmp_path: Path
) -> None:
    bound = {**_request(tmp_path, BUILTINS_BOUND), "key": "bound"}
    first = await manager.call("analyze", bound, 30)
    assert first["load"] is None
    # Another module analysed in between sees the builtins every module starts with...
    other = await manager.call("analyze", _request(tmp_path, BUILTINS_USED), 30)
    assert "0o10 False 0b10" in other["definitions"][0]["steps"][0]["prompt"]
    # ...and the first module's prompt function, rendered later, still sees its own.
    rendered = await manager.call("render", {**bound, "steps": [[0, "hello"]]}, 30)
    assert "BONJOUR eight" in rendered["rendered"][0]["prompt"]

"""The script runner without MCP: interpreters, arguments, environment, limits."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from skillkit_core.runtime.confinement import Confinement
from skillkit_core.runtime.environment import DENIED_NAMES, DENIED_PREFIXES
from skillkit_core.runtime.errors import (
    PathRefusedError,
    ScriptError,
    SkillFileError,
    ToolArgumentsError,
)
from skillkit_core.runtime.scripts import (
    DEFAULT_MAX_OUTPUT,
    DEFAULT_TIMEOUT,
    ScriptLimits,
    interpreter_for,
    prepare_script,
    run_script,
)
from tests.runtime.support import SkillTree, process_gone, written_pid

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


async def run(tree: SkillTree, path: str, *args: str, limits: ScriptLimits | None = None, **kw):
    command = prepare_script(tree.toolbox, path, skill="toolbox", args=args, **kw)
    return await run_script(command, limits or ScriptLimits())


def test_defaults_are_sixty_seconds_and_one_mebibyte() -> None:
    assert (ScriptLimits().timeout, ScriptLimits().max_output) == (60.0, 1024 * 1024)
    assert (DEFAULT_TIMEOUT, DEFAULT_MAX_OUTPUT) == (60.0, 1 << 20)
    with pytest.raises(ToolArgumentsError):
        ScriptLimits(timeout=0)
    with pytest.raises(ToolArgumentsError):
        ScriptLimits(max_output=0)


def test_interpreter_map(skill_tree: SkillTree) -> None:
    scripts = skill_tree.toolbox / "scripts"
    py, sh = scripts / "hello.py", scripts / "hello.sh"
    assert interpreter_for(py, "x") == (sys.executable, str(py))
    assert interpreter_for(sh, "x") == (shutil.which("bash"), str(sh))
    assert interpreter_for(scripts / "shebang-tool", "x") == (str(scripts / "shebang-tool"),)
    with pytest.raises(ScriptError, match=r"no known interpreter.*not executable"):
        interpreter_for(scripts / "not-executable", "scripts/not-executable")


@needs_node
def test_js_runs_with_node(skill_tree: SkillTree) -> None:
    scripts = skill_tree.toolbox / "scripts"
    assert interpreter_for(scripts / "hello.js", "x")[0] == shutil.which("node")


async def test_each_language_runs_and_gets_its_arguments(skill_tree: SkillTree) -> None:
    py = await run(skill_tree, "scripts/hello.py", "Ann")
    assert json.loads(py.stdout)["greeting"] == "Hello, Ann!"
    assert json.loads(py.stdout)["executable"] == sys.executable
    sh = await run(skill_tree, "scripts/hello.sh", "Bo")
    assert json.loads(sh.stdout) == {"lang": "bash", "greeting": "Hello, Bo!", "argc": 1}
    tool = await run(skill_tree, "scripts/shebang-tool", "a", "b")
    assert json.loads(tool.stdout) == {"lang": "shebang", "argv": ["a", "b"]}
    assert (py.exit_code, sh.exit_code, tool.exit_code) == (0, 0, 0)


@needs_node
async def test_node_script_runs(skill_tree: SkillTree) -> None:
    js = await run(skill_tree, "scripts/hello.js", "Cy")
    assert json.loads(js.stdout) == {"lang": "node", "greeting": "Hello, Cy!", "argv": ["Cy"]}


async def test_arguments_reach_the_script_verbatim_without_a_shell(skill_tree: SkillTree) -> None:
    args = ["$(touch pwned)", "a b", "*", "; echo hi", "'q'", ""]
    result = await run(skill_tree, "scripts/args.sh", *args)
    assert result.stdout.splitlines() == [f"<{arg}>" for arg in args]
    assert not (skill_tree.toolbox / "pwned").exists()


async def test_environment_is_an_allow_list_plus_the_given_env(
    skill_tree: SkillTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLKIT_TEST_SECRET", "hunter2")
    monkeypatch.setenv("LANG", "C.UTF-8")
    result = await run(skill_tree, "scripts/env.py", env={"GREETING": "hi", "LANG": "C"})
    env = json.loads(result.stdout)
    assert "SKILLKIT_TEST_SECRET" not in env
    assert env["GREETING"] == "hi"
    assert env["LANG"] == "C"  # the call's env wins
    assert env["PATH"] == os.environ["PATH"]
    allowed = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM"}
    # The interpreter may add a few of its own (e.g. LC_CTYPE); nothing else leaks.
    assert set(env) - allowed - {"GREETING", "LC_ALL", "LC_CTYPE", "LC_MESSAGES"} == set()


@pytest.mark.parametrize(
    "bad",
    [{"": "x"}, {"A=B": "x"}, {"A": "\x00"}, {"1A": "x"}, {"A-B": "x"}, {"BASH_FUNC_f%%": "x"}],
)
def test_malformed_environment_entries_are_refused(skill_tree: SkillTree, bad) -> None:
    with pytest.raises(ToolArgumentsError):
        prepare_script(skill_tree.toolbox, "scripts/env.py", skill="toolbox", env=bad)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (1, "must be a string, not int"),
        (None, "must be a string, not null"),
        ("a\x00b", "holds a NUL"),
    ],
)
def test_an_environment_value_that_is_no_string_is_named_so(
    skill_tree: SkillTree, value: object, said: str
) -> None:
    # A number was refused as "must be a string without NUL".
    with pytest.raises(ToolArgumentsError, match=f"environment variable A {said}"):
        prepare_script(skill_tree.toolbox, "scripts/env.py", skill="toolbox", env={"A": value})


@pytest.mark.parametrize(
    "name",
    [
        *("BASH_ENV", "ENV", "SHELLOPTS", "PS4", "PROMPT_COMMAND", "IFS", "PATH", "HOME"),
        *("LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "GCONV_PATH"),
        *("GLIBC_TUNABLES", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONWARNINGS"),
        *("NODE_OPTIONS", "NODE_PATH", "npm_config_script_shell", "PERL5OPT", "PERL5LIB"),
        *("RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "LUA_INIT"),
        *("DOTNET_STARTUP_HOOKS", "GIT_SSH_COMMAND", "OPENSSL_CONF", "EDITOR", "PAGER"),
        *("bash_env", "Ld_Preload", "pythonpath"),
    ],
)
def test_variables_that_change_how_programs_start_are_refused(
    skill_tree: SkillTree, name: str
) -> None:
    with pytest.raises(ToolArgumentsError, match=f"environment variable {name} is refused: "):
        prepare_script(skill_tree.toolbox, "scripts/env.py", skill="toolbox", env={name: "x"})


async def test_ordinary_variables_pass(skill_tree: SkillTree) -> None:
    env = {"API_TOKEN": "t", "OUTPUT_FORMAT": "json", "lower_case": "ok", "DEBUG": "1"}
    result = await run(skill_tree, "scripts/env.py", env=env)
    assert env.items() <= json.loads(result.stdout).items()


async def test_cwd_is_the_skill_folder_or_a_contained_workdir(skill_tree: SkillTree) -> None:
    here = await run(skill_tree, "scripts/cwd.sh")
    assert here.stdout.strip() == str(skill_tree.toolbox.resolve())
    there = await run(skill_tree, "scripts/cwd.sh", workdir="references")
    assert there.stdout.strip() == str((skill_tree.toolbox / "references").resolve())
    with pytest.raises(PathRefusedError):
        await run(skill_tree, "scripts/cwd.sh", workdir="..")
    with pytest.raises(PathRefusedError, match="outside the skill folder"):
        await run(skill_tree, "scripts/cwd.sh", workdir="linked-outside")
    with pytest.raises(SkillFileError, match="not a folder"):
        await run(skill_tree, "scripts/cwd.sh", workdir="references/guide.md")


async def test_a_crashing_script_reports_its_exit_code_and_both_streams(
    skill_tree: SkillTree,
) -> None:
    result = await run(skill_tree, "scripts/crash.py")
    assert result.exit_code == 3
    assert result.stdout == "partial output before the crash\n"
    assert "simulated failure" in result.stderr
    assert not result.timed_out


async def test_timeout_kills_the_whole_process_group(skill_tree: SkillTree, tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    result = await run(skill_tree, "scripts/sleepy.sh", str(pid_file), limits=ScriptLimits(1))
    assert time.monotonic() - started < 5
    assert result.timed_out
    assert result.exit_code == -9
    assert "started child" in result.stdout
    assert (
        "[skillkit: timed out after 1 s; the script and every process it started were killed]"
        in result.stderr
    )
    assert process_gone(int(pid_file.read_text()))


async def test_children_left_running_after_exit_are_killed(
    skill_tree: SkillTree, tmp_path: Path
) -> None:
    pid_file = tmp_path / "orphan.pid"
    started = time.monotonic()
    result = await run(skill_tree, "scripts/orphan.sh", str(pid_file), limits=ScriptLimits(30))
    assert time.monotonic() - started < 5  # not held until the timeout by the child
    assert (result.exit_code, result.timed_out) == (0, False)
    assert result.stdout == "parent done\n"
    assert process_gone(int(pid_file.read_text()))


async def test_output_is_capped_per_stream_and_marked(skill_tree: SkillTree) -> None:
    result = await run(skill_tree, "scripts/loud.py", "5000", limits=ScriptLimits(max_output=1000))
    assert result.stdout_truncated and result.stderr_truncated
    marker = "\n[skillkit: output truncated: showing the first 1000 of 5000 bytes]\n"
    assert result.stdout == "o" * 1000 + marker
    assert result.stderr == "e" * 1000 + marker
    small = await run(skill_tree, "scripts/loud.py", "1000", limits=ScriptLimits(max_output=1000))
    assert (small.stdout, small.stdout_truncated) == ("o" * 1000, False)


async def test_huge_output_does_not_block_the_script(skill_tree: SkillTree) -> None:
    result = await run(skill_tree, "scripts/loud.py", str(5 * 1024 * 1024), limits=ScriptLimits(20))
    assert result.exit_code == 0 and not result.timed_out
    assert len(result.stdout) < 1024 * 1024 + 200


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        ("assets/run-me.sh", ScriptError, "not under scripts/"),
        ("SKILL.md", ScriptError, "not under scripts/"),
        ("scripts/escape.sh", PathRefusedError, "outside the skill folder"),
        ("../summarize/scripts/x.sh", PathRefusedError, "'..' segment"),
        ("/bin/sh", PathRefusedError, "absolute"),
        ("scripts/missing.py", SkillFileError, "missing"),
        ("scripts/lib", SkillFileError, "a folder"),
        ("scripts/not-executable", ScriptError, "no known interpreter"),
    ],
)
def test_only_contained_runnable_files_under_scripts_run(
    skill_tree: SkillTree, path: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        prepare_script(skill_tree.toolbox, path, skill="toolbox")


def test_arguments_must_be_strings(skill_tree: SkillTree) -> None:
    with pytest.raises(ToolArgumentsError, match="must be strings"):
        prepare_script(skill_tree.toolbox, "scripts/args.sh", skill="toolbox", args=[1])


def test_the_mcp_guide_lists_exactly_the_refused_variables() -> None:
    guide = (Path(__file__).parents[2] / "docs/guides/mcp.md").read_text(encoding="utf-8")
    paragraph = guide[guide.index("The call's `env` may not set") :].split("\n- ", 1)[0]
    names_part, prefixes_part = paragraph.split("or starts with", 1)
    assert set(re.findall(r"`([A-Z_][A-Z0-9_]+)`", names_part)) == set(DENIED_NAMES)
    assert set(re.findall(r"`([A-Z_]+)`", prefixes_part)) == set(DENIED_PREFIXES)


@pytest.mark.parametrize("hang", [False, True], ids=["exits", "times-out"])
async def test_no_process_outlives_its_call(
    skill_tree: SkillTree, tmp_path: Path, hang: bool
) -> None:
    # A child in its own session escapes a process-group kill, and a double-forked one is
    # re-parented away from the script: both used to survive the call.
    args = [str(tmp_path), "hang"] if hang else [str(tmp_path)]
    result = await run(skill_tree, "scripts/escapees.py", *args, limits=ScriptLimits(3))
    assert result.stdout == "started\n"
    assert result.timed_out is hang
    for name in ("setsid.pid", "daemon.pid"):
        assert process_gone(int((tmp_path / name).read_text())), name


async def test_cpu_time_is_limited_per_process(skill_tree: SkillTree) -> None:
    started = time.monotonic()
    limits = ScriptLimits(timeout=30, cpu_seconds=1)
    result = await run(skill_tree, "scripts/burn.py", limits=limits)
    assert time.monotonic() - started < 10
    assert (result.exit_code, result.timed_out) == (-signal.SIGXCPU, False)
    assert result.stderr.endswith("[skillkit: stopped by the CPU time limit of 1 s per process]\n")


async def test_memory_is_limited_per_process(skill_tree: SkillTree) -> None:
    limits = ScriptLimits(memory_bytes=256 * 1024 * 1024)
    refused = await run(skill_tree, "scripts/hog.py", "512", limits=limits)
    assert refused.exit_code == 1
    assert "MemoryError" in refused.stderr
    allowed = await run(skill_tree, "scripts/hog.py", "16", limits=limits)
    assert (allowed.exit_code, allowed.stdout) == (0, f"allocated {16 * 1024 * 1024} bytes\n")


async def test_the_number_of_processes_is_limited(skill_tree: SkillTree) -> None:
    limits = ScriptLimits(processes=8)
    probe = Confinement(limits.process_limits)
    probe.close()
    if not probe.caps_processes:
        pytest.skip("neither a pids cgroup nor RLIMIT_NPROC can cap processes here")
    result = await run(skill_tree, "scripts/spawn.py", "40", limits=limits)
    started, refused = (int(word) for word in result.stdout.split()[1::2])
    assert started + refused == 40
    assert 0 < started < 8 and refused > 0
    assert "the limit of 8 processes was reached" in result.stderr


def test_limits_are_checked() -> None:
    assert ScriptLimits(timeout=2.5).cpu_seconds == 3
    assert ScriptLimits(cpu_seconds=None).cpu_seconds is None
    for bad in ({"cpu_seconds": 0}, {"memory_bytes": 1024}, {"processes": 0}):
        with pytest.raises(ToolArgumentsError, match="must be at least"):
            ScriptLimits(**bad)


def _run_cgroups() -> set[str]:
    probe = Confinement(ScriptLimits().process_limits)
    probe.close()
    if probe.cgroup is None:
        pytest.skip("no pids cgroup can be made here")
    return {p.name for p in probe.cgroup.parent.iterdir() if p.name.startswith("skillkit-run-")}


async def test_a_cancelled_run_kills_its_script_and_removes_its_cgroup(
    skill_tree: SkillTree, tmp_path: Path
) -> None:
    before = _run_cgroups()
    pid_file = tmp_path / "child.pid"
    task = asyncio.ensure_future(
        run(skill_tree, "scripts/sleepy.sh", str(pid_file), limits=ScriptLimits(30))
    )
    child = await written_pid(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert process_gone(child)
    assert _run_cgroups() <= before  # nothing left by this run


def test_the_cgroups_of_servers_that_are_gone_are_removed() -> None:
    probe = Confinement(ScriptLimits().process_limits)
    probe.close()
    if probe.cgroup is None:
        pytest.skip("no pids cgroup can be made here")
    stale = probe.cgroup.parent / "skillkit-run-4194999-0"  # above any pid in use
    stale.mkdir()
    Confinement(ScriptLimits().process_limits).close()
    assert not stale.exists()

"""Warm processes (``skillkit_core.build.warm``) in hostile or unlucky circumstances: what
author code may do, callers killed or sandboxed, odd command lines. Each test compares a
warm call with what a cold call (``SKILLKIT_WARM=0``) does, driving ``scripts/run`` as a
subprocess as an agent does.

The fixture skill runs the Python source it is given (``fixtures/warm_exec.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from skillkit_core.build.warm import MAX_WARM
from tests.build.conftest import build
from tests.process_support import (
    LINUX,
    children_of,
    gone,
    new_marker,
    none_left,
    wait_until,
    warm_pids,
    warm_ready,
)
from tests.protocol.support import DEPLOY_CHECK

pytestmark = pytest.mark.skipif(not LINUX, reason="warm processes are Linux only")

EXEC = str(Path(__file__).parent / "fixtures" / "warm_exec.py")


@pytest.fixture(scope="module")
def skill(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The skill that runs the source it is given, built once for the module."""
    return build(EXEC, tmp_path_factory.mktemp("warm-exec")).out_dir


def cold(env: dict[str, str]) -> dict[str, str]:
    return {**env, "SKILLKIT_WARM": "0"}


def command(skill: Path, code: str) -> list[str]:
    """The command line of a call that runs ``code``."""
    output = json.dumps({"code": code})
    return [str(skill / "scripts" / "run"), "advance", "--step", "run", "--output", output]


def call(skill: Path, code: str, env: dict[str, str], **options) -> subprocess.CompletedProcess:
    options.setdefault("cwd", tempfile.gettempdir())
    options.setdefault("timeout", 60)
    return subprocess.run(command(skill, code), capture_output=True, text=True, env=env, **options)


def warmed(skill: Path, env: dict[str, str], folder: Path) -> int:
    """Leave a warm process for calls made with ``env`` (and the default folder)."""
    done = call(skill, "result = os.getpid()", env)
    assert done.returncode == 0, done.stderr
    (warm,) = warm_ready(folder)
    return warm


def served_by(done: subprocess.CompletedProcess):
    """The result of a call that succeeded (whose code says which process ran it)."""
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["completed"]["actionResult"]["result"]


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


@pytest.mark.parametrize(
    "args", [["mcp"], ["--host", "codex", "mcp"], ["--subagent", "--tools", "Read", "mcp"]]
)
def test_an_mcp_server_never_runs_in_a_warm_process(
    built_skills: dict[str, Path], env: dict[str, str], warm_dir: Path, args: list[str]
) -> None:
    skill = built_skills[DEPLOY_CHECK]
    done = subprocess.run(
        [str(skill / "scripts" / "run"), "start"], capture_output=True, env=env, timeout=60
    )
    assert done.returncode == 0
    (warm,) = warm_ready(warm_dir)
    server = subprocess.Popen(
        [str(skill / "scripts" / "run"), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        server.stdin.write(json.dumps(INITIALIZE) + "\n")
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1  # serving ...
        assert children_of(warm) == []  # ... in a process of its own
    finally:
        server.communicate(timeout=30)  # closes its stdin: the server ends
    assert warm_pids(warm_dir) == [warm]  # nor did it leave one


def test_a_process_the_call_leaves_running_does_not_hold_the_agents_stdout(
    skill: Path, env: dict[str, str], warm_dir: Path
) -> None:
    # A call's results go to a private copy of stdout that no program it starts may
    # inherit (descriptor 1 leads to stderr): an agent reading stdout to its end must
    # not wait for a background process the author's code left behind.
    marker = new_marker()
    sleeper = [sys.executable, "-c", "import time; time.sleep(90)", f"{marker}-sleeper"]
    code = (
        f"subprocess.Popen({sleeper!r}, close_fds=False, start_new_session=True,"
        " stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)"
    )
    warmed(skill, env, warm_dir)
    try:
        for mode in (cold(env), env):
            started = time.monotonic()
            done = subprocess.run(
                command(skill, code),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=mode,
                cwd=tempfile.gettempdir(),
                timeout=60,  # the sleeper's 90 s would be read to the end
            )
            assert done.returncode == 0
            assert time.monotonic() - started < 30, mode.get("SKILLKIT_WARM")
    finally:
        none_left(marker, seconds=0)  # ends the sleepers


def test_a_call_with_stdout_closed_answers_as_a_cold_call_and_breaks_no_later_call(
    skill: Path, env: dict[str, str], warm_dir: Path
) -> None:
    closed = ["sh", "-c", 'exec "$@" >&-', "sh", *command(skill, "result = os.getppid()")]
    answers = []
    for mode in (cold(env), env, env):
        done = subprocess.run(closed, capture_output=True, text=True, env=mode, timeout=60)
        assert "Traceback" not in done.stderr
        answers.append((done.returncode, done.stderr))
    assert answers == [(0, "")] * 3
    first = call(skill, "result = os.getppid()", env)
    assert first.returncode == 0, first.stderr
    (warm,) = warm_ready(warm_dir)
    assert served_by(call(skill, "result = os.getppid()", env)) == warm


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_result_stdout_cannot_take_is_an_error_and_a_failing_stderr_loses_no_result(
    skill: Path, env: dict[str, str], warm_dir: Path
) -> None:
    warmed(skill, env, warm_dir)
    for mode in (cold(env), env):
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                command(skill, "result = 1"),
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                env=mode,
                timeout=60,
            )
        assert done.returncode == 1, mode.get("SKILLKIT_WARM")
        assert done.stderr == (
            "skillkit: error[output]: the output could not be written: No space left on device\n"
        )
        # The line an error result has on stderr is dropped when stderr cannot take it;
        # the result itself still comes.
        unknown = [str(skill / "scripts" / "run"), "advance", "--step", "nope", "--output", "{}"]
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                unknown, stdout=subprocess.PIPE, stderr=full, text=True, env=mode, timeout=60
            )
        assert done.returncode == 1
        assert json.loads(done.stdout)["error"] == "unknown_step"
        # Nor does the author's code fail when what it prints cannot be written.
        noisy = command(skill, "print('a note' * 1000); result = 2")
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                noisy, stdout=subprocess.PIPE, stderr=full, text=True, env=mode, timeout=60
            )
        assert done.returncode == 0
        assert json.loads(done.stdout)["completed"]["actionResult"] == {"result": 2}
    assert served_by(call(skill, "result = 3", env)) == 3


def _sessions(folder: Path) -> list[Path]:
    """The session files and sidecars in ``folder``."""
    return sorted(p for p in folder.glob("skill-kit-*") if p.name != "skill-kit-snapshot.key")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("host", [[], ["--host", "nonsense"]], ids=["precomputed", "full-path"])
def test_a_session_nobody_learns_of_is_not_kept_and_a_failing_stderr_loses_no_session(
    built_skills: dict[str, Path], env: dict[str, str], tmp_path: Path, host: list[str]
) -> None:
    sessions = tmp_path / "sessions"
    run = built_skills[DEPLOY_CHECK] / "scripts" / "run"
    argv = [str(run), "start", "--session", "new", "--session-dir", str(sessions), *host]
    # Cold; the call that leaves a warm process; a call a warm process may serve.
    for mode in (cold(env), env, env):
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                argv, stdout=full, stderr=subprocess.PIPE, text=True, env=mode, timeout=60
            )
        assert done.returncode == 1
        assert done.stderr.endswith(
            "skillkit: error[output]: the output could not be written: No space left on device\n"
        )
        closed = ["sh", "-c", 'exec "$@" >&-', "sh", *argv]
        assert subprocess.run(closed, capture_output=True, env=mode, timeout=60).returncode == 0
        assert _sessions(sessions) == []
        # The host's note cannot be written; the session and its pointer are still whole.
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                argv,
                stdout=subprocess.PIPE,
                stderr=full,
                text=True,
                env={**mode, "CLAUDECODE": "1"},
                timeout=60,
            )
        assert done.returncode == 0
        pointer = json.loads(done.stdout)
        session_file = Path(pointer["file"])
        assert _sessions(sessions) == sorted(
            [session_file, session_file.with_suffix(".snapshot.json")]
        )
        for path in _sessions(sessions):
            path.unlink()


@pytest.mark.parametrize("closed", ["<&-", "2>&-"])
def test_a_call_without_stdin_or_stderr_leaves_no_warm_process_that_serves_others(
    skill: Path, env: dict[str, str], warm_dir: Path, closed: str
) -> None:
    # A process started without one of its standard streams sets up its streams
    # differently (no sys.stdin; author output dropped): a warm process copied from it
    # would answer later calls wrongly.
    read = "result = sys.stdin.read(); print('author print')"
    done = subprocess.run(
        ["sh", "-c", f'exec "$@" {closed}', "sh", *command(skill, read)],
        capture_output=True,
        env=env,
        cwd=tempfile.gettempdir(),
        timeout=60,
    )
    if closed == "<&-":
        assert done.returncode == 1  # the author's code fails on the missing stream
    else:  # what the author prints is dropped, never mixed with the result
        assert done.returncode == 0
        assert json.loads(done.stdout)["completed"]["actionResult"] == {"result": ""}
    wait_until(lambda: warm_pids(warm_dir), 3, step=0.05)
    answers = [call(skill, read, mode, input="typed") for mode in (env, cold(env))]
    assert answers[0].stdout == answers[1].stdout
    assert answers[0].stderr == answers[1].stderr == "author print\n"
    assert json.loads(answers[0].stdout)["completed"]["actionResult"] == {"result": "typed"}


def test_without_stderr_what_the_skill_writes_to_descriptor_2_goes_nowhere(
    skill: Path, env: dict[str, str]
) -> None:
    # With descriptor 2 closed, the copy of stdout kept for results must not take its
    # number; 2 leads to the null device, for the children the skill's code starts too.
    child = "import os; print(os.readlink('/proc/self/fd/2'))"
    code = (
        "os.write(2, b'raw error\\n')\n"
        f"child = subprocess.run([sys.executable, '-c', {child!r}], stdout=subprocess.PIPE)\n"
        "result = [os.readlink('/proc/self/fd/2'), child.stdout.decode().strip()]"
    )
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" 2>&-', "sh", *command(skill, code)],
        capture_output=True,
        text=True,
        env=cold(env),
        cwd=tempfile.gettempdir(),
        timeout=60,
    )
    assert done.returncode == 0
    result = json.loads(done.stdout)["completed"]["actionResult"]["result"]
    assert result == [os.devnull, os.devnull]


def test_without_stdout_what_the_skill_writes_to_descriptor_1_never_reaches_the_session_file(
    skill: Path, env: dict[str, str], tmp_path: Path
) -> None:
    # The session file was opened as descriptor 1, the number left free.
    run = str(skill / "scripts" / "run")
    folder = ["--session-dir", str(tmp_path / "sessions")]
    started = subprocess.run(
        [run, "start", "--session", "new", *folder],
        capture_output=True,
        text=True,
        env=cold(env),
        timeout=60,
    )
    pointer = json.loads(started.stdout)
    answer = json.dumps({"code": "os.write(1, b'JUNK\\n'); print('more'); result = 1"})
    advance = [run, "advance", "--session", pointer["sessionId"], *folder]
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *advance, "--step", "run", "--output", answer],
        capture_output=True,
        env=cold(env),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in Path(pointer["file"]).read_text().splitlines()]
    assert [line["type"] for line in lines] == ["header", "prompt", "output", "prompt"]
    assert lines[-1]["step"] == "done"


def held(started: Path, go: Path) -> str:
    """Source of a call that says it started, waits for ``go`` (up to a minute), then
    says it finished (a file named as ``go`` with ``.done`` added)."""
    return (
        "import time\n"
        f"open({str(started)!r}, 'w').close()\n"
        "deadline = time.monotonic() + 60\n"
        f"while not os.path.exists({str(go)!r}) and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n"
        f"open({str(go) + '.done'!r}, 'w').close()\n"
        "result = 'held'\n"
    )


def running(skill: Path, code: str, env: dict[str, str], started: Path, **options):
    """A call of ``code`` under way, once its code runs."""
    process = subprocess.Popen(
        command(skill, code),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
        **options,
    )
    assert wait_until(started.exists, 30)
    return process


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGINT])
def test_a_signal_the_caller_was_started_ignoring_does_not_end_a_warm_call(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path, signum: int
) -> None:
    # nohup ignores SIGHUP; a shell ignores SIGINT for what it starts in the background
    def ignore() -> None:
        signal.signal(signum, signal.SIG_IGN)

    warmed(skill, env, warm_dir)
    answers = []
    started, go = tmp_path / "started", tmp_path / "go"
    for mode in (cold(env), env):
        process = running(skill, held(started, go), mode, started, preexec_fn=ignore)
        process.send_signal(signum)
        time.sleep(0.5)
        go.touch()
        stdout, _stderr = process.communicate(timeout=60)
        answers.append((process.returncode, stdout))
        started.unlink()
        go.unlink()
    assert answers[0][0] == 0
    assert answers[1] == answers[0]


SCHEDULING = (
    "result = [os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0),"
    " sorted(os.sched_getaffinity(0)), open('/proc/self/oom_score_adj').read().strip()]"
)


def _nicer() -> None:
    os.nice(5)


def _batch() -> None:
    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


def _one_cpu() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _first_to_go() -> None:
    with open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("500")


@pytest.mark.parametrize("adjust", [_nicer, _batch, _one_cpu, _first_to_go])
def test_a_call_runs_with_the_scheduling_it_was_started_with(
    skill: Path, env: dict[str, str], warm_dir: Path, adjust
) -> None:
    # nice, chrt, taskset and choom are how a harness keeps its tools from hogging the
    # machine (or offers them to the out-of-memory killer first)
    if adjust is _one_cpu and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU only")
    warmed(skill, env, warm_dir)
    cold_answer = call(skill, SCHEDULING, cold(env), preexec_fn=adjust)
    call(skill, SCHEDULING, env, preexec_fn=adjust)  # may leave a warm process of its own
    warm_answer = call(skill, SCHEDULING, env, preexec_fn=adjust)
    assert cold_answer.returncode == warm_answer.returncode == 0, warm_answer.stderr
    assert warm_answer.stdout == cold_answer.stdout


def test_a_call_whose_caller_is_killed_ends_with_it(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    # A harness that gives up on a call kills it (SIGKILL cannot be passed on) and reads
    # its output to the end: a cold call stops there, and so must a warm one, neither
    # holding the agent's pipes nor finishing its work behind the agent's back.
    warm = warmed(skill, env, warm_dir)
    started, go = tmp_path / "started", tmp_path / "go"
    for mode in (cold(env), env):
        process = running(skill, held(started, go), mode, started)
        if mode is env:
            assert children_of(warm)  # run by a child of the warm process
        process.kill()
        stdout, _stderr = process.communicate(timeout=45)  # not the minute the call waits
        assert stdout == ""
        assert wait_until(lambda: children_of(warm) == [], 10)
        go.touch()
        time.sleep(0.5)
        assert not Path(f"{go}.done").exists()
        started.unlink()
        go.unlink()


def test_what_a_call_started_ends_with_it_when_its_caller_is_killed(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    # A harness kills the process group of a call it gives up on: a cold call's children
    # are in it, a warm call's were in the warm child's group and lived on (holding the
    # caller's stderr open).
    warmed(skill, env, warm_dir)
    for name, mode in (("cold", cold(env)), ("warm", env)):
        started, pid_file = tmp_path / f"{name}-started", tmp_path / f"{name}-sleep"
        code = (
            "import subprocess, time\n"
            "child = subprocess.Popen(['sleep', '300'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            f"open({str(started)!r}, 'w').close()\n"
            "time.sleep(60)\n"
        )
        process = running(skill, code, mode, started, start_new_session=True)
        sleeper = int(pid_file.read_text())
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=45)
        assert wait_until(lambda pid=sleeper: not _alive(pid), 10), name


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


EXITS = [
    "os._exit(3)",
    "sys.exit(5)",
    "sys.exit('a message')",
    "import signal; os.kill(os.getpid(), signal.SIGUSR1)",
    "import signal; signal.signal(signal.SIGTERM, signal.SIG_DFL); os.kill(os.getpid(), 15)",
]


@pytest.mark.parametrize("code", EXITS)
def test_a_warm_call_ends_as_a_cold_call_does(
    skill: Path, env: dict[str, str], warm_dir: Path, code: str
) -> None:
    warmed(skill, env, warm_dir)
    cold_answer = call(skill, code, cold(env))
    warm_answer = call(skill, code, env)
    assert (warm_answer.returncode, warm_answer.stdout, warm_answer.stderr) == (
        cold_answer.returncode,
        cold_answer.stdout,
        cold_answer.stderr,
    )


def test_a_module_that_ignores_sigchld_runs_warm_as_cold(
    skill: Path, env: dict[str, str], warm_dir: Path
) -> None:
    # Author code may ignore SIGCHLD when imported (so that its children are reaped)
    env = {**env, "WARM_EXEC_IMPORT": "import signal; signal.signal(17, signal.SIG_IGN)"}
    code = (
        "import signal; print(signal.getsignal(signal.SIGCHLD), file=sys.stderr);"
        " subprocess.run(['true']); os._exit(3)"
    )
    cold_answer = call(skill, code, cold(env))
    assert cold_answer.returncode == 3
    for _ in range(3):  # the first leaves the warm process, the others are its children
        warm_answer = call(skill, code, env)
        assert (warm_answer.returncode, warm_answer.stderr) == (3, cold_answer.stderr)
        assert len(warm_ready(warm_dir)) == 1


def _landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none)."""
    if not LINUX:
        return 0
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return max(libc.syscall(444, None, 0, 1), 0)  # landlock_create_ruleset, VERSION


def _no_new_privileges() -> None:
    import ctypes

    assert ctypes.CDLL(None).prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS


def _sandboxed() -> None:
    """No new privileges, and a Landlock domain in which no folder can be made."""
    import ctypes

    _no_new_privileges()
    libc = ctypes.CDLL(None, use_errno=True)
    handled = ctypes.c_uint64(1 << 7)  # LANDLOCK_ACCESS_FS_MAKE_DIR, granted nowhere
    ruleset = libc.syscall(444, ctypes.byref(handled), ctypes.sizeof(handled), 0)
    assert ruleset >= 0 and libc.syscall(446, ruleset, 0) == 0  # landlock_restrict_self
    os.close(ruleset)


@pytest.mark.skipif(_landlock_abi() < 1, reason="no Landlock in this kernel")
@pytest.mark.parametrize("first", ["outside", "inside"])
def test_a_landlock_sandbox_and_its_outside_never_share_a_warm_process(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path, first: str
) -> None:
    # Landlock leaves no trace in /proc a call could compare: a sandboxed call must not
    # be run by a warm process left outside its sandbox (escaping it), nor the reverse.
    # Both sides set no-new-privileges (an unprivileged user needs it for Landlock).
    made = tmp_path / "made"
    code = f"os.mkdir({str(made)!r}); os.rmdir({str(made)!r})"
    start = {"outside": _no_new_privileges, "inside": _sandboxed}
    done = call(skill, "result = 1", env, preexec_fn=start[first])
    assert done.returncode == 0, done.stderr
    assert len(warm_ready(warm_dir)) == 1
    for where in ("outside", "inside", "outside", "inside"):
        cold_answer = call(skill, code, cold(env), preexec_fn=start[where])
        warm_answer = call(skill, code, env, preexec_fn=start[where])
        assert cold_answer.returncode == (0 if where == "outside" else 1)
        assert (warm_answer.returncode, warm_answer.stdout) == (
            cold_answer.returncode,
            cold_answer.stdout,
        ), where


def test_a_warm_process_whose_unpacked_bundle_was_removed_leaves_calls_to_a_cold_one(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    # Clearing the user's cache folder removes the unpacked bundle a warm process goes on
    # importing from; a cold call unpacks it again.
    env = {**env, "SKILLKIT_CACHE_DIR": str(tmp_path / "cache")}
    old = warmed(skill, env, warm_dir)
    shutil.rmtree(tmp_path / "cache")
    code = "result = os.getppid()"
    done = call(skill, code, env)
    assert done.returncode == 0, done.stderr
    assert served_by(done) != old
    (new,) = warm_ready(warm_dir)  # left by that call, which unpacked the bundle again
    assert new != old
    assert served_by(call(skill, code, env)) == new


def test_a_module_that_changes_folder_when_imported_runs_warm_calls_there(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    env = {**env, "WARM_EXEC_IMPORT": f"os.chdir({str(tmp_path)!r})"}
    code = "result = [os.getcwd(), os.getppid()]"
    assert served_by(call(skill, code, cold(env)))[0] == str(tmp_path)
    warm = warmed(skill, env, warm_dir)
    folder, parent = served_by(call(skill, code, env))
    assert (folder, parent) == (str(tmp_path), warm)


def test_the_warm_processes_of_a_folder_are_few_and_those_gone_leave_no_files(
    skill: Path, env: dict[str, str], warm_dir: Path
) -> None:
    # A harness may give every call an environment of its own (a call id in a variable):
    # each would leave a warm process of its own, for nothing.
    env = {**env, "SKILLKIT_WARM_IDLE": "40"}  # each checks its socket every 10 s
    killed = warmed(skill, {**env, "CALL_ID": "killed"}, warm_dir)
    os.kill(killed, signal.SIGKILL)  # leaves its socket and lock file behind
    gone(killed)
    pids = {}
    for number in range(MAX_WARM + 2):
        call_env = {**env, "CALL_ID": str(number)}
        assert call(skill, "result = 1", call_env).returncode == 0
        deadline = time.monotonic() + 20
        while len(set(warm_pids(warm_dir)) - set(pids.values())) < 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        (pids[number],) = set(warm_pids(warm_dir)) - set(pids.values())
        if number == 2:  # the first is now used after the second and third ...
            time.sleep(0.05)
            assert call(skill, "result = 1", {**env, "CALL_ID": "0"}).returncode == 0
    # ... so the second and third made room for the last two, and the stale files went
    wait_until(lambda: len(warm_pids(warm_dir)) <= MAX_WARM, 30, step=0.1)
    assert sorted(warm_pids(warm_dir)) == sorted(
        pid for number, pid in pids.items() if number not in (1, 2)
    )
    assert len(list(warm_dir.glob("*.sock"))) == len(list(warm_dir.glob("*.lock"))) == MAX_WARM


def test_removing_the_folder_ends_even_a_warm_process_still_loading(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    # A plain start is answered from the build's result, and leaves a warm process
    # loading in the background: here it takes a while (the module sleeps on import).
    loaded = tmp_path / "loaded"
    slow = f"import time; time.sleep(1); open({str(loaded)!r}, 'w').close()"
    done = subprocess.run(
        [str(skill / "scripts" / "run"), "start"],
        capture_output=True,
        env={**env, "WARM_EXEC_IMPORT": slow},
        cwd=tempfile.gettempdir(),
        timeout=60,
    )
    assert done.returncode == 0 and not loaded.exists()
    shutil.rmtree(warm_dir)  # ends them all, says the guide
    assert wait_until(loaded.exists, 20)
    time.sleep(1)
    assert not warm_dir.exists()  # not made again by the one that was loading


def test_a_socket_folder_under_a_link_or_a_shared_folder_is_neither_used_nor_made(
    skill: Path, env: dict[str, str], warm_dir: Path
) -> None:
    target = warm_dir / "target"  # (a socket's path must be short)
    target.mkdir(mode=0o700)
    (warm_dir / "link").symlink_to(target)
    shared = warm_dir / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    for folder in (warm_dir / "link" / "warm", shared / "warm"):
        env = {**env, "SKILLKIT_WARM_DIR": str(folder)}
        for _ in range(2):
            done = call(skill, "result = os.getppid()", env)
            assert served_by(done) == os.getpid()  # cold, both times
        time.sleep(1)  # what the first call left had time to set up
    assert list(target.iterdir()) == list(shared.iterdir()) == []


def test_the_call_that_leaves_a_warm_process_has_no_child_of_it_to_wait_for(
    skill: Path, env: dict[str, str], warm_dir: Path
) -> None:
    # os.wait() in author code waits for any child: it must get the author's own
    code = (
        "import time\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(0.3)\n"
        "    os._exit(7)\n"
        "pid, status = os.wait()\n"
        "result = [pid == child, os.waitstatus_to_exitcode(status)]\n"
    )
    for mode in (cold(env), env):  # cold, then cold leaving a warm process
        assert served_by(call(skill, code, mode)) == [True, 7]
    assert len(warm_ready(warm_dir)) == 1
    assert served_by(call(skill, code, env)) == [True, 7]


def test_a_call_that_signals_its_process_group_reaches_no_other_call(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    # Author code may end its own process group (its subprocesses) on the way out; a
    # cold call's group is the caller's, a warm call's must not be the warm process's.
    code = "import signal; os.killpg(os.getpgrp(), signal.SIGTERM)"
    cold_answer = call(skill, code, cold(env), start_new_session=True)
    assert cold_answer.returncode == -signal.SIGTERM
    warm = warmed(skill, env, warm_dir)
    started, go = tmp_path / "started", tmp_path / "go"
    other = running(skill, held(started, go), env, started)
    try:
        done = call(skill, code, env, start_new_session=True)
        assert (done.returncode, done.stdout) == (cold_answer.returncode, cold_answer.stdout)
    finally:
        go.touch()
        stdout, _stderr = other.communicate(timeout=60)
    assert other.returncode == 0 and json.loads(stdout)["kind"] == "prompt"
    assert warm_pids(warm_dir) == [warm]


def test_a_warm_call_nobody_reports_on_is_never_run_again_cold(
    skill: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    # The warm process is gone and the child ends without a word: the caller reports
    # an error, even on a stdout nobody reads any more, and never runs the call itself.
    log = tmp_path / "runs"
    code = (
        f"open({str(log)!r}, 'a').write('ran\\n')\n"
        "import signal\n"
        "parent = os.getppid()\n"
        "if b'.pyz' in open(f'/proc/{parent}/cmdline', 'rb').read():  # the warm process\n"
        "    os.kill(parent, signal.SIGKILL)\n"
        "os._exit(3)\n"
    )
    warmed(skill, env, warm_dir)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the agent stopped reading
    try:
        done = subprocess.run(
            command(skill, code),
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tempfile.gettempdir(),
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert log.read_text() == "ran\n"

"""Warm processes of built skills (``skillkit_core.build.warm``), driven as an agent does:
``scripts/run`` as a subprocess, one call after another.

A cold call leaves a warm process; later calls made in the same circumstances are run by
fresh forks of it (the probe skill's prompt says which process rendered it), answer as
cold calls do, get the caller's streams and signals, and calls made elsewhere (another
environment, folder, bundle) never reach it. Each test has a socket folder of its own and
ends its warm processes.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.build.conftest import build
from tests.process_support import LINUX, children_of, gone, wait_until, warm_ready
from tests.protocol.support import DEPLOY_CHECK, HELP_DESK

pytestmark = pytest.mark.skipif(not LINUX, reason="warm processes are Linux only")

PROBE = str(Path(__file__).parent / "fixtures" / "warm_probe.py")


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The probe skill, built once for the module."""
    return build(PROBE, tmp_path_factory.mktemp("warm")).out_dir


def call(skill: Path, *args: str, env: dict[str, str], **options) -> subprocess.CompletedProcess:
    options.setdefault("cwd", tempfile.gettempdir())
    options.setdefault("timeout", 60)
    return subprocess.run(
        [str(skill / "scripts" / "run"), *args], capture_output=True, text=True, env=env, **options
    )


def facts(done: subprocess.CompletedProcess) -> dict:
    """What the probe's prompt says about the process that rendered it."""
    assert done.returncode == 0, done.stderr
    prompt = json.loads(done.stdout)["prompt"]
    return json.loads(re.search(r"\{.*\}", prompt).group(0))


def test_later_calls_are_run_by_fresh_forks_of_the_warm_process(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    first = call(probe, "start", env=env)
    cold = facts(first)
    assert cold["pid"] == cold["imported_in"]  # this call loaded the skill itself
    assert "warm-probe: imported" in first.stderr
    (warm,) = warm_ready(warm_dir)
    seen = set()
    for _ in range(3):
        done = call(probe, "start", env=env)
        answer = facts(done)
        assert answer["ppid"] == warm  # a child of the warm process ...
        assert answer["imported_in"] == cold["pid"]  # ... which the first call forked
        assert answer["rendered"] == 1  # from the state right after loading, every time
        assert done.stdout.count("\n") == 1  # one JSON line; the author's prints ...
        assert "warm-probe: rendering" in done.stderr  # ... still go to stderr
        assert "warm-probe: imported" not in done.stderr
        seen.add(answer["pid"])
    assert len(seen) == 3


CALLS = [
    ["--help"],
    ["start"],
    ["start", "--host", "codex"],
    ["advance", "--step", "choose", "--output", '{"target": "staging"}'],
    ["advance", "--step", "choose", "--output", '{"target": "moon"}'],
    ["advance", "--step", "nowhere", "--output", "{}"],
    ["advance", "--step", "choose", "--output", "{not json"],
    ["start", "--bogus"],
    ["advance", "--session", "0000"],
]


def test_warm_calls_answer_exactly_as_cold_calls(
    built_skills: dict[str, Path], run_cache: Path, env: dict[str, str], warm_dir: Path
) -> None:
    skill = built_skills[DEPLOY_CHECK]
    cold_env = {**env, "SKILLKIT_WARM": "0"}
    call(skill, "advance", "--step", "choose", "--output", '{"target": "staging"}', env=env)
    warm_ready(warm_dir)
    for args in CALLS:
        cold, warm = call(skill, *args, env=cold_env), call(skill, *args, env=env)
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            cold.returncode,
            cold.stdout,
            cold.stderr,
        ), args


def test_a_composite_and_a_session_run_warm_as_cold(
    built_skills: dict[str, Path], env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    help_desk = built_skills[HELP_DESK]
    call(help_desk, "topics", env=env)
    warm_ready(warm_dir)
    for args in (["topics"], ["topic", "escalation"], ["topic", "nope"]):
        cold = call(help_desk, *args, env={**env, "SKILLKIT_WARM": "0"})
        warm = call(help_desk, *args, env=env)
        assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout), args
    deploy = built_skills[DEPLOY_CHECK]
    sessions = tmp_path / "sessions"
    lines = {}
    for mode in ("0", "1"):
        mode_env = {**env, "SKILLKIT_WARM": mode}
        started = call(
            deploy, "start", "--session", "new", "--session-dir", str(sessions), env=mode_env
        )
        pointer = json.loads(started.stdout)
        output = {"type": "output", "step": "choose", "output": {"target": "staging"}}
        with open(pointer["file"], "a", encoding="utf-8") as handle:
            handle.write(json.dumps(output) + "\n")
        advanced = call(
            deploy,
            "advance",
            "--session",
            pointer["sessionId"],
            "--session-dir",
            str(sessions),
            env=mode_env,
        )
        assert advanced.stdout == "4\n", advanced.stderr
        written = [json.loads(line) for line in Path(pointer["file"]).read_text().splitlines()]
        lines[mode] = [
            {k: v for k, v in line.items() if k not in ("sessionId", "createdAt")}
            for line in written
        ]
    assert lines["0"] == lines["1"]


def test_a_call_made_elsewhere_never_reaches_the_warm_process(
    probe: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    facts(call(probe, "start", env={**env, "WARM_PROBE": "a"}))
    (first,) = warm_ready(warm_dir)
    other_variable = facts(call(probe, "start", env={**env, "WARM_PROBE": "b"}))
    assert other_variable["pid"] == other_variable["imported_in"]  # loaded cold
    assert other_variable["probe"] == "b"
    elsewhere = facts(call(probe, "start", env={**env, "WARM_PROBE": "a"}, cwd=tmp_path))
    assert elsewhere["pid"] == elsewhere["imported_in"]
    assert elsewhere["cwd"] == str(tmp_path)
    assert len(warm_ready(warm_dir, count=3)) == 3
    same = facts(call(probe, "start", env={**env, "WARM_PROBE": "a"}))
    assert same["ppid"] == first and same["probe"] == "a"


def test_a_warm_call_reads_the_callers_stdin(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    call(probe, "start", env=env)
    warm_ready(warm_dir)
    args = ("advance", "--step", "report", "--output", "-")
    done = call(probe, *args, env=env, input='{"seconds": 0}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["completed"]["actionResult"] == {"slept": 0.0}
    cold = call(probe, *args, env={**env, "SKILLKIT_WARM": "0"}, input='{"seconds": 0}')
    assert cold.stdout == done.stdout


def _running_call(probe: Path, env: dict[str, str], warm: int) -> tuple[subprocess.Popen, int]:
    """A warm call busy in its action, and the child of the warm process running it."""
    output = json.dumps({"seconds": 60})
    process = subprocess.Popen(
        [str(probe / "scripts" / "run"), "advance", "--step", "report", "--output", output],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    wait_until(lambda: children_of(warm), 20)
    children = children_of(warm)
    assert len(children) == 1, children
    return process, children[0]


def test_signals_to_the_caller_reach_the_warm_call(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    call(probe, "start", env=env)
    (warm,) = warm_ready(warm_dir)
    process, child = _running_call(probe, env, warm)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=20)
    assert process.returncode == -signal.SIGTERM  # as a cold call killed so would end
    assert wait_until(lambda: child not in children_of(warm), 10)
    assert facts(call(probe, "start", env=env))["ppid"] == warm  # still serving


def test_a_warm_call_whose_process_is_killed_ends_as_if_killed_itself(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    call(probe, "start", env=env)
    (warm,) = warm_ready(warm_dir)
    process, child = _running_call(probe, env, warm)
    os.kill(child, signal.SIGKILL)  # the out-of-memory killer, say
    stdout, _stderr = process.communicate(timeout=20)
    assert process.returncode == -signal.SIGKILL  # as a cold call killed so would end
    assert stdout == ""


def test_a_warm_call_that_nobody_can_account_for_reports_an_error(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    call(probe, "start", env=env)
    (warm,) = warm_ready(warm_dir)
    process, child = _running_call(probe, env, warm)
    os.kill(warm, signal.SIGKILL)  # the warm process, which would report the child's end
    os.kill(child, signal.SIGKILL)
    stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 1
    result = json.loads(stdout)
    assert result["kind"] == "error" and result["error"] == "runtime"
    assert "ended without an exit code" in stderr


def test_the_warm_process_ends_when_idle_or_when_its_socket_is_removed(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    idle_env = {**env, "SKILLKIT_WARM_IDLE": "1.5"}
    call(probe, "start", env=idle_env)
    (warm,) = warm_ready(warm_dir)
    gone(warm, within=10)
    assert list(warm_dir.iterdir()) == []  # its socket and lock file go with it
    slow_env = {**env, "SKILLKIT_WARM_IDLE": "40"}  # checks its socket every 10 s
    call(probe, "start", env=slow_env)
    (warm,) = warm_ready(warm_dir)
    for sock in warm_dir.glob("*.sock"):
        sock.unlink()
    gone(warm, within=25)


def test_a_rebuilt_skill_is_not_served_by_the_old_warm_process(
    env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    skill = build(PROBE, tmp_path).out_dir
    env = {**env, "SKILLKIT_WARM_IDLE": "60"}  # checks its bundle every 15 s
    call(skill, "start", env=env)
    (old,) = warm_ready(warm_dir)
    build(PROBE, tmp_path)
    answer = facts(call(skill, "start", env=env))
    assert answer["pid"] == answer["imported_in"]  # the new bundle, loaded cold
    gone(old, within=30)


def test_no_warm_process_when_turned_off_or_where_the_folder_is_not_private(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    off = {**env, "SKILLKIT_WARM": "0"}
    for _ in range(2):
        answer = facts(call(probe, "start", env=off))
        assert answer["pid"] == answer["imported_in"]
    shared = warm_dir / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    unsafe = {**env, "SKILLKIT_WARM_DIR": str(shared)}
    for _ in range(2):
        answer = facts(call(probe, "start", env=unsafe))
        assert answer["pid"] == answer["imported_in"]
    time.sleep(0.5)
    assert list(shared.iterdir()) == []
    assert [p.name for p in warm_dir.iterdir()] == ["shared"]


def _request(digest: bytes, argv: list[str]) -> bytes:
    payload = digest + b"\0".join([str(len(argv)).encode(), *(a.encode() for a in argv)])
    return b"skw1" + len(payload).to_bytes(4, "little") + payload


def _warm_counting_renderings(
    probe: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> tuple[dict[str, str], Callable[[], int], int]:
    """The probe called once, leaving its warm process: the environment in which the
    probe notes each prompt it renders, how many it has rendered so far, the warm pid."""
    log = tmp_path / "renderings"
    env = {**env, "WARM_PROBE_LOG": str(log)}
    call(probe, "start", env=env)
    (warm,) = warm_ready(warm_dir)
    return env, lambda: len(log.read_text().split()), warm


def _to_the_end(client: socket.socket) -> bytes:
    """What the other end sends until it closes (a reset when it left bytes unread)."""
    data = b""
    try:
        while chunk := client.recv(16):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def test_hostile_connections_run_nothing_and_do_not_stop_the_warm_process(
    probe: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    env, renderings, warm = _warm_counting_renderings(probe, env, warm_dir, tmp_path)
    (path,) = warm_dir.glob("*.sock")
    digest = bytes.fromhex(path.stem)  # the socket is named after the identity's digest
    refused = [
        b"",  # connects and hangs up
        b"junk that is no request",
        b"skw1" + (1 << 31).to_bytes(4, "little"),  # a length beyond the limit
        _request(b"\1" * 16, ["start"]),  # another identity's
        _request(digest, ["start"])[:-3],  # cut short
        b"skw1" + (23).to_bytes(4, "little") + digest + b"2\0start",  # a false count
    ]
    for data in refused:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(10)
            client.connect(str(path))
            client.sendall(data)
            client.shutdown(socket.SHUT_WR)
            assert _to_the_end(client) == b""  # without a child to run anything
    accepted = []
    for go_ahead in (None, b"G", b"X"):  # no go-ahead, one without descriptors, a wrong one
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(10)
            client.connect(str(path))
            client.sendall(_request(digest, ["start"]))
            reply = client.recv(5)
            assert reply[:1] == b"Y"
            accepted.append(int.from_bytes(reply[1:], "little"))
            if go_ahead:
                client.sendall(go_ahead)
            client.shutdown(socket.SHUT_WR)
            # The child ends without running the call (it says so, or the warm process
            # says what ended it), never with an exit code of the call's.
            assert _to_the_end(client)[:1] in (b"N", b"K")
    for child in accepted:
        gone(child, within=10)
    assert renderings() == 1  # only the first, cold, call rendered
    answer = facts(call(probe, "start", env=env))
    assert answer["ppid"] == warm
    assert renderings() == 2


def test_the_warm_process_keeps_none_of_the_callers_descriptors(
    probe: Path, env: dict[str, str], warm_dir: Path
) -> None:
    # An agent may pass a pipe beyond stdio and wait for its end: the warm process left
    # by the call must not hold it open.
    read_end, write_end = os.pipe()
    try:
        done = subprocess.run(
            [str(probe / "scripts" / "run"), "start"],
            capture_output=True,
            env=env,
            cwd=tempfile.gettempdir(),
            pass_fds=(write_end,),
            timeout=60,
        )
        assert done.returncode == 0
        (warm,) = warm_ready(warm_dir)
        os.close(write_end)
        write_end = -1
        assert os.read(read_end, 1) == b""  # no writer left: the warm process has none
        held = [os.readlink(f"/proc/{warm}/fd/{fd}") for fd in os.listdir(f"/proc/{warm}/fd")]
        assert not [target for target in held if target.startswith("pipe:")]
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def test_a_stopped_warm_process_neither_holds_a_call_up_nor_runs_it_later(
    probe: Path, env: dict[str, str], warm_dir: Path, tmp_path: Path
) -> None:
    env, renderings, warm = _warm_counting_renderings(probe, env, warm_dir, tmp_path)
    os.kill(warm, signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = facts(call(probe, "start", env=env))
        assert answer["pid"] == answer["imported_in"]  # run cold, after a short wait
        assert time.monotonic() - started < 30
    finally:
        os.kill(warm, signal.SIGCONT)
    time.sleep(1)  # the warm process now forks a child for the abandoned call ...
    assert renderings() == 2  # ... which does not run it
    assert facts(call(probe, "start", env=env))["ppid"] == warm
    assert renderings() == 3


PRELOADED = """
import io, json, sys
from skillkit_core.loader import load_entry
from skillkit_core.protocol.runner import main, preload

definition = load_entry(sys.argv[1])
preload(definition)
loaded = set(sys.modules)
for argv in json.loads(sys.argv[2]):
    main(definition, argv, stdout=io.StringIO(), stderr=io.StringIO())
print(json.dumps(sorted(m for m in set(sys.modules) - loaded if m.startswith("skillkit_core"))))
"""


@pytest.mark.parametrize(
    ("entry", "calls"),
    [
        (
            DEPLOY_CHECK,
            [
                ["start"],
                ["start", "--host", "codex"],
                ["advance", "--step", "choose", "--output", '{"target": "staging"}'],
                ["start", "--session", "new", "--session-dir", "{sessions}"],
                ["--help"],
            ],
        ),
        (HELP_DESK, [["topics"], ["topic", "escalation"], ["--help"]]),
    ],
)
def test_preload_loads_what_calls_would_each_load(
    entry: str, calls: list[list[str]], tmp_path: Path
) -> None:
    # A warm process preloads once what each of its calls would otherwise import anew
    sessions = str(tmp_path / "sessions")
    argvs = [[arg.replace("{sessions}", sessions) for arg in argv] for argv in calls]
    done = subprocess.run(
        [sys.executable, "-c", PRELOADED, entry, json.dumps(argvs)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []

"""Session mode on disk: the file format, secure folders and files, locking, the snapshot
sidecar, and reading what the agent appended."""

from __future__ import annotations

import hmac
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skillkit_core.cache_folder import temp_cache_root
from skillkit_core.errors import SessionError
from skillkit_core.protocol import session_store
from skillkit_core.protocol.session_store import sidecar_tag
from tests.process_support import in_a_deleted_folder
from tests.protocol.support import (
    AUTOPILOT,
    DEPLOY_CHECK,
    ROOT,
    Session,
    result_of,
    run,
    start_session,
)

CHOOSE = {"target": "staging"}
VERIFY = {"blockers": [], "safe": True}


def _default_dir(tmp: Path) -> Path:
    return tmp / f"skillkit-{os.getuid()}"


def _at_verify(folder: Path, *extra: str) -> Session:
    session, _ = start_session(DEPLOY_CHECK, folder, *extra)
    assert session.advance("--step", "choose", "--output", json.dumps(CHOOSE)).code == 0
    return session


# -- the file ------------------------------------------------------------------------------


def test_start_prints_a_pointer_to_line_two_of_a_private_file(tmp_path: Path) -> None:
    env = {"TMPDIR": str(tmp_path)}
    call = run(DEPLOY_CHECK, "--params", "{}", "--host", "claude-code", "--session", "new", env=env)
    assert call.code == 0, call.describe()
    pointer = call.json
    assert list(pointer) == ["sessionId", "file", "line"]
    assert re.fullmatch(r"[0-9a-f]{32}", pointer["sessionId"])
    assert pointer["line"] == 2
    path = Path(pointer["file"])
    assert path.is_absolute()
    assert path == _default_dir(tmp_path) / f"skill-kit-{pointer['sessionId']}.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    first = result_of(json.loads(lines[1]))
    assert first["kind"] == "prompt" and first["step"] == "choose" and "preamble" in first


def test_header_holds_what_every_advance_rebuilds_from(tmp_path: Path) -> None:
    session, _ = start_session(
        DEPLOY_CHECK, tmp_path, "--host", "Some-New-Agent", "--tools", "Read, Bash", "--subagent"
    )
    header = session.line(1)
    assert list(header) == [
        "type",
        "sessionId",
        "skill",
        "host",
        "tools",
        "isSubagent",
        "params",
        "createdAt",
        "outputMode",
    ]
    assert header["type"] == "header" and header["sessionId"] == session.session_id
    assert header["skill"] == "deploy-check"
    assert header["host"] == "generic"  # unknown hosts run as generic
    assert header["tools"] == ["Read", "Bash"]
    assert header["isSubagent"] is True
    assert header["params"] == {"env": None}  # validated, defaults filled in
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", header["createdAt"])
    assert header["outputMode"] == "file"


def test_optional_header_keys_are_left_out(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path, "--host", "codex")
    assert not {"tools", "isSubagent", "subskill"} & set(session.line(1))


def test_session_ids_are_fresh_for_every_start(tmp_path: Path) -> None:
    ids = {start_session(DEPLOY_CHECK, tmp_path)[0].session_id for _ in range(3)}
    assert len(ids) == 3


def test_relative_session_dir_is_made_absolute(tmp_path: Path) -> None:
    relative = os.path.relpath(tmp_path / "rel", ROOT)
    call = run(DEPLOY_CHECK, "--session", "new", "--session-dir", relative)
    assert Path(call.json["file"]).parent == tmp_path / "rel"


def test_default_session_dir_is_never_in_the_current_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # tempfile.gettempdir would take the current folder (the agent's project) here: a
    # relative TMPDIR naming a folder that exists; the store takes the caches' temp folder.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "relative").mkdir()
    for name in ("TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TMPDIR", "relative")
    folder = session_store.default_session_dir()
    assert folder.is_absolute() and tmp_path not in folder.parents
    assert folder == Path(temp_cache_root())
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert session_store.default_session_dir() == _default_dir(tmp_path)


def test_validation_errors_are_appended_and_the_step_can_be_retried(tmp_path: Path) -> None:
    session = _at_verify(tmp_path, "--output-mode", "flag")
    bad = session.advance("--step", "verify", "--output", '{"blockers": "none"}')
    assert bad.code == 0, bad.describe()
    number = int(bad.stdout)
    error = result_of(session.line(number))
    assert error["error"] == "validation" and error["retry"] is True
    assert "blockers" in error["message"]
    assert session.line(number - 1) == {
        "type": "output",
        "step": "verify",
        "output": {"blockers": "none"},
    }
    good = session.advance("--step", "verify", "--output", json.dumps(VERIFY))
    assert int(good.stdout) == number + 2
    assert result_of(session.line(number + 2))["step"] == "deploy"


def test_file_mode_validation_error_follows_the_agents_line(tmp_path: Path) -> None:
    session = _at_verify(tmp_path)
    session.write_output("verify", {"safe": True})
    bad = session.advance()
    assert bad.code == 0 and int(bad.stdout) == len(session.lines()) == 6
    assert result_of(session.line(6))["error"] == "validation"
    again = session.advance()  # the refused line is not submitted twice
    assert again.code == 0 and int(again.stdout) == 7
    assert result_of(session.line(7))["error"] == "usage"
    assert "nothing to submit" in result_of(session.line(7))["message"]
    session.write_output("verify", VERIFY)
    assert int(session.advance().stdout) == 9


def test_output_line_without_newline_is_read_and_kept_apart(tmp_path: Path) -> None:
    """TypeScript SDK bug 8: a line appended without its newline corrupted the file."""
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    session.write_output("choose", CHOOSE, newline=False)
    call = session.advance()
    assert call.code == 0, call.describe()
    assert int(call.stdout) == 4
    lines = session.lines()
    assert [json.loads(line)["type"] for line in lines] == ["header", "prompt", "output", "prompt"]
    assert session.file.read_bytes().endswith(b"\n")
    session.write_output("verify", VERIFY, newline=False)
    assert int(session.advance().stdout) == 6


def test_the_newest_output_line_wins(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    session.write_output("choose", {"target": "nowhere"})
    with session.file.open("a") as handle:
        handle.write("\n   \n")  # blank lines are ignored
    session.write_output("choose", CHOOSE)
    call = session.advance()
    assert call.code == 0, call.describe()
    assert "superseded" in call.stderr
    assert result_of(session.line(int(call.stdout)))["completed"]["response"] == CHOOSE


def test_session_advance_ignores_handshake_flags_and_says_so(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path, "--host", "codex")
    session.write_output("choose", CHOOSE)
    call = session.advance("--host", "claude-code", "--params", '{"env": "staging"}')
    assert call.code == 0, call.describe()
    assert "ignoring --params" in call.stderr and "ignoring --host" in call.stderr


# -- folders and files are checked -------------------------------------------------------------


def test_default_folder_open_to_others_is_refused(tmp_path: Path) -> None:
    folder = _default_dir(tmp_path)
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    call = run(DEPLOY_CHECK, "--session", "new", env={"TMPDIR": str(tmp_path)})
    assert call.code == 1 and call.json["error"] == "session"
    assert "chmod 700" in call.json["message"]
    assert list(folder.iterdir()) == []


def test_symlinked_session_folders_are_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    _default_dir(tmp_path).symlink_to(real, target_is_directory=True)
    call = run(DEPLOY_CHECK, "--session", "new", env={"TMPDIR": str(tmp_path)})
    assert call.code == 1 and "symbolic link" in call.json["message"]
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    call = run(DEPLOY_CHECK, "--session", "new", "--session-dir", str(tmp_path / "link"))
    assert call.code == 1 and "symbolic link" in call.json["message"]
    assert list(real.iterdir()) == []


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give a folder to another user")
def test_foreign_owned_session_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    os.chown(folder, 4242, 4242)
    call = run(DEPLOY_CHECK, "--session", "new", "--session-dir", str(folder))
    assert call.code == 1 and "belongs to user id 4242" in call.json["message"]


def test_symlinked_session_file_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    session = _at_verify(tmp_path / "s")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    session.file.unlink()
    session.file.symlink_to(victim)
    call = session.advance("--step", "verify", "--output", json.dumps(VERIFY))
    assert call.code == 1 and "symbolic link" in call.json["message"]
    assert victim.read_text() == "precious\n"


def test_session_file_open_to_others_is_refused(tmp_path: Path) -> None:
    session = _at_verify(tmp_path)
    session.file.chmod(0o666)
    call = session.advance("--step", "verify", "--output", json.dumps(VERIFY))
    assert call.code == 1 and "mode is 666" in call.json["message"]


def test_files_are_created_exclusively_and_never_through_symlinks(tmp_path: Path) -> None:
    existing = tmp_path / "skill-kit-x.jsonl"
    existing.write_text("theirs\n")
    with pytest.raises(SessionError, match="already exists"):
        session_store.create_file(existing, b"ours\n")
    assert existing.read_text() == "theirs\n"
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "target.jsonl")
    with pytest.raises(SessionError):
        session_store.create_file(dangling, b"ours\n")
    assert not (tmp_path / "target.jsonl").exists()


@pytest.mark.parametrize(
    "text", ["", "new", "0" * 31, "0" * 33, "G" * 32, "../" + "0" * 29, "0" * 31 + "\n", None]
)
def test_session_ids_are_checked_before_any_path_is_built(text: str | None) -> None:
    with pytest.raises(SessionError, match="malformed session id"):
        session_store.session_path(Path("/nonexistent"), text)  # type: ignore[arg-type]


# -- concurrency -------------------------------------------------------------------------------


def _spawn(session: Session, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "skillkit_core.protocol", session.entry, "advance"]
    argv += ["--session", session.session_id, "--session-dir", str(session.folder), *extra]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_concurrent_advances_are_serialised(tmp_path: Path) -> None:
    session = _at_verify(tmp_path)
    before = len(session.lines())
    procs = [_spawn(session, "--step", "verify", "--output", json.dumps(VERIFY)) for _ in range(5)]
    outcomes = [(p.wait(timeout=60), p.stdout.read(), p.stderr.read()) for p in procs]
    assert [o[0] for o in outcomes] == [0] * 5, outcomes
    lines = [json.loads(line) for line in session.lines()[before:]]
    # Each call's output line and its answer, one pair after the other, nothing interleaved:
    # the first call moves the run on, the four after it are told the step is not current.
    assert [line["type"] for line in lines] == ["output", "prompt"] + ["output", "error"] * 4
    assert all(line["error"] == "state" for line in lines[3::2])
    assert sorted(int(o[1]) for o in outcomes) == list(range(before + 2, before + 11, 2))


def test_concurrent_file_mode_advances_consume_the_output_once(tmp_path: Path) -> None:
    session = _at_verify(tmp_path)
    session.write_output("verify", VERIFY)
    procs = [_spawn(session) for _ in range(4)]
    codes = sorted(p.wait(timeout=60) for p in procs)
    assert codes == [0, 0, 0, 0]
    lines = [json.loads(line) for line in session.lines()]
    # The output is submitted once; the three calls after it find nothing new to submit.
    assert [line["type"] for line in lines][-5:] == ["output", "prompt", "error", "error", "error"]
    assert all("nothing to submit" in line["message"] for line in lines[-3:])


# -- the snapshot sidecar ---------------------------------------------------------------------


def _sidecar(session: Session) -> Path:
    return session.folder / f"skill-kit-{session.session_id}.snapshot.json"


def _cache(session: Session) -> dict:
    """The sidecar's content (after its tag line)."""
    return json.loads(_sidecar(session).read_bytes().partition(b"\n")[2])


def _write_cache(session: Session, cache: dict, *, sign: bool) -> None:
    """Replace the sidecar's content, tagged with the folder's key (as skillkit would) or
    with the old tag (as an agent editing the snapshot would)."""
    payload = json.dumps(cache).encode("utf-8")
    if sign:
        key = (session.folder / "skill-kit-snapshot.key").read_bytes()
        tag = sidecar_tag(key, payload)
    else:
        tag = _sidecar(session).read_bytes().partition(b"\n")[0]
    _sidecar(session).write_bytes(tag + b"\n" + payload)


def test_sidecar_is_private_and_describes_the_file(tmp_path: Path) -> None:
    session = _at_verify(tmp_path)
    sidecar = _sidecar(session)
    assert stat.S_IMODE(sidecar.stat().st_mode) == 0o600
    cache = _cache(session)
    assert cache["bytes"] == session.file.stat().st_size
    assert cache["lines"] == len(session.lines())
    assert cache["engine"]["current"] == "verify"


def test_advance_restores_the_snapshot_instead_of_replaying(tmp_path: Path) -> None:
    """Flat cost: with an intact sidecar the engine state comes from the snapshot."""
    session = _at_verify(tmp_path)
    cache = _cache(session)
    cache["engine"]["current"] = "deploy"  # a state the file's history would not give
    _write_cache(session, cache, sign=True)
    call = session.advance("--step", "deploy", "--output", '{"url": "u"}')
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["kind"] == "done"


@pytest.mark.parametrize("edit", ["skip-to-the-last-step", "other-session", "garbage"])
def test_an_edited_snapshot_is_a_session_error_and_changes_nothing(
    tmp_path: Path, edit: str
) -> None:
    """The agent can write the sidecar, but not its tag: editing the engine state to jump to
    the last step used to give 'done' straight away."""
    session = _at_verify(tmp_path)
    cache = _cache(session)
    if edit == "skip-to-the-last-step":
        cache["engine"]["current"] = "deploy"
        _write_cache(session, cache, sign=False)
    elif edit == "other-session":
        cache["sessionId"] = "f" * 32
        _write_cache(session, cache, sign=False)
    else:
        _sidecar(session).write_text("{not json")
    before = session.file.read_bytes()
    refused = session.advance("--step", "deploy", "--output", '{"url": "u"}')
    assert refused.code == 1 and refused.json["error"] == "session", refused.describe()
    assert "its snapshot" in refused.json["message"] and "was modified" in refused.json["message"]
    assert session.file.read_bytes() == before


def test_an_earlier_builds_snapshot_costs_a_rebuild_not_the_session(tmp_path: Path) -> None:
    """A sidecar tagged as earlier builds did (HMAC-SHA256, no prefix) is not checked
    against this build's tag: the run is rebuilt from the file, which is verified."""
    session = _at_verify(tmp_path)
    cache = _cache(session)
    cache["engine"]["current"] = "deploy"  # were it used, the answer below would be refused
    payload = json.dumps(cache).encode("utf-8")
    key = (session.folder / "skill-kit-snapshot.key").read_bytes()
    old_tag = hmac.new(key, payload, "sha256").hexdigest().encode("ascii")
    _sidecar(session).write_bytes(old_tag + b"\n" + payload)
    call = session.advance("--step", "verify", "--output", json.dumps(VERIFY))
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["step"] == "deploy"
    assert _sidecar(session).read_bytes().startswith(b"blake2b:")


def test_a_lost_key_costs_a_rebuild_not_the_session(tmp_path: Path) -> None:
    session = _at_verify(tmp_path)
    (session.folder / "skill-kit-snapshot.key").unlink()
    call = session.advance("--step", "verify", "--output", json.dumps(VERIFY))
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["step"] == "deploy"
    assert stat.S_IMODE((session.folder / "skill-kit-snapshot.key").stat().st_mode) == 0o600


@pytest.mark.parametrize("damage", ["missing", "stale", "other-session"])
def test_a_lost_or_stale_sidecar_is_rebuilt_from_the_file(tmp_path: Path, damage: str) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    sidecar = _sidecar(session)
    early = sidecar.read_bytes()
    session.write_output("choose", CHOOSE)
    assert session.advance().code == 0
    if damage == "missing":
        sidecar.unlink()
    elif damage == "stale":
        sidecar.write_bytes(early)  # as if the last call died after appending
    else:  # skillkit's own snapshot of another session (copied over this one's)
        cache = _cache(session)
        cache["sessionId"] = "f" * 32
        _write_cache(session, cache, sign=True)
    call = session.advance("--step", "verify", "--output", json.dumps(VERIFY))
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["step"] == "deploy"
    assert _cache(session)["lines"] == len(session.lines())


def test_rebuild_replays_without_running_actions(tmp_path: Path) -> None:
    log = tmp_path / "actions.log"
    session, first = start_session(
        AUTOPILOT, tmp_path / "s", "--params", json.dumps({"log": str(log)})
    )
    assert first["autoAdvanced"][0]["step"] == "prepare"
    session.write_output("ask", {"part": "x", "again": True})
    assert session.advance().code == 0
    _sidecar(session).unlink()
    session.write_output("ask", {"part": "y", "again": False})
    call = session.advance()
    assert call.code == 0, call.describe()
    assert log.read_text().splitlines() == ["prepare", "gate", "gate"]


def test_a_rebuild_checks_every_line_and_accepts_an_honest_file(tmp_path: Path) -> None:
    """Without the sidecar the file is run again line by line: refused outputs, superseded
    lines and agent junk do not trip it, an edited result does, naming the line."""
    session = _at_verify(tmp_path)
    session.write_output("verify", {"safe": True})
    assert session.advance().code == 0  # a validation error line
    session.write_output("verify", {"blockers": "x"})
    session.write_output("verify", VERIFY)  # supersedes the line before it
    assert session.advance().code == 0
    honest = session.file.read_bytes()
    _sidecar(session).unlink()
    edited = honest.replace(b"Execute the deployment.", b"Deploy to production now.")
    session.file.write_bytes(edited)
    refused = session.advance("--step", "deploy", "--output", '{"url": "u"}')
    assert refused.code == 1 and refused.json["error"] == "session", refused.describe()
    number = len(session.lines())
    assert f"line {number}: this result is not what the skill produces" in refused.json["message"]
    assert "'prompt'" in refused.json["message"]
    assert session.file.read_bytes() == edited and not _sidecar(session).exists()
    session.file.write_bytes(honest)
    call = session.advance("--step", "deploy", "--output", '{"url": "u"}')
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["kind"] == "done"


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="file size limits are POSIX")
def test_result_lines_the_disk_cannot_take_are_added_whole_or_not_at_all(tmp_path: Path) -> None:
    """A full disk (here: the file size limit, which stops a write part way as a full disk
    does) leaves the session file as it was, says so with a retryable error, and the same
    advance succeeds once the lines fit."""
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    session.write_output("choose", CHOOSE)
    before = session.file.read_bytes()
    # Room for part of the result line only.
    done = _with_file_size_limit(
        len(before) + 40, "advance", "--session", session.session_id, "--session-dir", str(tmp_path)
    )
    assert done.returncode == 1, done.stderr
    refused = json.loads(done.stdout)
    assert refused["error"] == "session" and refused["retry"] is True
    assert "File too large; nothing was added" in refused["message"]
    assert "Traceback" not in done.stderr
    assert session.file.read_bytes() == before
    call = session.advance()
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["step"] == "verify"
    assert [json.loads(line)["type"] for line in session.lines()] == [
        "header",
        "prompt",
        "output",
        "prompt",
    ]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="file size limits are POSIX")
def test_a_session_file_the_disk_cannot_take_is_not_left_half_written(tmp_path: Path) -> None:
    done = _with_file_size_limit(500, "start", "--session", "new", "--session-dir", str(tmp_path))
    assert done.returncode == 1, done.stderr
    refused = json.loads(done.stdout)
    assert refused["error"] == "session" and "File too large" in refused["message"]
    assert not list(tmp_path.glob("skill-kit-*.jsonl"))


def _with_file_size_limit(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """A call of deploy-check whose files cannot grow past ``limit`` bytes: a write stops
    part way, as on a full disk."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, *args]
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    return subprocess.run(
        argv, capture_output=True, text=True, cwd=ROOT, env=env, preexec_fn=limited, timeout=60
    )


@pytest.mark.parametrize("command", ["start", "cleanup"])
def test_a_relative_session_dir_in_a_deleted_folder_is_a_session_error(
    tmp_path: Path, command: str
) -> None:
    args = ["--session", "new"] if command == "start" else ["--all"]
    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, command, *args]
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    done = subprocess.run(
        [*argv, "--session-dir", "sessions"],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=in_a_deleted_folder(tmp_path),
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    refused = json.loads(done.stdout)
    assert refused["error"] == "session" and refused["retry"] is False
    assert refused["message"] == (
        "--session-dir 'sessions' is relative, and the current folder cannot be found "
        "(No such file or directory): give an absolute path"
    )
    assert done.stderr == f"skillkit: error[session]: {refused['message']}\n"

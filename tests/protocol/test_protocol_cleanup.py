"""``scripts/run cleanup``: remove a session's files, or every finished one of this skill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.protocol.support import AUTOPILOT, DEPLOY_CHECK, Session, ok, run, start_session

FINISH = [
    ("choose", {"target": "staging"}),
    ("verify", {"blockers": [], "safe": True}),
    ("deploy", {"url": "u"}),
]


def _cleanup(folder: Path, *args: str, entry: str = DEPLOY_CHECK):
    return run(entry, "cleanup", *args, "--session-dir", str(folder))


def _finished(folder: Path) -> Session:
    session, _ = start_session(DEPLOY_CHECK, folder)
    for step, output in FINISH:
        assert session.advance("--step", step, "--output", json.dumps(output)).code == 0
    return session


def _files(session: Session) -> list[Path]:
    return [session.file, session.folder / f"skill-kit-{session.session_id}.snapshot.json"]


def test_cleanup_of_one_session_removes_its_files_and_is_idempotent(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path)  # an unfinished one: asked for by id
    assert all(path.exists() for path in _files(session))
    first = ok(_cleanup(tmp_path, "--session", session.session_id))
    assert first == {
        "removed": [session.session_id],
        "files": [str(path) for path in _files(session)],
    }
    assert not any(path.exists() for path in _files(session))
    assert ok(_cleanup(tmp_path, "--session", session.session_id)) == {"removed": [], "files": []}


def test_cleanup_all_removes_only_this_skills_finished_sessions(tmp_path: Path) -> None:
    done = _finished(tmp_path)
    open_one, _ = start_session(DEPLOY_CHECK, tmp_path)
    other_skill, _ = start_session(AUTOPILOT, tmp_path, "--params", '{"log": "/dev/null"}')
    unrelated = tmp_path / "notes.txt"
    unrelated.write_text("mine")
    result = ok(_cleanup(tmp_path, "--all"))
    assert result["removed"] == [done.session_id]
    assert not done.file.exists()
    assert open_one.file.exists() and other_skill.file.exists() and unrelated.exists()
    assert (tmp_path / "skill-kit-snapshot.key").exists()
    assert ok(_cleanup(tmp_path, "--all")) == {"removed": [], "files": []}


def test_cleanup_never_reaches_outside_the_session_folder(tmp_path: Path) -> None:
    folder, outside = tmp_path / "sessions", tmp_path / "outside"
    outside.mkdir()
    victim = outside / "keep.jsonl"
    victim.write_text("{}\n")
    session, _ = start_session(DEPLOY_CHECK, folder)
    session.file.unlink()
    session.file.symlink_to(victim)  # a session file that leads out of the folder
    refused = _cleanup(folder, "--session", session.session_id)
    assert refused.code == 1 and refused.json["error"] == "session", refused.describe()
    assert "symbolic link" in refused.json["message"]
    assert victim.read_text() == "{}\n" and session.file.is_symlink()
    assert ok(_cleanup(folder, "--all")) == {"removed": [], "files": []}
    escape = _cleanup(folder, "--session", "../outside/keep")
    assert escape.code == 1 and escape.json["error"] == "session"
    assert victim.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "cleanup takes --session ID (one session) or --all, one of the two"),
        (("--all", "--session", "0" * 32), "one of the two"),
        (("--session", "new"), "not 'new'"),
    ],
)
def test_cleanup_needs_one_session_or_all(tmp_path: Path, args: tuple[str, ...], message) -> None:
    call = _cleanup(tmp_path, *args)
    assert call.code == 1 and call.json["error"] == "usage" and message in call.json["message"]


def test_cleanup_where_no_session_was_ever_started_is_nothing_to_do(tmp_path: Path) -> None:
    assert ok(_cleanup(tmp_path / "never", "--all")) == {"removed": [], "files": []}

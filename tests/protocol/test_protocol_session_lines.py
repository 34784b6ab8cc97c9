"""Lines an agent appends to a session file that cannot be used: each is reported for
itself, costs one stderr note at most when a later line supersedes it, and never breaks
the session (the next valid output line continues the run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.protocol.support import (
    AUTOPILOT,
    DEPLOY_CHECK,
    Session,
    result_of,
    run,
    start_session,
)

CHOOSE = {"target": "staging"}


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def append(session: Session, *lines: str) -> None:
    with session.file.open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("skillkit: note:")]


def assert_continues(session: Session) -> None:
    """A valid output line appended now is used: the run moves to ``verify``."""
    session.write_output("choose", CHOOSE)
    call = session.advance()
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["step"] == "verify"


def test_50000_junk_lines_before_an_output_line_make_one_note(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    append(session, *(f"junk {number}" for number in range(50_000)))
    session.write_output("choose", CHOOSE)
    call = session.advance()
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["step"] == "verify"
    assert notes(call.stderr) == [
        "skillkit: note: 50,000 lines written since the last result are superseded by line "
        "50003 (lines 3, 4, 5, 6, 7 and 49,995 more); ignoring them"
    ]
    assert len(call.stderr.splitlines()) == 1, call.stderr[:500]


def test_one_superseded_line_keeps_its_own_note(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    session.write_output("choose", {"target": "moon"})
    session.write_output("choose", CHOOSE)
    call = session.advance()
    assert call.code == 0, call.describe()
    assert notes(call.stderr) == ["skillkit: note: line 3 is superseded by line 4; ignoring it"]


def test_output_given_as_a_flag_notes_the_lines_it_supersedes(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    session.write_output("choose", {"target": "moon"})
    append(session, "junk", "")
    call = session.advance("--step", "choose", "--output", json.dumps(CHOOSE))
    assert call.code == 0, call.describe()
    assert notes(call.stderr) == [
        "skillkit: note: 2 lines written since the last result are superseded by --output, "
        "written as line 6 (lines 3, 4); ignoring them"
    ]
    flag_line = session.line(6)
    assert flag_line == {"type": "output", "step": "choose", "output": CHOOSE}
    assert result_of(session.line(int(call.stdout)))["step"] == "verify"
    # With nothing written since the last result, --output supersedes nothing: no note.
    call = session.advance("--step", "verify", "--output", json.dumps({"healthy": True}))
    assert call.code == 0, call.describe()
    assert notes(call.stderr) == []


POISON = {
    "nested 3,000 deep": (
        '{"type":"output","step":"choose","output":' + deep(3000) + "}",
        "nested more than 203 levels deep",
    ),
    "nested 100,000 deep": (deep(100_000), "nested more than 203 levels deep"),
    "a lone surrogate": (
        '{"type":"output","step":"choose","output":{"target":"\\ud800"}}',
        "a string holds a lone surrogate",
    ),
    # Python's parser reads these (the TypeScript SDK's JSON.parse does not); written
    # back into a result line they made the file unreadable to strict readers.
    "NaN": (
        '{"type":"output","step":"choose","output":{"target":NaN}}',
        "not valid JSON (NaN is not JSON)",
    ),
    "a number beyond a float": (
        '{"type":"output","step":"choose","output":{"target":-1e400}}',
        "not valid JSON (the number -1e400 is out of range (beyond ±1.8e308))",
    ),
    "an integer of 5,000 digits": (
        '{"type":"output","step":"choose","output":{"target":' + "7" * 5000 + "}}",
        "not valid JSON (a number has more than 4300 digits, more than skillkit reads)",
    ),
    "shaped like a result": (
        '{"type":"prompt","kind":"prompt","step":"x"}',
        "shaped like a prompt line, which only skillkit writes",
    ),
    "shaped like a done result": (
        '{"type":"done","kind":"done","done":true,"finalOutput":{}}',
        "shaped like a done line, which only skillkit writes",
    ),
    "shaped like a header": (
        '{"type":"header","sessionId":"x"}',
        "has type 'header'; the agent appends lines of type \"output\"",
    ),
}


@pytest.mark.parametrize("name", POISON)
def test_a_line_that_cannot_be_used_is_reported_and_the_next_valid_line_continues(
    tmp_path: Path, name: str
) -> None:
    line, problem = POISON[name]
    session, _ = start_session(DEPLOY_CHECK, tmp_path)
    before = session.file.read_bytes() + line.encode() + b"\n"
    append(session, line)
    refused = session.advance()  # answered in the file, like every error of the agent's
    assert refused.code == 0, refused.describe()
    assert int(refused.stdout) == 4
    error = result_of(session.line(4))
    assert error["error"] == "usage" and error["retry"] is True, error
    assert error["message"].startswith("line 3 of the session file "), error
    assert problem in error["message"], error
    assert session.file.read_bytes().startswith(before), "the file is only appended to"
    assert_continues(session)
    # Rebuilt from the file alone (no snapshot), the answered line is still the agent's.
    next(session.folder.glob("*.snapshot.json")).unlink()
    session.write_output("verify", {"blockers": [], "safe": True})
    call = session.advance()
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["step"] == "deploy"


def test_a_poisoned_line_does_not_break_a_skill_with_actions(tmp_path: Path) -> None:
    """A skill with actions rebuilds from history instead of running again: same rule, and
    no action runs twice."""
    log = tmp_path / "actions.log"
    session, first = start_session(
        AUTOPILOT, tmp_path / "s", "--params", json.dumps({"log": str(log)})
    )
    assert first["step"] == "ask"
    runs = log.read_text().splitlines()
    append(session, '{"type":"prompt","kind":"prompt","step":"x"}', deep(5000))
    refused = session.advance()
    assert refused.code == 0, refused.describe()
    assert notes(refused.stderr) == ["skillkit: note: line 3 is superseded by line 4; ignoring it"]
    answer = result_of(session.line(int(refused.stdout)))
    assert "line 4 of the session file is nested more than 203" in answer["message"]
    session.write_output("ask", {"part": "docs", "again": False})
    call = session.advance()
    assert call.code == 0, call.describe()
    assert result_of(session.line(int(call.stdout)))["kind"] == "prompt"
    assert log.read_text().splitlines()[: len(runs)] == runs


@pytest.mark.parametrize("mode", ["stateless", "session flag"])
def test_a_deeply_nested_output_flag_is_a_usage_error(tmp_path: Path, mode: str) -> None:
    output = json.dumps({"target": "staging"})[:-1] + ', "extra": ' + deep(3000) + "}"
    if mode == "stateless":
        call = run(
            DEPLOY_CHECK, "advance", "--step", "choose", "--output", output, "--history", "[]"
        )
        assert call.code == 1, call.describe()
        error = call.json
    else:  # in a session, answered in the file like any output that cannot be used
        session, _ = start_session(DEPLOY_CHECK, tmp_path, mode="flag")
        call = session.advance("--step", "choose", "--output", output)
        assert call.code == 0, call.describe()
        error = result_of(session.line(int(call.stdout)))
        assert error["retry"] is True
    assert error["error"] == "usage", error
    assert "--output is nested more than 200 levels deep" in error["message"]


def test_a_deeply_nested_history_is_a_usage_error() -> None:
    call = run(
        DEPLOY_CHECK, "advance", "--step", "choose", "--output", "{}", "--history", deep(3000)
    )
    assert call.code == 1 and call.json["error"] == "usage", call.describe()


def test_a_lone_surrogate_in_an_output_flag_is_a_usage_error_not_a_crash() -> None:
    """A string the schema takes as is (deploy's url) could not be printed back out."""
    history = [
        {"step": "choose", "response": CHOOSE},
        {"step": "verify", "response": {"blockers": [], "safe": True}},
    ]
    call = run(
        DEPLOY_CHECK,
        "advance",
        "--step",
        "deploy",
        "--output",
        '{"url": "\\ud800"}',
        "--history",
        json.dumps(history),
    )
    assert call.code == 1, call.describe()
    assert call.json["error"] == "usage", call.json
    assert "lone surrogate" in call.json["message"]


@pytest.mark.parametrize(
    ("number", "problem"),
    [
        ("1e400", "the number 1e400 is out of range (beyond ±1.8e308)"),
        ("Infinity", "Infinity is not JSON"),
        ("9" * 4301, "a number has more than 4300 digits, more than skillkit reads"),
    ],
    ids=["1e400", "Infinity", "4301 digits"],
)
def test_a_number_no_json_reader_takes_is_a_usage_error(number: str, problem: str) -> None:
    """``1e400`` was read as infinity, accepted for a float and printed back as
    ``Infinity``: a result line no strict JSON reader (nor the next call's --history)
    takes."""
    call = run(DEPLOY_CHECK, "advance", "--step", "choose", "--output", '{"target":' + number + "}")
    assert call.code == 1, call.describe()
    assert call.json["error"] == "usage" and call.json["retry"] is True, call.json
    assert call.json["message"] == f"--output is not valid JSON: {problem}"
    assert "Infinity" not in call.stdout.replace(problem, "")


TREE_SKILL = """\
from pydantic import BaseModel

from skillkit_core import skill, terminal


class Node(BaseModel):
    name: str
    children: list["Node"] = []


tree = (
    skill(name="tree", entry="one", description="Takes a tree as its answer.")
    .step("one", prompt="Give a tree.", response=Node, next="two")
    .step("two", prompt="Give another.", response=Node, next=terminal)
    .build()
)
"""


def _tree(levels: int) -> dict:
    """A ``Node`` whose JSON is nested ``levels`` deep (an object and a list per node)."""
    node: dict = {"name": "leaf"}
    for _ in range(levels // 2 - 1):
        node = {"name": "n", "children": [node]}
    return node


def test_an_answer_at_the_nesting_limit_can_be_replayed(tmp_path: Path) -> None:
    # Accepted at 200 levels, it came back as history 202 deep (refused, with no way to
    # comply) and as session lines 201 and 202 deep, which a rebuild without the snapshot
    # took for unusable agent lines: the run silently went back a step.
    entry = tmp_path / "tree.py"
    entry.write_text(TREE_SKILL)
    answer = json.dumps(_tree(200))
    assert len(answer) and answer.count("[") == 99  # 200 levels: 100 objects, 99 lists
    first = run(str(entry), "advance", "--step", "one", "--output", answer, "--history", "[]")
    assert first.code == 0, first.describe()
    history = json.dumps([first.json["completed"]])
    second = run(str(entry), "advance", "--step", "two", "--output", answer, "--history", history)
    assert second.code == 0 and second.json["kind"] == "done", second.describe()

    session, _ = start_session(str(entry), tmp_path / "s")
    call = session.advance("--step", "one", "--output", answer)
    assert result_of(session.line(int(call.stdout)))["step"] == "two"
    (session.folder / f"skill-kit-{session.session_id}.snapshot.json").unlink()
    call = session.advance("--step", "two", "--output", answer)
    assert call.code == 0 and notes(call.stderr) == [], call.describe()
    assert result_of(session.line(int(call.stdout)))["kind"] == "done"

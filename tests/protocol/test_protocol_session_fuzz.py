"""A bounded property test of session files: whatever an agent appends (junk, deep
nesting, lines shaped like results or headers, outputs for the wrong step, invalid
outputs), a valid output line appended next always advances the run, skillkit only ever
appends to the file, and no call answers with an internal error.

Calls go through the protocol's entry (``runner.main``) in this process, the code a
built ``scripts/run`` runs, so that many examples stay fast.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillkit_core.loader import load_entry
from skillkit_core.protocol.runner import main
from tests.protocol.support import DEPLOY_CHECK

DEFINITION = load_entry(DEPLOY_CHECK)
VALID = {
    "choose": {"target": "staging"},
    "verify": {"blockers": [], "safe": True},
    "deploy": {"url": "https://staging.example.com"},
    "abort": {},
}
RUNS = itertools.count()


def call(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(DEFINITION, list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def line_at(file: Path, number: str) -> dict:
    """Line ``number`` (1-based) as skillkit counts lines: split on newlines only."""
    return json.loads(file.read_bytes().split(b"\n")[int(number) - 1])


def _line(data: object) -> str:
    return json.dumps(data)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_junk = st.one_of(
    st.text(max_size=40).map(lambda text: text.replace("\n", " ").replace("\r", " ")),
    st.integers(min_value=150, max_value=20_000).map(lambda depth: "[" * depth + "]" * depth),
    st.sampled_from(["prompt", "done", "error"]).map(
        lambda kind: _line({"type": kind, "kind": kind, "step": "verify"})
    ),
    st.just(_line({"type": "header", "sessionId": "0" * 32})),
    st.builds(
        lambda step, output: _line({"type": "output", "step": step, "output": output}),
        st.sampled_from(["choose", "verify", "deploy", "nope", "sub/x"]),
        _json,
    ),
    _json.map(_line),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rounds=st.lists(st.lists(_junk, max_size=4), min_size=1, max_size=2), advance_junk=st.booleans()
)
def test_a_valid_output_line_always_continues_whatever_came_before(
    tmp_path: Path, rounds: list[list[str]], advance_junk: bool
) -> None:
    folder = tmp_path / f"run-{next(RUNS)}"
    code, out, err = call("start", "--session", "new", "--session-dir", str(folder))
    assert code == 0, err
    pointer = json.loads(out)
    file, session = Path(pointer["file"]), pointer["sessionId"]
    advance = ("advance", "--session", session, "--session-dir", str(folder))
    step = "choose"
    for junk in rounds:
        before = file.read_bytes()
        with file.open("a", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in junk))
        if advance_junk and junk:
            code, out, err = call(*advance)
            assert '"internal"' not in out, out
            assert file.read_bytes().startswith(before), "the file is only appended to"
            if code == 0:  # the answer is a line of the file: read where the run is now
                result = line_at(file, out)
                if result["kind"] == "done":
                    return
                if result["kind"] == "prompt":  # the junk held a usable line
                    step = result["step"]
                else:  # an error answers the junk and changes nothing
                    assert result["kind"] == "error" and result["retry"] is True, result
        before = file.read_bytes()
        with file.open("a", encoding="utf-8") as handle:
            handle.write(_line({"type": "output", "step": step, "output": VALID[step]}) + "\n")
        code, out, err = call(*advance)
        assert code == 0, (out, err)
        assert file.read_bytes().startswith(before), "the file is only appended to"
        assert len([n for n in err.splitlines() if n.startswith("skillkit: note:")]) <= 1, err
        result = line_at(file, out)
        if result["kind"] == "done":
            return
        assert result["kind"] == "prompt", result
        step = result["step"]

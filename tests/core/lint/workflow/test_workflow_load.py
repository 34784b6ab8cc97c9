"""Loading skill modules for ``check``: a separate process, a time limit, never a crash."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from skillkit_core.lint.load_worker import LoadWorker, split_entry
from tests.core.lint.workflow.support import FIXTURES, SYNTAX_ERROR, findings

LOAD_ERRORS = FIXTURES / "load_errors"


@pytest.fixture(scope="module")
def worker() -> Iterator[LoadWorker]:
    with LoadWorker(timeout=2.0) as shared:
        yield shared


def test_a_module_that_raises_is_a_load_error_at_its_line(worker: LoadWorker) -> None:
    (error,) = worker.check(LOAD_ERRORS / "raises.py").diagnostics
    assert (error.rule, error.severity) == ("load-error", "error")
    assert error.message == "importing the module raised KeyError: 'zone'"
    assert error.range is not None and error.range.line + 1 == 9
    text = (LOAD_ERRORS / "raises.py").read_text().splitlines()[8]
    assert text[error.range.column : error.range.end_column] == "SETTINGS['zone']"


def test_syntax_errors_and_sys_exit_are_load_errors(worker: LoadWorker, tmp_path) -> None:
    (tmp_path / "syntax.py").write_text(SYNTAX_ERROR)
    (syntax,) = worker.check(tmp_path / "syntax.py").diagnostics
    assert syntax.message == "the module does not compile: SyntaxError: '(' was never closed"
    assert findings([syntax]) == [("load-error", "error", 3)]
    (exits,) = worker.check(LOAD_ERRORS / "exits.py").diagnostics
    assert exits.message == "the module called sys.exit(3) while being imported"
    (refused,) = worker.check(LOAD_ERRORS / "bad_step.py").diagnostics
    assert refused.message.endswith("max_visits must be a positive integer; got 0")
    assert "raised in" not in refused.message  # our own errors already say where


def test_a_module_that_never_finishes_is_stopped_and_the_line_named(
    worker: LoadWorker,
) -> None:
    started = time.monotonic()
    (error,) = worker.check(LOAD_ERRORS / "hangs.py").diagnostics
    assert time.monotonic() - started < 2.0 + 4.0
    assert error.message.startswith("importing or checking the module did not finish within 2 s")
    assert error.message.endswith("it was running line 8")
    assert findings([error]) == [("load-error", "error", 8)]
    # the next entry gets a fresh worker and works
    assert findings(worker.check(FIXTURES / "graph_good.py").diagnostics) == []


def test_a_module_that_kills_the_process_is_reported_and_checking_goes_on(
    worker: LoadWorker,
) -> None:
    (error,) = worker.check(LOAD_ERRORS / "crashes.py").diagnostics
    assert error.message == "the module ended the checking process (exit status 7)"
    # A SIGKILL of its own (or out of memory) was said to be a time-out, at once.
    (killed,) = worker.check(LOAD_ERRORS / "kills_itself.py").diagnostics
    assert killed.message == "the module ended the checking process (killed by signal SIGKILL)"
    after = worker.check(FIXTURES / "graph_bad.py").diagnostics
    assert [d.rule for d in after][:2] == ["unguarded-store-access", "unreachable-step"]


def test_prints_and_stdin_reads_do_not_disturb_the_protocol(worker: LoadWorker) -> None:
    report = worker.check(LOAD_ERRORS / "noisy.py")
    assert findings(report.diagnostics) == [("no-host-tool-names", "error", 13)]
    assert report.skills == ("noisy",)


def test_attr_entries_check_one_definition_or_say_why_not(worker: LoadWorker) -> None:
    assert worker.check(LOAD_ERRORS / "noisy.py", "noisy").skills == ("noisy",)
    (unbuilt,) = worker.check(LOAD_ERRORS / "noisy.py", "unbuilt").diagnostics
    assert unbuilt.message == (
        "'unbuilt' is a SkillBuilder, not a built skill or reference (call .build() on it)"
    )
    (missing,) = worker.check(LOAD_ERRORS / "noisy.py", "nope").diagnostics
    assert missing.message == "the module has no attribute 'nope'"


def test_a_file_without_a_built_skill_says_what_to_build(worker: LoadWorker, tmp_path) -> None:
    unbuilt = tmp_path / "unbuilt.py"
    unbuilt.write_text(
        "from skillkit_core import skill, terminal\n"
        "draft = skill(name='draft', entry='a').step('a', prompt='A.', next=terminal)\n"
    )
    (error,) = worker.check(unbuilt).diagnostics
    assert error.rule == "load-error"
    assert error.message == (
        "the module defines no built skill or reference at top level; draft still need .build()"
    )
    reusable = tmp_path / "reusable.py"
    reusable.write_text(
        "from skillkit_core import PARENT, module\n"
        "review = module(name='review', entry='look')"
        ".step('look', prompt='Look.', next=PARENT).build()\n"
    )
    assert worker.check(reusable).diagnostics == []


def test_a_file_that_cannot_be_read_is_a_load_error(worker: LoadWorker, tmp_path) -> None:
    (error,) = worker.check(tmp_path / "gone.py").diagnostics
    assert error.rule == "load-error" and error.message.startswith("cannot read the module")


def test_composite_subskills_are_not_checked_twice(worker: LoadWorker) -> None:
    report = worker.check(FIXTURES / "composite_good.py")
    assert report.skills == ("desk",)


def test_one_shot_command_prints_json() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "skillkit_core.lint.load_worker",
            str(FIXTURES / "schema_bad.py"),
            f"{LOAD_ERRORS / 'noisy.py'}:noisy",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    results = json.loads(done.stdout)["results"]
    assert [r["skills"] for r in results] == [["planner"], ["noisy"]]
    rules = [d["rule"] for d in results[0]["diagnostics"]]
    assert rules == ["schema-not-serializable", "schema-not-serializable"]
    assert results[0]["diagnostics"][0]["range"] == [27, 77, 27, 83]


def test_entries_split_on_a_trailing_attribute() -> None:
    assert split_entry("a/b.py:flow") == ("a/b.py", "flow")
    assert split_entry("a/b.py") == ("a/b.py", None)
    assert split_entry("C:/x/b.py") == ("C:/x/b.py", None)

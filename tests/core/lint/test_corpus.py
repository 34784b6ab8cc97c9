"""skillkit check on real public skills (``../shared/corpus``): every finding is one a
person judged true by opening the file (``corpus_expectations.txt``); a new or vanished
finding fails with a diff."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from skillkit_core.lint.check_paths import check_paths

CORPUS = Path(__file__).parents[3].parent / "shared" / "corpus"
EXPECTATIONS = Path(__file__).with_name("corpus_expectations.txt")

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="no ../shared/corpus here")


def _expected() -> list[str]:
    lines = EXPECTATIONS.read_text(encoding="utf-8").splitlines()
    return sorted(line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip())


def _found() -> list[str]:
    run = check_paths([str(CORPUS)])
    found = []
    for diagnostic in run.diagnostics:
        path = Path(diagnostic.file or "").resolve().relative_to(CORPUS.resolve())
        line = diagnostic.range.line + 1 if diagnostic.range else 0
        found.append(f"{diagnostic.rule} {diagnostic.severity} {path.as_posix()}:{line}")
    return sorted(found)


def test_every_finding_on_the_corpus_was_judged_true() -> None:
    expected, found = _expected(), _found()
    diff = "\n".join(difflib.unified_diff(expected, found, "expected", "found", lineterm=""))
    assert found == expected, "findings on the corpus changed:\n" + diff


def test_the_corpus_facts_its_readme_lists_are_respected() -> None:
    found = "\n".join(_found())
    # AWS's documentation key is no secret; user-project paths are not the skill's files;
    # browser JavaScript and a script started with 'node server.cjs' need no '#!'.
    assert "secret-literal" not in found
    assert "missing-file-reference" not in found
    assert "brainstorming/scripts/helper.js" not in found
    assert "brainstorming/scripts/server.cjs" not in found
    # Claude Code substitutes the $1 of requesting-code-review's awk program.
    assert (
        "argument-in-code warning obra+superpowers/skills/requesting-code-review/SKILL.md:55"
        in found
    )

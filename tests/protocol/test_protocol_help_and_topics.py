"""``--help`` for every subcommand (stdout, newline-terminated, exit 0), and ``topics`` /
``topic NAME``."""

from __future__ import annotations

import pytest

from tests.protocol.support import DEPLOY_CHECK, HANDBOOK, HELP_DESK, TRIAGE, run


@pytest.mark.parametrize(
    ("entry", "args", "expected"),
    [
        (TRIAGE, ["--help"], "subcommands:"),
        (TRIAGE, ["-h"], "subcommands:"),
        (TRIAGE, ["help"], "subcommands:"),
        (TRIAGE, ["start", "--help"], "usage: scripts/run start"),
        (TRIAGE, ["advance", "--help"], "usage: scripts/run advance"),
        (TRIAGE, ["help", "advance"], "usage: scripts/run advance"),
        (TRIAGE, ["mcp", "--help"], "usage: scripts/run mcp"),
        (TRIAGE, ["topics", "--help"], "usage: scripts/run topics"),
        (TRIAGE, ["topic", "--help"], "usage: scripts/run topic NAME"),
        (TRIAGE, ["fix", "--help"], "usage: scripts/run fix start"),
        (TRIAGE, ["fix", "advance", "--help"], "usage: scripts/run fix advance"),
        (TRIAGE, ["advance", "--step", "x", "--bogus", "--help"], "usage: scripts/run advance"),
        (HANDBOOK, ["--help"], "reference skill"),
        (DEPLOY_CHECK, ["--help"], "steps: choose, verify, deploy, abort"),
    ],
)
def test_help_goes_to_stdout_with_a_final_newline_and_exit_0(
    entry: str, args: list[str], expected: str
) -> None:
    call = run(entry, *args)
    assert call.code == 0, call.describe()
    assert call.stderr == ""
    assert expected in call.stdout and call.stdout.endswith("\n")


def test_overview_lists_subskills_and_topics() -> None:
    text = run(TRIAGE, "--help").stdout
    assert "fix [start|advance]" in text and "notify [start|advance]" in text
    assert "fix/: investigate, check, patch, close" in text
    assert "policy: Release policy" in text


def test_skillkit_run_passes_help_through() -> None:
    call = run(TRIAGE, "advance", "--help", via="skillkit")
    assert call.code == 0 and "usage: scripts/run advance" in call.stdout


def test_topics_lists_one_name_and_label_per_line() -> None:
    assert run(HELP_DESK, "topics").stdout == (
        "rate-limits: API rate limits\nauth: Authentication and tokens\n"
    )
    assert run(HANDBOOK, "topics").stdout == "style: Writing style\nglossary: Terms we use\n"


@pytest.mark.parametrize(
    ("entry", "name", "expected"),
    [
        (TRIAGE, "faq", 'Q: "Is it down?" A: check status.\n'),
        (TRIAGE, "policy", "Patches ship on Tuesdays. Hotfixes need two reviewers.\n"),
        (HANDBOOK, "style", "Write short sentences. Prefer the active voice.\n"),
        (HANDBOOK, "glossary", "skill: a folder with a SKILL.md\n"),
    ],
)
def test_topic_prints_the_raw_content(entry: str, name: str, expected: str) -> None:
    call = run(entry, "topic", name)
    assert call.code == 0, call.describe()
    assert call.stdout == expected


def test_topic_content_comes_from_the_built_folder(tmp_path) -> None:
    (tmp_path / "references").mkdir()
    (tmp_path / "references" / "style.md").write_text("Built style.\n")
    call = run(HANDBOOK, "topic", "style", env={"SKILL_DIR": str(tmp_path)})
    assert call.stdout == "Built style.\n"


def test_unreadable_topic_is_an_error_result(tmp_path) -> None:
    call = run(HANDBOOK, "topic", "style", env={"SKILL_DIR": str(tmp_path)})
    assert call.code == 1
    # As a step prompt's: a runtime error (the protocol has no "refs" kind).
    assert call.json["error"] == "runtime" and "style.md" in call.json["message"]

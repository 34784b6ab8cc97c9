"""A SKILL.md line of 30,000 path mentions is checked in one pass over its wording."""

from __future__ import annotations

from pathlib import Path

from skillkit_core.lint.check_folder import check_skill_folder


def test_a_line_of_thirty_thousand_mentions_is_checked(tmp_path: Path) -> None:
    """missing-file-reference reads each line's wording once, not once per mention (a
    line of 30,000 mentions took minutes); an 'e.g.' before a mention still excuses it."""
    skill = tmp_path / "many"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: many\ndescription: Many. Use when testing.\n---\n\n"
        + " references/a.md" * 30_000
        + "\n\nNot these: references/b.md, e.g. references/c.md.\n",
        encoding="utf-8",
    )
    findings = [f for f in check_skill_folder(str(skill)) if f.rule == "missing-file-reference"]
    named = {f.message.split("'")[1] for f in findings}
    assert named == {"references/a.md", "references/b.md"}
    assert len(findings) == 30_001

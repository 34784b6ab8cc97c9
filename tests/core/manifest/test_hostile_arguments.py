"""Argument placeholders with absurdly long indexes: read without error (Python refuses
to convert more than 4,300 digits), and the rules reading them report no internal
error."""

from __future__ import annotations

from pathlib import Path

from skillkit_core.lint.check_folder import check_skill_folder
from skillkit_core.manifest.arguments import INDEX, MAX_INDEX_DIGITS, placeholders

DIGITS = "9" * 5000


def test_a_five_thousand_digit_index_is_read() -> None:
    found = placeholders(f"$ARGUMENTS[{DIGITS}] and ${DIGITS} and $12", [])
    assert [p.kind for p in found] == [INDEX, INDEX, INDEX]
    assert found[0].index == found[1].index == 10**MAX_INDEX_DIGITS - 1
    assert found[2].index == 12


def test_rules_report_long_indexes_without_internal_errors(tmp_path: Path) -> None:
    skill = tmp_path / "big"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: big\ndescription: Big. Use when testing.\narguments:\n  - a\n---\n\n"
        f"Use ${DIGITS} and $ARGUMENTS[{DIGITS}].\n\n```sh\necho ${DIGITS}\n```\n",
        encoding="utf-8",
    )
    findings = check_skill_folder(str(skill))
    assert not [f for f in findings if "internal error" in f.message], findings
    assert "undeclared-argument" in {f.rule for f in findings}

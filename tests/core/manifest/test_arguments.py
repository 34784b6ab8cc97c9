"""The placeholders Claude Code substitutes in a skill's body."""

from __future__ import annotations

from skillkit_core.manifest.arguments import ALL, INDEX, NAME, placeholder_at, placeholders


def test_every_form_with_its_argument_index() -> None:
    line = "Read $file (pages $pages), $0 and $ARGUMENTS[1]; all: $ARGUMENTS. $other $HOME"
    found = [(p.written, p.kind, p.index, p.name) for p in placeholders(line, ["file", "pages"])]
    assert found == [
        ("$file", NAME, 0, "file"),
        ("$pages", NAME, 1, "pages"),
        ("$0", INDEX, 0, None),
        ("$ARGUMENTS[1]", INDEX, 1, None),
        ("$ARGUMENTS", ALL, None, None),
        ("$other", NAME, None, "other"),
    ]


def test_forms_claude_code_leaves_alone_are_not_placeholders() -> None:
    assert placeholders("${1} $(1) ${file} $1x $file[0] costs $", ["file"]) == []


def test_the_placeholder_under_a_column_includes_its_end() -> None:
    line = "x $ARGUMENTS[12] y"
    assert placeholder_at(line, 2, []).index == 12
    assert placeholder_at(line, 16, []).written == "$ARGUMENTS[12]"
    assert placeholder_at(line, 0, []) is None

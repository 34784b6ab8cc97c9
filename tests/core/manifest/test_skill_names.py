"""Finding the places a text names skills: invocations, paths, plain mentions."""

from __future__ import annotations

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.manifest.skill_names import (
    PATH,
    SLASH,
    WORD,
    Misspelt,
    find_misspelt_invocations,
    find_skill_names,
)

NAMES = ("pdf-tools", "report-writer", "review")


def found(text: str, **options: bool) -> list[tuple[str, str, SourceRange]]:
    return [(m.name, m.kind, m.range) for m in find_skill_names(text, NAMES, **options)]


def test_slash_invocations_in_prose_and_code_spans() -> None:
    text = "hand it to `/report-writer`, or\n/pdf-tools first (/review too)"
    assert found(text) == [
        ("report-writer", SLASH, SourceRange(0, 13, 0, 26)),
        ("pdf-tools", SLASH, SourceRange(1, 1, 1, 10)),
        ("review", SLASH, SourceRange(1, 19, 1, 25)),
    ]


def test_paths_through_a_skill_folder() -> None:
    text = "see [x](../../pdf-tools/SKILL.md) and report-writer/references/a.md"
    assert found(text) == [
        ("pdf-tools", PATH, SourceRange(0, 14, 0, 23)),
        ("report-writer", PATH, SourceRange(0, 38, 0, 51)),
    ]


def test_plain_words_only_for_distinctive_names() -> None:
    text = "Use after pdf-tools ran; review the pdf-tools. output"
    assert found(text) == [
        ("pdf-tools", WORD, SourceRange(0, 10, 0, 19)),
        ("pdf-tools", WORD, SourceRange(0, 36, 0, 45)),
    ]
    assert ("review", WORD, SourceRange(0, 25, 0, 31)) in found(text, plain_words=True)


def test_longer_names_files_urls_and_parts_of_words_are_not_mentions() -> None:
    text = (
        "pdf-tools-extra, pdf-tools.md, my-pdf-tools, x.pdf-tools,\r\n"
        "https://example.com/pdf-tools/ and pdf_tools"
    )
    assert found(text) == []


def test_line_numbers_follow_every_line_break() -> None:
    assert found("a\rb\r\n/review\n") == [("review", SLASH, SourceRange(2, 1, 2, 7))]
    assert find_skill_names("", NAMES) == [] and find_skill_names("x", ()) == []


def test_misspelt_invocations_are_near_misses_of_a_skill_name() -> None:
    text = (
        "Use /pdf-tool, then `/reprot-writer` and /report-writer.\n"
        "Not /tmp, /help, cd /usr/bin, https://x.io/pdf-tool, a/pdf-tool, /pdf-tools:run,"
        " /pdf-tool.md or /pdf-toolbox-extra-long.\n"
    )
    names = ["pdf-tools", "report-writer", "release-notes"]
    assert find_misspelt_invocations(text, names) == [
        Misspelt("pdf-tool", SourceRange(0, 5, 0, 13), "pdf-tools"),
        Misspelt("reprot-writer", SourceRange(0, 22, 0, 35), "report-writer"),
    ]
    assert find_misspelt_invocations(text, []) == []

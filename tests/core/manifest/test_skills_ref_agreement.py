"""Our spec-level verdict (the 'strict spec validator' host verdict) agrees with the
reference validator ``skills-ref`` on a generated corpus of valid and invalid skills.

Differences we intend are listed in ``INTENDED_DIFFERENCES`` with the reason; the test
checks that they still differ, so the list never goes stale.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from skillkit_core.lint.check_folder import check_folder

skills_ref = pytest.importorskip("skills_ref")

DESCRIPTION = "Extract text from PDF files. Use when the user sends a PDF."


def manifest(name: str = "pdf-tools", extra: str = "", description: str = DESCRIPTION) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# Body\n"


def compatibility(length: int) -> str:
    return f"compatibility: {'c' * length}\n"


# (case id, folder name, {file: text or bytes})
CORPUS: list[tuple[str, str, dict[str, str | bytes]]] = [
    # --- valid
    ("basic", "pdf-tools", {"SKILL.md": manifest()}),
    (
        "all-spec-keys",
        "pdf-tools",
        {
            "SKILL.md": manifest(
                extra="license: MIT\ncompatibility: Needs Python 3.11\nmetadata:\n"
                '  author: Ada\n  version: "1.0"\nallowed-tools: Read Grep\n'
            )
        },
    ),
    ("unicode-lowercase-name", "données", {"SKILL.md": manifest("données")}),
    ("caseless-script-name", "日本語", {"SKILL.md": manifest("日本語")}),
    ("nfkc-fullwidth-folder", "ｐｄｆ", {"SKILL.md": manifest("pdf")}),
    (
        "nfd-folder-nfc-name",
        unicodedata.normalize("NFD", "café"),
        {"SKILL.md": manifest(unicodedata.normalize("NFC", "café"))},
    ),
    ("description-1024", "pdf-tools", {"SKILL.md": manifest(description="d" * 1024)}),
    ("name-64", "a" * 64, {"SKILL.md": manifest("a" * 64)}),
    ("compatibility-500", "pdf-tools", {"SKILL.md": manifest(extra=compatibility(500))}),
    (
        "folded-description",
        "pdf-tools",
        {"SKILL.md": "---\nname: pdf-tools\ndescription: >\n  Extract text.\n  Use it.\n---\n"},
    ),
    (
        "literal-description",
        "pdf-tools",
        {"SKILL.md": "---\nname: pdf-tools\ndescription: |\n  Extract text.\n  Use it.\n---\n"},
    ),
    ("crlf", "pdf-tools", {"SKILL.md": manifest().replace("\n", "\r\n")}),
    ("quoted-name", "pdf-tools", {"SKILL.md": manifest('"pdf-tools"')}),
    ("yaml-comments", "pdf-tools", {"SKILL.md": manifest(extra="# note\nlicense: MIT # why\n")}),
    ("lowercase-skill-md", "pdf-tools", {"skill.md": manifest()}),
    (
        "beyond-spec-problems-only",
        "pdf-tools",
        {"SKILL.md": manifest() + "See [missing](references/nope.md).\n" + "x\n" * 600},
    ),
    ("digits-in-name", "pdf2text-v3", {"SKILL.md": manifest("pdf2text-v3")}),
    ("one-letter-name", "a", {"SKILL.md": manifest("a")}),
    ("emoji-description", "pdf-tools", {"SKILL.md": manifest(description="PDFs 📄 made easy")}),
    ("numeric-name", "123", {"SKILL.md": manifest("123")}),
    ("yes-description", "pdf-tools", {"SKILL.md": manifest(description="yes")}),
    ("delimiter-trailing-space", "pdf-tools", {"SKILL.md": "--- " + manifest()[3:]}),
    # --- invalid
    ("no-skill-md", "pdf-tools", {"README.md": "# nothing\n"}),
    ("empty-file", "pdf-tools", {"SKILL.md": ""}),
    ("no-frontmatter", "pdf-tools", {"SKILL.md": "# PDF tools\n\nname: pdf-tools\n"}),
    ("unclosed-frontmatter", "pdf-tools", {"SKILL.md": "---\nname: pdf-tools\ndescription: d\n"}),
    ("unquoted-colon", "pdf-tools", {"SKILL.md": manifest(description="Use when: PDFs")}),
    ("frontmatter-list", "pdf-tools", {"SKILL.md": "---\n- pdf-tools\n---\n"}),
    ("empty-frontmatter", "pdf-tools", {"SKILL.md": "---\n---\nbody\n"}),
    ("missing-name", "pdf-tools", {"SKILL.md": f"---\ndescription: {DESCRIPTION}\n---\n"}),
    ("missing-description", "pdf-tools", {"SKILL.md": "---\nname: pdf-tools\n---\n"}),
    ("empty-description", "pdf-tools", {"SKILL.md": manifest(description='""')}),
    ("uppercase-name", "PDF-Tools", {"SKILL.md": manifest("PDF-Tools")}),
    ("unicode-uppercase-name", "Données", {"SKILL.md": manifest("Données")}),
    ("underscore-name", "pdf_tools", {"SKILL.md": manifest("pdf_tools")}),
    ("space-in-name", "pdf tools", {"SKILL.md": manifest('"pdf tools"')}),
    ("dot-in-name", "pdf.tools", {"SKILL.md": manifest("pdf.tools")}),
    ("leading-hyphen", "-pdf", {"SKILL.md": manifest('"-pdf"')}),
    ("trailing-hyphen", "pdf-", {"SKILL.md": manifest("pdf-")}),
    ("double-hyphen", "pdf--tools", {"SKILL.md": manifest("pdf--tools")}),
    ("name-65", "a" * 65, {"SKILL.md": manifest("a" * 65)}),
    ("name-folder-mismatch", "pdf", {"SKILL.md": manifest("pdf-tools")}),
    ("description-1025", "pdf-tools", {"SKILL.md": manifest(description="d" * 1025)}),
    ("compatibility-501", "pdf-tools", {"SKILL.md": manifest(extra=compatibility(501))}),
    ("unknown-key", "pdf-tools", {"SKILL.md": manifest(extra="foo: bar\n")}),
    ("claude-code-key", "pdf-tools", {"SKILL.md": manifest(extra="when_to_use: PDFs\n")}),
    ("flow-metadata", "pdf-tools", {"SKILL.md": manifest(extra="metadata: {author: Ada}\n")}),
    ("flow-allowed-tools", "pdf-tools", {"SKILL.md": manifest(extra="allowed-tools: [Read]\n")}),
    ("duplicate-key", "pdf-tools", {"SKILL.md": manifest(extra="license: MIT\nlicense: BSD\n")}),
    (
        "anchor-alias",
        "pdf-tools",
        {"SKILL.md": manifest(extra="license: &l MIT\nmetadata:\n  l: *l\n")},
    ),
    ("explicit-tag", "pdf-tools", {"SKILL.md": manifest("!!str pdf-tools")}),
    ("byte-order-mark", "pdf-tools", {"SKILL.md": "\ufeff" + manifest()}),
    # --- from a probe comparing the two (2026-11-29)
    ("folder-trailing-space", "pdf-tools ", {"SKILL.md": manifest()}),
    ("folder-leading-space", " pdf-tools", {"SKILL.md": manifest()}),
    ("tab-in-plain-value", "pdf-tools", {"SKILL.md": manifest(description="Reads.\tUse it.")}),
    ("tab-after-colon", "pdf-tools", {"SKILL.md": manifest(extra="license:\tMIT\n")}),
    ("tab-before-comment", "pdf-tools", {"SKILL.md": manifest(extra="license: MIT\t# c\n")}),
    ("trailing-tab", "pdf-tools", {"SKILL.md": manifest(extra="license: MIT\t\n")}),
    ("tab-in-quotes", "pdf-tools", {"SKILL.md": manifest(description='"Reads.\tUse it."')}),
    ("tab-in-block", "pdf-tools", {"SKILL.md": manifest(description="|\n  Reads.\tUse it.")}),
    ("tab-in-comment", "pdf-tools", {"SKILL.md": manifest(extra="# a\tcomment\n")}),
    ("impossible-date", "pdf-tools", {"SKILL.md": manifest(extra="metadata:\n  d: 2025-02-29\n")}),
    ("line-separator", "pdf-tools", {"SKILL.md": manifest(description="Reads.\u2028Use it.")}),
    ("next-line", "pdf-tools", {"SKILL.md": manifest(description="Reads.\x85Use it.")}),
    (
        "key-of-1025",
        "pdf-tools",
        {"SKILL.md": manifest(extra="metadata:\n  " + "k" * 1025 + ": v\n")},
    ),
    (
        "merge-key-in-metadata",
        "pdf-tools",
        {"SKILL.md": manifest(extra='metadata:\n  <<:\n    author: Ada\n  version: "1"\n')},
    ),
    # --- intended differences (see INTENDED_DIFFERENCES)
    ("empty-compatibility", "pdf-tools", {"SKILL.md": manifest(extra='compatibility: ""\n')}),
    ("metadata-not-a-map", "pdf-tools", {"SKILL.md": manifest(extra="metadata: just text\n")}),
    (
        "metadata-nested-map",
        "pdf-tools",
        {"SKILL.md": manifest(extra="metadata:\n  author:\n    name: Ada\n")},
    ),
]

INTENDED_DIFFERENCES = {
    "empty-compatibility": (
        "the specification gives compatibility 1-500 characters when present; skills-ref "
        "only checks the upper bound"
    ),
    "metadata-not-a-map": (
        "the specification defines metadata as a string-to-string map; skills-ref does not "
        "check metadata's type"
    ),
    "metadata-nested-map": (
        "nested values break the string-to-string map; skills-ref turns them into their "
        "Python repr and accepts them"
    ),
}


def build(tmp_path: Path, folder: str, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / folder
    root.mkdir(parents=True)
    for name, content in files.items():
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    return root


def test_corpus_is_large_and_mixed() -> None:
    assert len(CORPUS) >= 40
    assert len({case for case, _, _ in CORPUS}) == len(CORPUS)
    assert set(INTENDED_DIFFERENCES) <= {case for case, _, _ in CORPUS}


@pytest.mark.parametrize(("case", "folder", "files"), CORPUS, ids=[c for c, _, _ in CORPUS])
def test_spec_verdict_matches_reference_validator(
    case: str, folder: str, files: dict[str, str | bytes], tmp_path: Path
) -> None:
    root = build(tmp_path, folder, files)
    theirs = skills_ref.validate(root)
    ours = check_folder(root).hosts[0]
    assert ours.consumer.id == "spec"
    if case in INTENDED_DIFFERENCES:
        assert ours.loads != (not theirs), f"{case} no longer differs; drop it from the list"
    else:
        assert ours.loads == (not theirs), (
            f"{case}: skills-ref says {theirs or 'valid'}; we say "
            f"{'valid' if ours.loads else list(ours.reasons)}"
        )


def test_corpus_has_both_verdicts(tmp_path: Path) -> None:
    verdicts = set()
    for index, (_, folder, files) in enumerate(CORPUS):
        root = build(tmp_path / str(index), folder, files)
        verdicts.add(not skills_ref.validate(root))
    assert verdicts == {True, False}

"""The plain-frontmatter reader agrees with PyYAML on every text it accepts.

``parse_skill_md`` reads the common frontmatter shape without PyYAML
(:mod:`skillkit_core.manifest.plain_yaml`); here each text is parsed with and without that
shortcut and the two results must be equal in everything: values, spans, styles, tags,
problems. The texts are the real skills of ``../shared/corpus``, this repository's own
SKILL.md files, and generated frontmatters built from pieces near the edge of the shape.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillkit_core.manifest import parse, parse_skill_md, plain_yaml

ROOT = Path(__file__).parents[3]
CORPUS = ROOT.parent / "shared" / "corpus"
SKILL_FILES = sorted(
    path
    for base in (CORPUS, ROOT / "examples", ROOT / "tests")
    if base.is_dir()
    for path in base.rglob("SKILL.md")
)


def through_pyyaml(text: str) -> parse.ParsedSkillMd:
    """``parse_skill_md`` with the plain reader turned off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plain_yaml, "read_plain_frontmatter", lambda *_: None)
        return parse_skill_md(text, "x/SKILL.md")


def accepted(text: str) -> bool:
    parsed = parse_skill_md(text)
    if not parsed.has_frontmatter:
        return False
    span = lambda start, end: parse.SourceRange(start, end, start, end)  # noqa: E731
    return plain_yaml.read_plain_frontmatter(parsed.yaml_text, span) is not None


def test_the_plain_reader_reads_most_real_frontmatters_as_pyyaml_does() -> None:
    assert len(SKILL_FILES) >= 10
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in SKILL_FILES]
    for path, text in zip(SKILL_FILES, texts, strict=True):
        assert parse_skill_md(text, "x/SKILL.md") == through_pyyaml(text), path
    # Not a vacuous agreement: most real frontmatters take the shortcut.
    assert sum(map(accepted, texts)) * 2 > len(texts)


@pytest.mark.parametrize(
    "yaml_text",
    [
        "name: pdf-tools\ndescription: Extract text, tables [and forms] from PDF's pages.\n",
        'name: a\nmetadata:\n  author: Ada\n  version: "1.0"\nlicense: MIT\n',
        "name: a\n\nmetadata:\n    author: 'Ada L.'\n\n    note: C# and café  \n\n",
        "description: \"Use: when # it's needed\"  \nx_y: it's fine-ish\n",
        "user-invocable: false\ndisable-model-invocation: Yes\nname: a\n",
        'description: Scan skills. Use when asked to "scan",\n  "audit" or - check it.\nz: q\n',
        "description: one\n\n   two  \n\n\n  three  \n\nname: a\n",
        "description: >-\n  Folded text: with # and\n  more  lines.\nname: a\n",
        "description: |\n    Literal: kept\n    as lines  \nmetadata:\n  note: >\n   a\n   b\n",
    ],
)
def test_the_common_shapes_take_the_shortcut_and_agree(yaml_text: str) -> None:
    text = f"---\n{yaml_text}---\nbody\n"
    assert accepted(text)
    assert parse_skill_md(text, "x/SKILL.md") == through_pyyaml(text)


@pytest.mark.parametrize(
    "yaml_text",
    [
        "on: push\n",  # a boolean key
        "name: Null\n",
        "version: 1.0\n",
        "date: 2026-11-28\n",
        "name: a: b\n",
        "name: a #comment\n",
        "name: a:\n",
        "name: 'it''s'\n",
        'name: "tab\\t"\n',
        "name: a\n  continued: x\n",
        "name: a\n  # comment\n",
        "name: true\n  continued\n",
        "name: 'a'\n  continued\n",
        "name: >+\n  kept\n",
        "name: |2\n   indented\n",
        "name: >\n  a\n\n  b\n",
        "name: |\n  a\n    more\n",
        "name: >\nnext: a\n",
        "name: a\nname: b\n",  # a duplicate key
        "metadata:\nname: a\n",  # a null
        "metadata:\n  a: b\n   c: d\n",
        "metadata:\n  a:\n    b: c\n",
        "name: a\tb\n",
        "name: a\r\ndescription: b\r\n",
        "name: a\u2028b\n",
        "name: a\x85b\n",
        "k" * 1025 + ": v\n",  # over YAML's 1024 for an implicit key: PyYAML's error
        "metadata:\n  " + "k" * 1025 + ": v\n",
        "name: [a, b]\n",
        "name: &x a\n",
        "name: !!str a\n",
        "- a\n",
        "",
    ],
)
def test_anything_else_is_left_to_pyyaml(yaml_text: str) -> None:
    text = f"---\n{yaml_text}---\nbody\n"
    assert not accepted(text)
    assert parse_skill_md(text, "x/SKILL.md") == through_pyyaml(text)


PLAIN_KEYS = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,5}", fullmatch=True)
KEYS = st.one_of(*[PLAIN_KEYS] * 6, st.sampled_from(["on", "No", "TRUE", "null", "name"]))
SAFE_VALUES = st.one_of(
    st.sampled_from(["plain words", "it's", "trail  ", "a:b", "a#c", "C#", "é ü 😀", "[x] y"]),
    st.from_regex(r"[A-Za-z][ -~]{0,12}", fullmatch=True),
)
EDGE_VALUE_LIST = [
    *("yes", "Off", "null", "~", "1.0", "0x1F", "2026-01-01", ".inf", "-"),
    *("a: b", "a #c", "a:", "\u00a0x", "x\u0085y", "x\ufeffy", "x\u2029y", "x\x7fy"),
    *('"quoted"', '"with \\"escape\\""', '"unclosed', "'single'", "'it''s'"),
    *("'a' trailing", "[flow]", "{a: b}", "&anchor v", "*alias", "!tag v", "|", ">-"),
    *("- item", "@at", "`tick`", "%pct", "", "true", "Yes", "OFF", "|-", ">", ">+", "|1"),
]
EDGE_VALUES = st.sampled_from(EDGE_VALUE_LIST)
CHILDREN = st.lists(st.tuples(KEYS, SAFE_VALUES), max_size=3)
ENTRIES = st.lists(
    st.tuples(KEYS, st.one_of(SAFE_VALUES, SAFE_VALUES, CHILDREN)), min_size=1, max_size=5
)
# At most one value of the plain shape is swapped for an edge case, so that a text is
# mostly accepted but for the one piece under test.
EDITS = st.lists(st.tuples(st.integers(0, 12), EDGE_VALUES), max_size=1)
# Lines a frontmatter may have besides its entries, put in at random places.
OTHER_LINE_LIST = [
    *("", "   ", "# comment", "continued words", "  more", "...", "\r", " odd: v", "   deep: v"),
    *("      deeper words", "  - dash item", "  #hash", "  'quoted' on", "  : colon", "  ends:"),
    *("    a: b", "  x #y", "  |", "   >-", "  spaces after  "),
]
OTHER_LINES = st.sampled_from(OTHER_LINE_LIST)
INSERTS = st.lists(st.tuples(st.integers(0, 12), OTHER_LINES), max_size=1)


def entry_lines(key: str, value: str | list[tuple[str, str]], indent: str) -> list[str]:
    if isinstance(value, str):
        return [f"{key}:{' ' if value else ''}{value}"]
    children = [entry_lines(child, text, "")[0] for child, text in value]
    return [f"{key}:", *(indent + line for line in children)]


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    indent = draw(st.sampled_from(["  ", "    ", " ", "\t"]))
    lines = [line for key, value in draw(ENTRIES) for line in entry_lines(key, value, indent)]
    for at, value in draw(EDITS):
        key = lines[at % len(lines)].split(":", 1)[0]
        lines[at % len(lines)] = f"{key}:{' ' if value else ''}{value}"
    for at, line in draw(INSERTS):
        lines.insert(min(at, len(lines)), line)
    return "".join(f"{line}\n" for line in lines)


# Frontmatters of the plain shape, one with each construct it reads.
BASES = [
    ["name: a", "metadata:", "  author: b", "  note: c", "last: d"],
    ["description: >-", "  folded line", "  second", "name: a", "note: words", "  continued"],
    ["metadata:", "  text: |", "    kept", "    lines", "  on-off: true", "last: d"],
]
EDGE_KEYS = ["on", "No", "TRUE", "null", "name", "author", "last", "metadata"]


def edge_cases() -> list[list[str]]:
    """Each of ``BASES`` with one key, value or line swapped for an edge case, or one
    line added."""
    cases = []
    for base in BASES:
        for at, line in enumerate(base):
            match = re.fullmatch(r"( *)([^: ]*):(.*)", line)
            if match is None:  # a line of a block scalar or a continued one
                continue
            indent, key, rest = match.groups()
            lines = [f"{indent}{edge}:{rest}" for edge in EDGE_KEYS]
            if rest:
                lines += [f"{indent}{key}:{' ' if v else ''}{v}" for v in EDGE_VALUE_LIST]
            cases += [[*base[:at], swapped, *base[at + 1 :]] for swapped in lines]
        for at in range(len(base) + 1):
            cases += [[*base[:at], line, *base[at:]] for line in OTHER_LINE_LIST]
    return cases


@pytest.mark.parametrize("lines", edge_cases())
def test_one_edge_case_in_a_plain_frontmatter_agrees_with_pyyaml(lines: list[str]) -> None:
    text = "---\n" + "".join(f"{line}\n" for line in lines) + "---\nbody\n"
    assert parse_skill_md(text, "x/SKILL.md") == through_pyyaml(text)


@settings(max_examples=600, deadline=None)
@given(yaml_texts())
@example("metadata:\n  a: b\n\n")
@example("name: x\nmetadata:\n  a: b\n  c: d\nz: q\n")
def test_generated_frontmatters_agree_with_pyyaml(yaml_text: str) -> None:
    text = f"---\n{yaml_text}---\nbody\n"
    assert parse_skill_md(text, "x/SKILL.md") == through_pyyaml(text)

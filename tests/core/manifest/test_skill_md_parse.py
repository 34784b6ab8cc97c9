"""parse_skill_md / read_skill_md: parts, positions and problems for any input."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.manifest import parse, parse_skill_md, read_skill_md

GOOD = """---
name: pdf-tools
description: "Extract text from PDFs."
metadata:
  author: Ada
  version: "1.0"
allowed-tools: Read Grep
---
# PDF tools

Use it.
"""


def codes(parsed) -> list[str]:
    return [p.code for p in parsed.problems]


def test_good_file_splits_into_frontmatter_and_body() -> None:
    parsed = parse_skill_md(GOOD, "x/SKILL.md")
    assert parsed.ok
    assert parsed.frontmatter == {
        "name": "pdf-tools",
        "description": "Extract text from PDFs.",
        "metadata": {"author": "Ada", "version": "1.0"},
        "allowed-tools": "Read Grep",
    }
    assert parsed.body_start_line == 8
    assert parsed.body == "# PDF tools\n\nUse it.\n"
    assert parsed.frontmatter_end_line == 7
    assert parsed.path == "x/SKILL.md"


def test_key_and_value_positions_are_zero_based_code_points() -> None:
    parsed = parse_skill_md(GOOD)
    name = parsed.fields["name"]
    assert name.key_range == SourceRange(1, 0, 1, 4)
    assert name.value_range == SourceRange(1, 6, 1, 15)
    assert name.style == "plain"
    assert parsed.fields["description"].style == "double"
    version = parsed.fields["metadata"].children["version"]
    assert version.key_range == SourceRange(5, 2, 5, 9)
    assert version.style == "double"
    assert parsed.fields["metadata"].style == "block"


def test_columns_count_code_points_not_bytes() -> None:
    parsed = parse_skill_md('---\nname: "é😀"\nkey: v\n---\n')
    assert parsed.fields["name"].value_range == SourceRange(1, 6, 1, 10)
    assert parsed.fields["key"].value_range == SourceRange(2, 5, 2, 6)


def test_bom_and_crlf_are_handled() -> None:
    parsed = parse_skill_md("\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n")
    assert parsed.ok and parsed.had_bom
    assert parsed.frontmatter == {"name": "a", "description": "b"}
    assert parsed.fields["description"].key_range == SourceRange(2, 0, 2, 11)
    assert parsed.body == "body\r\n"
    assert parsed.body_start_line == 4


def test_empty_file_is_a_no_frontmatter_problem() -> None:
    parsed = parse_skill_md("")
    assert codes(parsed) == ["no-frontmatter"]
    assert "empty" in parsed.problems[0].message


def test_text_without_delimiter_is_all_body() -> None:
    parsed = parse_skill_md("# Title\nname: x\n")
    assert codes(parsed) == ["no-frontmatter"]
    assert parsed.body == "# Title\nname: x\n"
    assert parsed.body_start_line == 0


def test_unclosed_frontmatter_points_at_the_opening_line() -> None:
    parsed = parse_skill_md("---\nname: x\n")
    assert codes(parsed) == ["unclosed-frontmatter"]
    assert parsed.problems[0].range == SourceRange(0, 0, 0, 3)


def test_invalid_yaml_reports_its_position_in_the_file() -> None:
    parsed = parse_skill_md("---\nname: ok\ndescription: [a,\n---\n")
    assert codes(parsed) == ["invalid-yaml"]
    assert parsed.problems[0].range.line == 3


def test_frontmatter_that_is_a_list_is_not_a_mapping() -> None:
    parsed = parse_skill_md("---\n- a\n- b\n---\n")
    assert codes(parsed) == ["not-a-mapping"]
    assert parsed.problems[0].range.line == 1


def test_empty_frontmatter_is_not_a_mapping() -> None:
    assert codes(parse_skill_md("---\n---\nbody")) == ["not-a-mapping"]


def test_duplicate_keys_are_reported_at_the_second_key() -> None:
    parsed = parse_skill_md("---\nname: a\nmetadata:\n  k: 1\n  k: 2\nname: b\n---\n")
    assert codes(parsed) == ["duplicate-key", "duplicate-key"]
    assert [p.range.line for p in parsed.problems] == [4, 5]
    assert parsed.frontmatter["name"] == "a"


def test_one_bad_value_keeps_the_other_fields() -> None:
    parsed = parse_skill_md("---\nname: x\nsince: !!float soon\ndescription: d\n---\n")
    assert codes(parsed) == ["invalid-yaml"]
    assert parsed.problems[0].range == SourceRange(2, 7, 2, 19)
    assert parsed.frontmatter == {"name": "x", "description": "d"}


def test_a_date_or_integer_yaml_1_1_cannot_make_is_its_text() -> None:
    # PyYAML resolves these to a date or an integer, then fails to make one: an
    # invalid-YAML error, where a YAML 1.2 parser (the hosts' JavaScript ones) reads text.
    text = "---\nname: x\ndescription: 2024-02-30\nmetadata:\n  n: 0x_\n  d: 2025-02-29\n---\n"
    parsed = parse_skill_md(text)
    assert codes(parsed) == []
    assert parsed.frontmatter["description"] == "2024-02-30"
    assert parsed.frontmatter["metadata"] == {"n": "0x_", "d": "2025-02-29"}


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"])
def test_unicode_line_breaks_are_characters_of_a_value(brk: str) -> None:
    # YAML 1.1 (PyYAML) breaks lines there; YAML 1.2 (section 5.4) does not. The check
    # refused a description holding one as invalid YAML, pointing at the next line.
    text = f"---\nname: x\ndescription: Does X.{brk}Use when Y.\nlicense: MIT\n---\n"
    parsed = parse_skill_md(text)
    assert codes(parsed) == []
    assert parsed.frontmatter == {
        "name": "x",
        "description": f"Does X.{brk}Use when Y.",
        "license": "MIT",
    }


def test_recursive_alias_is_refused_without_constructing() -> None:
    parsed = parse_skill_md("---\na: &x [*x]\n---\n")
    assert codes(parsed) == ["too-complex"]


def test_alias_bomb_is_refused() -> None:
    lines = ["---", 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    parsed = parse_skill_md("\n".join([*lines, "---", ""]))
    assert codes(parsed) == ["too-complex"]


def test_strict_yaml_features_are_recorded() -> None:
    parsed = parse_skill_md("---\na: [1, 2]\nb: &x v\nc: *x\nd: !!str 5\n---\n")
    kinds = sorted(f.kind for f in parsed.yaml_features)
    assert kinds == ["alias", "anchor", "flow", "tag"]


def test_an_alias_is_found_where_it_is_written_once() -> None:
    # A composed alias is its anchor's node: each alias was reported at the anchor, and
    # again for every node inside an aliased mapping.
    text = "---\nbase: &b\n  owner: me\n  team: x\ncopy: *b\nmore: *b\n---\n"
    parsed = parse_skill_md(text)
    aliases = [f.range for f in parsed.yaml_features if f.kind == "alias"]
    assert [(r.line, r.column, r.end_column) for r in aliases] == [(4, 6, 8), (5, 6, 8)]
    assert [f.kind for f in parsed.yaml_features].count("anchor") == 1
    copy = parsed.fields["copy"].value_range
    assert (copy.line, copy.column) == (4, 6)
    assert parsed.fields["more"].value_range.line == 5
    assert parsed.fields["base"].value_range.line == 1  # the anchor's own value stays


def test_a_merge_key_is_recorded() -> None:
    parsed = parse_skill_md("---\nm:\n  <<:\n    a: b\n  '<<': quoted\n---\n")
    merges = [f.range for f in parsed.yaml_features if f.kind == "merge"]
    assert [(r.line, r.column) for r in merges] == [(2, 2)]


def test_nul_bytes_are_an_invalid_yaml_problem() -> None:
    parsed = parse_skill_md("---\nname: \x00\n---\n")
    assert codes(parsed) == ["invalid-yaml"]


def test_read_missing_folder_is_a_missing_file_problem(tmp_path: Path) -> None:
    parsed = read_skill_md(tmp_path)
    assert codes(parsed) == ["missing-file"]
    assert parsed.path == str(tmp_path / "SKILL.md")


def test_read_folder_and_file(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text(GOOD, encoding="utf-8")
    assert read_skill_md(tmp_path).frontmatter["name"] == "pdf-tools"
    assert read_skill_md(tmp_path / "SKILL.md").frontmatter["name"] == "pdf-tools"


def test_read_falls_back_to_lowercase_skill_md(tmp_path: Path) -> None:
    (tmp_path / "skill.md").write_text(GOOD, encoding="utf-8")
    parsed = read_skill_md(tmp_path)
    assert parsed.ok
    assert Path(parsed.path).name == "skill.md"


def _message(parsed) -> str:
    (problem,) = parsed.problems
    return problem.message


def test_a_folder_or_fifo_named_skill_md_is_no_manifest(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").mkdir()
    assert codes(read_skill_md(tmp_path)) == ["missing-file"]
    folder = tmp_path / "SKILL.md"
    assert (
        _message(read_skill_md(tmp_path))
        == f"{folder} is a folder; SKILL.md must be a regular file"
    )
    if hasattr(os, "mkfifo"):  # opening it must not wait for a writer
        os.mkfifo(tmp_path / "skill.md")
        assert codes(read_skill_md(tmp_path)) == ["missing-file"]
        fifo = tmp_path / "skill.md"
        assert _message(read_skill_md(fifo)) == (
            f"{fifo} is not a regular file; SKILL.md must be a regular file"
        )
    assert codes(read_skill_md(tmp_path / "nowhere")) == ["missing-file"]
    assert read_skill_md(tmp_path / "nowhere").path == str(tmp_path / "nowhere")


def test_a_file_over_the_limit_is_read_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parse, "MAX_BYTES", 64)
    (tmp_path / "SKILL.md").write_text(GOOD + "x" * 200, encoding="utf-8")
    parsed = read_skill_md(tmp_path)
    assert codes(parsed)[0] == "too-large"
    assert len(parsed.text) == 64


def test_undecodable_bytes_are_reported_with_their_position(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_bytes(b"---\nname: ab\xffc\ndescription: d\n---\n")
    parsed = read_skill_md(tmp_path)
    assert codes(parsed) == ["not-utf8"]
    assert parsed.problems[0].range == SourceRange(1, 8, 1, 9)
    assert parsed.frontmatter["description"] == "d"


def test_binary_garbage_does_not_raise(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_bytes(bytes(range(256)) * 8)
    parsed = read_skill_md(tmp_path)
    assert "not-utf8" in codes(parsed)


FUZZ_ALPHABET = st.sampled_from(list("-:\n\r \t'\"[]{}&*!|>#ab\x00\ufeff\u2028é"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=FUZZ_ALPHABET, max_size=80))
def test_any_text_parses_without_raising(text: str) -> None:
    parsed = parse_skill_md("---\n" + text)
    for problem in parsed.problems:
        assert 0 <= problem.range.line <= len(parsed.line_starts)
    for span in parsed.fields.values():
        assert span.key_range.line >= 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=FUZZ_ALPHABET, max_size=80))
def test_frontmatter_end_line_is_the_parsers_closing_line(text: str) -> None:
    lines = re.split(r"\r\n|\r|\n", text)  # the text's lines, as editors count them
    assert parse.frontmatter_end_line(lines) == parse_skill_md(text).frontmatter_end_line


def test_frontmatter_end_line_of_plain_markdown() -> None:
    assert parse.frontmatter_end_line(["# Title", "---", "text"]) is None
    assert parse.frontmatter_end_line(["---", "a: b"]) is None  # never closed
    assert parse.frontmatter_end_line(["\ufeff---", "a: b", "--- ", "# Title"]) == 2
    assert parse.frontmatter_end_line([]) is None


def test_bytes_that_are_not_utf8_in_the_frontmatter_are_read_as_replacement_characters() -> None:
    # A file read with surrogateescape (the language server's workspace index), or a
    # \udcff escape from an editor: the YAML parser refused the whole text with a
    # UnicodeEncodeError, which took completion and go-to-definition down in every
    # other SKILL.md of the workspace.
    text = '---\nname: caf\udce9\ndescription: "x \udcff. Use when."\nmetadata:\n  a: [1]\n---\n'
    parsed = parse_skill_md(text)
    assert parsed.problems == ()
    assert parsed.frontmatter == {
        "name": "caf\ufffd",
        "description": "x \ufffd. Use when.",
        "metadata": {"a": [1]},
    }

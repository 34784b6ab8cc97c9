"""Where "Disable <rule> for this line/file" may write its comment, on texts no lint rule
needs to produce: each offered edit leaves YAML that still parses to the same values, and
lines a comment cannot precede get only the file action."""

from __future__ import annotations

import pytest
import yaml
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from skill_lsp.convert import SOURCE
from skill_lsp.features.code_actions import actions_for
from skill_lsp.index import DocumentKind, Snapshot
from skill_lsp.positions import split_lines
from tests.lsp.support import apply_text_edits

SKILL = """---
name: notes
description: >
  Takes notes. Use when
  asked to take notes.
allowed-tools:
  - Read
  - Grep
compatibility: Needs a
  network connection.
---

# Notes
"""


def _snapshot(text: str) -> Snapshot:
    return Snapshot(
        uri="file:///skills/notes/SKILL.md",
        path="/skills/notes/SKILL.md",
        version=1,
        text=text,
        kind=DocumentKind.SKILL_MD,
        lines=split_lines(text),
        codec=PositionCodec(),
    )


def _titles_at(line: int) -> dict[str, types.CodeAction]:
    where = types.Range(types.Position(line, 2), types.Position(line, 4))
    diagnostic = types.Diagnostic(
        range=where, message="m", code="some-rule", source=SOURCE, data={"rule": "some-rule"}
    )
    return {a.title: a for a in actions_for(_snapshot(SKILL), [diagnostic])}


def _frontmatter(text: str) -> dict:
    return yaml.safe_load(text.split("---\n")[1])


@pytest.mark.parametrize(
    ("line", "what"),
    [(3, "a folded block's text"), (4, "a folded block's text"), (9, "a plain value's next line")],
)
def test_no_line_comment_inside_a_multi_line_value(line: int, what: str) -> None:
    actions = _titles_at(line)
    assert "Disable some-rule for this line" not in actions, what
    assert "Disable some-rule for this file" in actions


@pytest.mark.parametrize("line", [1, 2, 5, 6, 7, 8])
def test_a_line_comment_above_a_key_or_list_item_keeps_the_values(line: int) -> None:
    action = _titles_at(line)["Disable some-rule for this line"]
    edited = apply_text_edits(SKILL, action.edit.changes[_snapshot(SKILL).uri], "utf-16")
    assert "# skillkit: ignore[some-rule]" in edited.splitlines()[line]
    assert _frontmatter(edited) == _frontmatter(SKILL)


@pytest.mark.parametrize("line", [0, 10])
def test_the_delimiters_take_no_line_comment(line: int) -> None:
    actions = _titles_at(line)
    assert "Disable some-rule for this line" not in actions
    whole = actions["Disable some-rule for this file"]
    edited = apply_text_edits(SKILL, whole.edit.changes[_snapshot(SKILL).uri], "utf-16")
    assert edited == SKILL + "<!-- skillkit: ignore-file[some-rule] -->\n"

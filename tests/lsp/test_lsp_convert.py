"""Converting the core's diagnostics to LSP ones: what reaches the editor's message."""

from __future__ import annotations

from pygls.workspace.position_codec import PositionCodec

from skill_lsp.convert import to_lsp
from skill_lsp.index import DocumentKind, Snapshot
from skill_lsp.positions import split_lines
from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange


def test_control_characters_in_a_message_are_escaped() -> None:
    text = "---\nname: x\n---\nSee [a](\x1b]0;owned\x07\x9b2J.md)\n"
    snapshot = Snapshot(
        uri="file:///skill/SKILL.md",
        path="/skill/SKILL.md",
        version=1,
        text=text,
        kind=DocumentKind.SKILL_MD,
        lines=split_lines(text),
        codec=PositionCodec(),
    )
    finding = LintDiagnostic(
        "broken-link",
        "error",
        "link target '\x1b]0;owned\x07\x9b2J.md' does not exist\nin the skill folder",
        file="/skill/SKILL.md",
        range=SourceRange(3, 8, 3, 20),
    )
    message = to_lsp(finding, snapshot, version="0").message
    assert message == (
        "link target '\\x1b]0;owned\\x07\\x9b2J.md' does not exist\nin the skill folder"
    )

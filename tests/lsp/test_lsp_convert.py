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


def test_log_and_shown_messages_escape_control_characters() -> None:
    from lsprotocol import types

    from skill_lsp.features.commands import _show
    from skill_lsp.log import log_message

    class Client:
        def __init__(self) -> None:
            self.sent: list[str] = []

        def window_log_message(self, params: types.LogMessageParams) -> None:
            self.sent.append(params.message)

        def window_show_message(self, params: types.ShowMessageParams) -> None:
            self.sent.append(params.message)

    client = Client()
    log_message(client, "author says \x1b[2J\x1b]0;owned\x07\nnext line")
    _show(client, "build failed: \x9b31m", types.MessageType.Error)
    assert client.sent == [
        "author says \\x1b[2J\\x1b]0;owned\\x07\nnext line",
        "build failed: \\x9b31m",
        "build failed: \\x9b31m",
    ]

"""Quick fixes: the fix a diagnostic carries, and "ignore this rule here" for every one.

Fixes are computed by the rules (and the source index) and travel in the diagnostic's
``data``, already in the client's units; this module only turns them into actions. The
ignore action writes a ``skillkit: ignore[rule]`` comment on its own line above the
finding (a comment alone on a line covers the next line), or extends one already there.
"""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from skill_lsp.convert import SOURCE, workspace_edit
from skill_lsp.index import DocumentKind, Snapshot

_MARKER = re.compile(r"^(\s*)(#|<!--)\s*skillkit:\s*ignore\[([^\]]*)\](.*)$")


def register(server: Any) -> None:
    """Declare ``textDocument/codeAction``."""
    options = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
    def code_action(ls: Any, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        only = params.context.only
        if only and not any(getattr(k, "value", k).startswith("quickfix") for k in only):
            return None
        # A file that is not open still gets the fixes its (workspace) diagnostics carry.
        snapshot = ls.documents.get(params.text_document.uri)
        actions: list[types.CodeAction] = []
        ignores: list[types.CodeAction] = []
        seen_rules: set[tuple[str, int]] = set()
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != SOURCE:
                continue
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            fix = data.get("fix")
            if isinstance(fix, dict):
                edit = workspace_edit(fix.get("edits") or [])
                if edit is not None:
                    actions.append(
                        types.CodeAction(
                            title=str(fix.get("title") or "Fix"),
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[diagnostic],
                            edit=edit,
                            is_preferred=True,
                        )
                    )
            # Fixes that may change what the skill means: one action each, none preferred.
            for suggestion in data.get("suggestions") or ():
                if not isinstance(suggestion, dict):
                    continue
                edit = workspace_edit(suggestion.get("edits") or [], suggestion.get("renames"))
                if edit is not None:
                    actions.append(
                        types.CodeAction(
                            title=str(suggestion.get("title") or "Fix"),
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[diagnostic],
                            edit=edit,
                        )
                    )
            rule = data.get("rule") or diagnostic.code
            key = (str(rule), diagnostic.range.start.line)
            if snapshot is not None and isinstance(rule, str) and key not in seen_rules:
                seen_rules.add(key)
                ignore = ignore_action(snapshot, diagnostic, rule)
                if ignore is not None:
                    ignores.append(ignore)
        return actions + ignores


def ignore_action(
    snapshot: Snapshot, diagnostic: types.Diagnostic, rule: str
) -> types.CodeAction | None:
    """The action that silences ``rule`` on the diagnostic's line."""
    edit = _ignore_edit(snapshot, diagnostic.range.start.line, rule)
    if edit is None:
        return None
    return types.CodeAction(
        title=f"Ignore {rule} here (skillkit: ignore[{rule}])",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=types.WorkspaceEdit(changes={snapshot.uri: [edit]}),
    )


def _ignore_edit(snapshot: Snapshot, line: int, rule: str) -> types.TextEdit | None:
    lines = snapshot.lines
    line = max(0, min(line, len(lines) - 1))
    if snapshot.kind == DocumentKind.SKILL_MD and _needs_file_marker(snapshot, line):
        return _file_marker(snapshot, rule)
    above = lines[line - 1] if line > 0 else None
    if above is not None:
        match = _MARKER.match(above)
        if match and "ignore-file" not in above:
            rules = [r.strip() for r in match.group(3).split(",") if r.strip()]
            if rule in rules:
                return None
            new_line = (
                f"{match.group(1)}{match.group(2)} skillkit: ignore[{', '.join([*rules, rule])}]"
                f"{match.group(4)}"
            )
            where = snapshot.map.range(_line_range(line - 1, len(above)))
            return types.TextEdit(range=where, new_text=new_line)
    text = lines[line]
    indent = text[: len(text) - len(text.lstrip())]
    comment = _comment(snapshot, line, rule)
    start = snapshot.map.position(line, 0)
    return types.TextEdit(
        range=types.Range(start, start), new_text=f"{indent}{comment}{_eol(snapshot)}"
    )


def _comment(snapshot: Snapshot, line: int, rule: str) -> str:
    if snapshot.kind == DocumentKind.SKILL_MD and not _in_frontmatter(snapshot, line):
        return f"<!-- skillkit: ignore[{rule}] -->"
    return f"# skillkit: ignore[{rule}]"


def _in_frontmatter(snapshot: Snapshot, line: int) -> bool:
    parsed = snapshot.skill_md
    end = parsed.frontmatter_end_line
    return parsed.has_frontmatter and end is not None and 0 < line < end


def _needs_file_marker(snapshot: Snapshot, line: int) -> bool:
    # Nothing may precede the opening ``---``, and delimiter lines cannot take comments.
    parsed = snapshot.skill_md
    return line == 0 or (
        parsed.frontmatter_end_line is not None and line == parsed.frontmatter_end_line
    )


def _file_marker(snapshot: Snapshot, rule: str) -> types.TextEdit:
    last = len(snapshot.lines) - 1
    end = snapshot.map.position(last, len(snapshot.lines[last]))
    prefix = "" if snapshot.lines[last] == "" else _eol(snapshot)
    text = f"{prefix}<!-- skillkit: ignore-file[{rule}] -->{_eol(snapshot)}"
    return types.TextEdit(range=types.Range(end, end), new_text=text)


def _line_range(line: int, length: int) -> Any:
    from skillkit_core.lint.diagnostic import SourceRange

    return SourceRange(line, 0, line, length)


def _eol(snapshot: Snapshot) -> str:
    text = snapshot.text
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    return "\n"

"""Quick fixes: the fixes a diagnostic carries, and "disable this rule" on its line or in
its file.

Fixes are computed by the rules (``skillkit check --fix`` applies the same ``fix``; a
rule's ``suggestions`` are offered too, never preferred) and travel in the diagnostic's
``data``, already in the client's units; this module only turns them into actions. A fix
that also makes files executable (a script's new ``#!`` line) carries the
``skillkit.makeExecutable`` command, which the client runs after the edit.

The disable actions write the inline suppressions the core honours
(:func:`skillkit_core.manifest.markdown.find_suppressions`): ``skillkit: ignore[rule]`` in
a comment alone on the line above the finding (it covers the next line), or extends one
already there; ``skillkit: ignore-file[rule]`` anywhere in the file, or extends one.
Comments are ``<!-- ... -->`` in a Markdown body and ``# ...`` in YAML frontmatter and
Python.
"""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from skill_lsp.convert import SOURCE, workspace_edit
from skill_lsp.index import DocumentKind, Snapshot, is_markdown
from skillkit_core.lint.diagnostic import SourceRange

_MARKER = re.compile(r"^(\s*)(#|<!--)\s*skillkit:\s*ignore\[([^\]]*)\](.*)$")
_FILE_MARKER = re.compile(r"skillkit:\s*ignore-file\[([^\[\]]*)\]")
# A YAML key line that opens a block scalar (``description: |``): its indented lines are
# text, where a comment line would become part of the value.
_BLOCK_SCALAR = re.compile(r"^[^\s#][^:]*:\s*[|>][-+0-9]*\s*(#.*)?$")
# An indented YAML line that is structure (a list item or a nested key), not the
# continuation of a multi-line plain value.
_YAML_ITEM = re.compile(r"^\s+(-(\s|$)|[\w\"'][\w\-\"' ]*:(\s|$))")
# Lines that must stay first in a Python file (PEP 263 reads the encoding from line 1 or 2).
_PYTHON_PREAMBLE = re.compile(r"^(#!|#.*coding[:=])")


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
        return actions_for(snapshot, params.context.diagnostics)


def actions_for(
    snapshot: Snapshot | None, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    """Every action for ``diagnostics`` of one document: the fixes first, then "disable for
    this line" and "disable for this file" (one of each per rule and line, or rule).
    Without a ``snapshot`` (the file is not open) only the fixes."""
    fixes: list[types.CodeAction] = []
    by_line: list[types.CodeAction] = []
    by_file: list[types.CodeAction] = []
    seen_lines: set[tuple[str, int]] = set()
    seen_files: set[str] = set()
    for diagnostic in diagnostics:
        if diagnostic.source != SOURCE:
            continue
        data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        if snapshot is None or data.get("text", snapshot.text_tag) == snapshot.text_tag:
            # A fix made for an older text (diagnostics lag a keystroke behind) would
            # land its edits in the wrong places: it is offered once they are redone.
            fixes += _fix_actions(diagnostic, data)
        rule = data.get("rule") or diagnostic.code
        if snapshot is None or not isinstance(rule, str):
            continue
        key = (rule, diagnostic.range.start.line)
        if key not in seen_lines and not data.get("wholeFile"):
            seen_lines.add(key)
            action = disable_line_action(snapshot, diagnostic, rule)
            if action is not None:
                by_line.append(action)
        if rule not in seen_files:
            seen_files.add(rule)
            action = disable_file_action(snapshot, diagnostic, rule)
            if action is not None:
                by_file.append(action)
    return fixes + by_line + by_file


def _fix_actions(diagnostic: types.Diagnostic, data: dict[str, Any]) -> list[types.CodeAction]:
    actions = []
    fix = data.get("fix")
    if isinstance(fix, dict):
        edit = workspace_edit(fix.get("edits") or [])
        if edit is not None:
            command = _executable_command(fix.get("executable"))
            actions.append(_quick_fix(fix, diagnostic, edit, command=command, preferred=True))
    # Fixes that may change what the skill means: one action each, none preferred.
    for suggestion in data.get("suggestions") or ():
        if not isinstance(suggestion, dict):
            continue
        edit = workspace_edit(suggestion.get("edits") or [], suggestion.get("renames"))
        if edit is not None:
            actions.append(_quick_fix(suggestion, diagnostic, edit, preferred=False))
    return actions


def _quick_fix(
    fix: dict[str, Any],
    diagnostic: types.Diagnostic,
    edit: types.WorkspaceEdit,
    *,
    command: types.Command | None = None,
    preferred: bool | None = None,
) -> types.CodeAction:
    """The quick fix applying ``edit`` for ``diagnostic``, titled by ``fix``'s title."""
    return types.CodeAction(
        title=str(fix.get("title") or "Fix"),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=edit,
        command=command,
        is_preferred=preferred,
    )


def _executable_command(uris: Any) -> types.Command | None:
    """The command that sets the executable bit a fix asks for, as ``--fix`` does (the
    client runs it after applying the edit)."""
    from skill_lsp.features.commands import MAKE_EXECUTABLE

    if not (isinstance(uris, list) and uris and all(isinstance(u, str) for u in uris)):
        return None
    return types.Command(
        title="Make executable", command=MAKE_EXECUTABLE, arguments=[{"uris": uris}]
    )


def disable_line_action(
    snapshot: Snapshot, diagnostic: types.Diagnostic, rule: str
) -> types.CodeAction | None:
    """The action that silences ``rule`` on the diagnostic's line (None where no comment
    can go: the frontmatter's delimiters, the text of a multi-line YAML value)."""
    edit = _line_edit(snapshot, diagnostic.range.start.line, rule)
    return _disable_action(snapshot, diagnostic, edit, f"Disable {rule} for this line")


def disable_file_action(
    snapshot: Snapshot, diagnostic: types.Diagnostic, rule: str
) -> types.CodeAction | None:
    """The action that silences ``rule`` in the whole file."""
    edit = _file_edit(snapshot, rule)
    return _disable_action(snapshot, diagnostic, edit, f"Disable {rule} for this file")


def _disable_action(
    snapshot: Snapshot, diagnostic: types.Diagnostic, edit: types.TextEdit | None, title: str
) -> types.CodeAction | None:
    if edit is None:
        return None
    change = types.WorkspaceEdit(changes={snapshot.uri: [edit]})
    return _quick_fix({"title": title}, diagnostic, change)


def _line_edit(snapshot: Snapshot, line: int, rule: str) -> types.TextEdit | None:
    lines = snapshot.lines
    line = max(0, min(line, len(lines) - 1))
    if not _line_takes_marker(snapshot, line):
        return None
    above = lines[line - 1] if line > 0 else None
    if above is not None:
        match = _MARKER.match(above)
        if match:
            rules = [r.strip() for r in match.group(3).split(",") if r.strip()]
            if rule in rules:
                return None
            new_line = (
                f"{match.group(1)}{match.group(2)} skillkit: ignore[{', '.join([*rules, rule])}]"
                f"{match.group(4)}"
            )
            where = snapshot.map.range(SourceRange(line - 1, 0, line - 1, len(above)))
            return types.TextEdit(range=where, new_text=new_line)
    text = lines[line]
    indent = text[: len(text) - len(text.lstrip())]
    comment = _comment(snapshot, line, f"skillkit: ignore[{rule}]")
    start = snapshot.map.position(line, 0)
    return types.TextEdit(
        range=types.Range(start, start), new_text=f"{indent}{comment}{_eol(snapshot)}"
    )


def _line_takes_marker(snapshot: Snapshot, line: int) -> bool:
    """Whether a comment line may go right above ``line``."""
    if snapshot.kind != DocumentKind.SKILL_MD:
        return True
    parsed = snapshot.skill_md
    # Nothing may precede the opening ``---``; the delimiters cannot carry a comment.
    if line == 0 or line == parsed.frontmatter_end_line:
        return False
    if not _in_frontmatter(snapshot, line):
        return True
    text = snapshot.lines[line]
    if not text[:1].isspace():
        return True
    if not _YAML_ITEM.match(text):
        return False  # the next line of a multi-line plain value
    for above in range(line - 1, 0, -1):
        owner = snapshot.lines[above]
        if owner.strip() and not owner[:1].isspace():
            return not _BLOCK_SCALAR.match(owner)
    return True


def _file_edit(snapshot: Snapshot, rule: str) -> types.TextEdit | None:
    lines = snapshot.lines
    for number, text in enumerate(lines):
        match = _FILE_MARKER.search(text)
        if match is None:
            continue
        rules = [r.strip() for r in match.group(1).split(",") if r.strip()]
        if rule in rules:
            return None
        start = snapshot.map.position(number, match.start(1))
        end = snapshot.map.position(number, match.end(1))
        return types.TextEdit(range=types.Range(start, end), new_text=", ".join([*rules, rule]))
    eol = _eol(snapshot)
    if snapshot.kind == DocumentKind.SKILL_MD or _is_markdown(snapshot):
        # At the end: the frontmatter must come first, and the top of the body is what an
        # agent reads first.
        last = len(lines) - 1
        end = snapshot.map.position(last, len(lines[last]))
        prefix = "" if lines[last] == "" else eol
        text = f"{prefix}<!-- skillkit: ignore-file[{rule}] -->{eol}"
        return types.TextEdit(range=types.Range(end, end), new_text=text)
    line = 0
    while line < min(2, len(lines)) and _PYTHON_PREAMBLE.match(lines[line]):
        line += 1
    start = snapshot.map.position(line, 0)
    return types.TextEdit(
        range=types.Range(start, start), new_text=f"# skillkit: ignore-file[{rule}]{eol}"
    )


def _comment(snapshot: Snapshot, line: int, marker: str) -> str:
    if snapshot.kind == DocumentKind.SKILL_MD:
        if _in_frontmatter(snapshot, line):
            return f"# {marker}"
        return f"<!-- {marker} -->"
    if _is_markdown(snapshot):
        return f"<!-- {marker} -->"
    return f"# {marker}"


def _is_markdown(snapshot: Snapshot) -> bool:
    return is_markdown(snapshot.path or snapshot.uri)


def _in_frontmatter(snapshot: Snapshot, line: int) -> bool:
    parsed = snapshot.skill_md
    end = parsed.frontmatter_end_line
    return parsed.has_frontmatter and end is not None and 0 < line < end


def _eol(snapshot: Snapshot) -> str:
    """The document's first line break (a lone CR too: "\n" would mix them)."""
    text = snapshot.text
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    if "\r" in (text if index < 0 else text[:index]):
        return "\r"
    return "\n"

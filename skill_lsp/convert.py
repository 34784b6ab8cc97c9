"""The core's ``LintDiagnostic`` as an LSP ``Diagnostic`` (and its fix back as edits).

``code`` is the rule id, ``source`` is ``skillkit``, ``codeDescription`` links the rule's
page, and ``data`` carries what code actions need: the rule, the fix's edits already in
the client's position units for this version (and the files it makes executable), and
whether the finding is about the whole file (no line of its own for an "ignore" comment
to name).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from skill_lsp.index import Snapshot
from skill_lsp.positions import LineMap
from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange
from skillkit_core.safe_text import escape_controls

SOURCE = "skillkit"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def first_line_range(lines: Any) -> SourceRange:
    """The first line's text (where file-level findings are shown)."""
    text = lines[0] if lines else ""
    return SourceRange(0, 0, 0, len(text))


def range_json(where: types.Range) -> list[int]:
    """A client range as ``[line, character, end line, end character]``."""
    return [where.start.line, where.start.character, where.end.line, where.end.character]


def range_from_json(value: Any) -> types.Range | None:
    """The inverse of :func:`range_json` (None for anything malformed)."""
    if not (isinstance(value, list) and len(value) == 4 and all(isinstance(v, int) for v in value)):
        return None
    return types.Range(types.Position(value[0], value[1]), types.Position(value[2], value[3]))


def to_lsp(
    diagnostic: LintDiagnostic,
    snapshot: Snapshot,
    *,
    version: str,
    maps: dict[str, LineMap] | None = None,
) -> types.Diagnostic:
    """One LSP diagnostic for ``snapshot``'s document."""
    from skill_lsp.rule_docs import rule_doc_uri

    where = diagnostic.range or first_line_range(snapshot.lines)
    lsp_range = snapshot.map.range(where)
    href = rule_doc_uri(diagnostic.rule, version)
    data: dict[str, Any] = {"rule": diagnostic.rule}
    if diagnostic.step:
        data["step"] = diagnostic.step
    if diagnostic.range is None:
        data["wholeFile"] = True  # only a file-wide suppression hides it
    if diagnostic.fix is not None:
        edits = _fix_edits(diagnostic.fix, snapshot, maps or {})
        if edits:
            data["fix"] = {"title": diagnostic.fix.title, "edits": edits}
            if diagnostic.fix.executable:
                data["fix"]["executable"] = [_uri(path) for path in diagnostic.fix.executable]
    suggestions = [_suggestion(fix, snapshot, maps or {}) for fix in diagnostic.suggestions]
    if any(suggestions):
        data["suggestions"] = [s for s in suggestions if s]
    if "fix" in data or "suggestions" in data:
        data["text"] = snapshot.text_tag  # the text the edits' positions are in
    return types.Diagnostic(
        range=lsp_range,
        # A message can quote the document (a link target, a key): its control
        # characters are escaped as in every other face.
        message=escape_controls(diagnostic.message),
        severity=_SEVERITY.get(diagnostic.severity, types.DiagnosticSeverity.Warning),
        code=diagnostic.rule,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        data=data,
    )


def _uri(path: str) -> str:
    from pygls.uris import from_fs_path

    return from_fs_path(path) or path


def _suggestion(fix: Fix, snapshot: Snapshot, maps: dict[str, LineMap]) -> dict[str, Any] | None:
    """A fix to choose from (never preferred): its edits and its path renames as URIs."""
    from pygls.uris import from_fs_path

    edits = _fix_edits(fix, snapshot, maps)
    if fix.edits and not edits:
        return None
    renames = [[from_fs_path(old) or old, from_fs_path(new) or new] for old, new in fix.renames]
    return {"title": fix.title, "edits": edits, "renames": renames}


def _fix_edits(fix: Fix, snapshot: Snapshot, maps: dict[str, LineMap]) -> list[dict[str, Any]]:
    """The fix's edits as ``{"uri", "range", "newText"}`` in client units.

    Edits in this document use its lines; edits in other files use a map of that file's
    current text (given in ``maps`` by path), and are dropped when it is unknown.
    """
    from pygls.uris import from_fs_path

    edits = []
    for edit in fix.edits:
        if edit.file is None or edit.file == snapshot.path:
            uri, mapper = snapshot.uri, snapshot.map
        else:
            mapper = maps.get(edit.file)
            if mapper is None:
                return []
            uri = from_fs_path(edit.file) or edit.file
        edits.append(
            {"uri": uri, "range": range_json(mapper.range(edit.range)), "newText": edit.new_text}
        )
    return edits


def workspace_edit(
    edits: list[dict[str, Any]], renames: list[Any] | None = None
) -> types.WorkspaceEdit | None:
    """A ``WorkspaceEdit`` from the ``data.fix.edits`` of a diagnostic (and the path
    ``renames`` of a suggestion, as file operations after the edits)."""
    if renames:
        operations: list[Any] = []
        text = workspace_edit(edits) if edits else None
        if edits and text is None:
            return None
        for uri, changed in (text.changes or {}).items() if text else ():
            document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None)
            operations.append(types.TextDocumentEdit(text_document=document, edits=changed))
        for pair in renames:
            if not (
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(u, str) for u in pair)
            ):
                return None
            operations.append(types.RenameFile(kind="rename", old_uri=pair[0], new_uri=pair[1]))
        return types.WorkspaceEdit(document_changes=operations)
    changes: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        where = range_from_json(edit.get("range"))
        uri = edit.get("uri")
        text = edit.get("newText")
        if where is None or not isinstance(uri, str) or not isinstance(text, str):
            return None
        changes.setdefault(uri, []).append(types.TextEdit(range=where, new_text=text))
    return types.WorkspaceEdit(changes=changes) if changes else None

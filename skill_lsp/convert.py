"""The core's ``LintDiagnostic`` as an LSP ``Diagnostic`` (and its fix back as edits).

``code`` is the rule id, ``source`` is ``skillkit``, ``codeDescription`` links the rule's
page, and ``data`` carries what code actions need: the rule, the fix's edits already in
the client's position units for this version, and where an "ignore" comment goes.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from skill_lsp.index import Snapshot
from skill_lsp.positions import LineMap
from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
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
    if diagnostic.fix is not None:
        edits = _fix_edits(diagnostic, snapshot, maps or {})
        if edits:
            data["fix"] = {"title": diagnostic.fix.title, "edits": edits}
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


def _fix_edits(
    diagnostic: LintDiagnostic, snapshot: Snapshot, maps: dict[str, LineMap]
) -> list[dict[str, Any]]:
    """The fix's edits as ``{"uri", "range", "newText"}`` in client units.

    Edits in this document use its lines; edits in other files use a map of that file's
    current text (given in ``maps`` by path), and are dropped when it is unknown.
    """
    from pygls.uris import from_fs_path

    edits = []
    assert diagnostic.fix is not None
    for edit in diagnostic.fix.edits:
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


def workspace_edit(edits: list[dict[str, Any]]) -> types.WorkspaceEdit | None:
    """A ``WorkspaceEdit`` from the ``data.fix.edits`` of a diagnostic."""
    changes: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        where = range_from_json(edit.get("range"))
        uri = edit.get("uri")
        text = edit.get("newText")
        if where is None or not isinstance(uri, str) or not isinstance(text, str):
            return None
        changes.setdefault(uri, []).append(types.TextEdit(range=where, new_text=text))
    return types.WorkspaceEdit(changes=changes) if changes else None

"""The syntax layer's findings for a Python document: the core's structural checks on the
version's source index (no code runs).

Typing in a prompt changes no step, no name and no transition: when the one edit since
the previous version lies inside the text of a plain string literal that names nothing
(in both versions' parse trees), that version's findings are carried over with their
ranges moved through the edit instead of running the checks again. Anything less certain
runs them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic

Edit = tuple[tuple[int, int], tuple[int, int], str]
"""One replacement: code-point (line, column) start and end, and the new text."""

# Characters that can change what a string literal is (end it, escape, interpolate) or
# start a new line: an edit that types or deletes one is never carried over.
_LITERAL_SYNTAX = frozenset("\"'\\{}\r\n")
_BACKSLASH = ord("\\")
_log = logging.getLogger(__name__)
_Item = TypeVar("_Item")


def structural_findings(snapshot: Any) -> list[LintDiagnostic]:
    """Unknown, duplicate, unreachable and badly named steps of this version."""
    index = snapshot.index
    if index.too_large:
        return []
    earlier = snapshot.take_previous_syntax()
    if earlier is not None:
        findings, old_index, edit = earlier
        try:
            moved = carried_over(findings, old_index, index, edit)
        except Exception:  # the checks below still give this version its findings
            _log.exception("carrying syntax findings over failed")
            moved = None
        if moved is not None:
            return moved
    from skillkit_core.source.diagnostics import structural_diagnostics

    return structural_diagnostics(index, file=None)


def carried_over(
    findings: list[LintDiagnostic], old: Any, new: Any | None, edit: Edit
) -> list[LintDiagnostic] | None:
    """``findings`` (the structural findings of index ``old``) as they are after ``edit``;
    None when that cannot be known without running the checks (the edit may have
    changed what they see, or touches a finding).

    ``new`` is the index of the edited text, when computed: its tree must agree. Without
    it the old tree decides, which is enough: an edit that types or deletes no quote,
    backslash, brace or line break, inside the text of a literal (not in an escape
    sequence), leaves every token of the file as it was, that literal longer or
    shorter. (Nor one right after a backslash, which would escape something else.)"""
    start, end, new_text = edit
    if start[0] != end[0] or old.has_errors or (new is not None and new.has_errors):
        return None
    if not _is_prose(new_text) or old._state is None:
        return None
    if new is not None and new._state is None:
        return None
    old_lines = old._state.lines
    old_start = old_lines.offset(*start)
    old_end = old_lines.offset(*end)
    if not _is_prose(old_lines.text(old_start, old_end)):
        return None
    if old_start and old._state.data[old_start - 1] == _BACKSLASH:
        return None  # the edit would change what that backslash escapes
    before = _literal_around(old._state.tree, old_start, old_end)
    if before is None:
        return None
    if new is not None:
        new_end = old_start + len(new_text.encode("utf-8", "surrogatepass"))
        after = _literal_around(new._state.tree, old_start, new_end)
        # The same literal: it starts where it did and ends where the edit moved its end.
        if after is None or (after[0], after[1]) != (before[0], before[1] + new_end - old_end):
            return None
    line, column = start
    if _names_something(old, line, column):
        return None
    if new is not None and _names_something(new, line, column):
        return None
    return _all_shifted(findings, lambda finding: _shifted(finding, edit))


def carried_before_indexing(snapshot: Any) -> list[LintDiagnostic] | None:
    """This version's findings without its index, when the one edit since an indexed
    version leaves them as they were (moved); None otherwise. Publishing them need not
    wait for the version's parse."""
    earlier = snapshot.previous_syntax
    if earlier is None:
        return None
    findings, old_index, edit = earlier
    return carried_over(findings, old_index, None, edit)


def _is_prose(text: str) -> bool:
    return _LITERAL_SYNTAX.isdisjoint(text)


def _literal_around(tree: Any, start: int, end: int) -> tuple[int, int] | None:
    """Byte span of the string literal whose text holds bytes ``start``..``end`` (None
    when they are not inside the text of one literal)."""
    node = tree.root_node.descendant_for_byte_range(start, end)
    if node is None or node.type != "string_content":
        return None
    if not node.start_byte <= start <= end <= node.end_byte:
        return None
    literal = node.parent
    if literal is None or literal.type != "string":
        return None
    return literal.start_byte, literal.end_byte


def _names_something(index: Any, line: int, column: int) -> bool:
    """Whether a literal the index reads by its value covers (line, column): a string
    naming a step, sub-skill or topic, a skill's, step's or declaration's name, or a
    host tool guard's tool."""
    ranges: Iterable[Any] = (
        *(ref.range for ref in index.refs),
        *(guard.range for guard in index.tool_guards),
        *(chain.name.range for chain in index.chains if chain.name is not None),
        *(step.name_string.range for step in index.steps if step.name_string is not None),
        *(
            declaration.name_string.range
            for chain in index.chains
            for declaration in (*chain.subskills, *chain.topics)
            if declaration.name_string is not None
        ),
    )
    point = (line, column)
    return any(
        where.line <= line <= where.end_line
        and (where.line, where.column) <= point <= (where.end_line, where.end_column)
        for where in ranges
    )


def _shifted(finding: LintDiagnostic, edit: Edit) -> LintDiagnostic | None:
    """``finding`` with its range and its fixes' ranges moved through ``edit``."""
    from skill_lsp.index import shift_range

    start, end, new_text = edit
    if finding.range is None:
        return finding
    where = shift_range(finding.range, start, end, new_text)
    fix = None if finding.fix is None else _shifted_fix(finding.fix, edit)
    suggestions = _shifted_fixes(finding.suggestions, edit)
    if where is None or (finding.fix is not None and fix is None) or suggestions is None:
        return None
    return finding._replace(range=where, fix=fix, suggestions=suggestions)


def _shifted_fixes(fixes: Iterable[Fix], edit: Edit) -> tuple[Fix, ...] | None:
    moved = _all_shifted(fixes, lambda fix: _shifted_fix(fix, edit))
    return None if moved is None else tuple(moved)


def _all_shifted(
    items: Iterable[_Item], shift: Callable[[_Item], _Item | None]
) -> list[_Item] | None:
    """Every item of ``items`` shifted, or None as soon as one cannot be."""
    moved = []
    for item in items:
        shifted = shift(item)
        if shifted is None:
            return None
        moved.append(shifted)
    return moved


def _shifted_fix(fix: Fix, edit: Edit) -> Fix | None:
    from skill_lsp.index import shift_range

    start, end, new_text = edit
    edits = []
    for text_edit in fix.edits:
        if text_edit.file:  # another file's edit: not moved by this one
            edits.append(text_edit)
            continue
        where = shift_range(text_edit.range, start, end, new_text)
        if where is None:
            return None
        edits.append(text_edit._replace(range=where))
    return fix._replace(edits=tuple(edits))

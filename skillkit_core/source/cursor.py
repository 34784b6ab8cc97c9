"""What the cursor is in, for completion — on code that may not parse.

First the index: a recorded step-naming string, tool guard, ``act.`` call or sub-skill /
topic name under the cursor answers directly. Otherwise the current line (and, for a
string at the start of a line, the line above) is read as text: an editor asks for
completion right after typing ``next="``, when the string is unterminated and the call
half-typed, and the tree has nothing useful there.
"""

from __future__ import annotations

import re

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source.model import CursorContext, Role, SourceIndex, StepRef
from skillkit_core.source.positions import LineTable, encode

_PREFIX_LETTERS = "rRbBfFuUtT"
# Patterns on the text before a string's opening quote (anchored at its end).
_HEAD_PATTERNS: tuple[tuple[Role, re.Pattern[str]], ...] = (
    (Role.TOOL_GUARD, re.compile(r"\.tools_available\s*\.\s*(?:count|index)\(\s*$")),
    (Role.STORE_SUBSCRIPT, re.compile(r"\.steps\s*\[\s*$")),
    (Role.STORE_GET, re.compile(r"\.steps\s*\.\s*get\(\s*$")),
    (Role.STORE_ALL, re.compile(r"\.steps\s*\.\s*all\(\s*$")),
    (Role.STORE_RAN, re.compile(r"\.steps\s*\.\s*ran\(\s*$")),
    (Role.BRANCH, re.compile(r"\bbranch\(\s*(?:to\s*=\s*)?$")),
    (Role.BRANCH, re.compile(r"\bbranch\([^()]*\bto\s*=\s*$")),
    (Role.ENTRY, re.compile(r"\bentry\s*=\s*$")),
    (Role.ON_MAX_VISITS, re.compile(r"\bon_max_visits\s*=\s*$")),
    (Role.NEXT, re.compile(r"\bnext\s*=\s*$")),
    (Role.DEFINITION, re.compile(r"\.\s*(?:step|extend)\(\s*(?:name\s*=\s*)?$")),
    (Role.SUBSKILL_NAME, re.compile(r"\.\s*subskill\(\s*(?:name\s*=\s*)?$")),
    (Role.TOPIC_NAME, re.compile(r"\.\s*topic\(\s*(?:name\s*=\s*)?$")),
)
_NEXT_LAMBDA = re.compile(r"\bnext\s*=\s*lambda\b[^:]*:(?P<body>.*)$")
_RETURN_POSITION = re.compile(r"(?::|\belse|\(|^)\s*$")
_RETURN_STATEMENT = re.compile(r"^\s*return\b(?P<body>.*)$")
_GUARD_AFTER = re.compile(r"^\s*(?:not\s+)?in\s+[\w.\s]*\btools_available\b")
_ACT_MEMBER = re.compile(r"(?:(?<![\w.])|(?<=\.))act\s*\.\s*(\w*)$")
_NAME_CHARS = re.compile(r"[^\s\"'(),\[\]{}]*")


def context_at(index: SourceIndex, line: int, column: int) -> CursorContext | None:
    """The completion context at (line, column); None outside any step-naming place."""
    lines = _lines(index)
    if line < 0 or line >= lines.line_count:
        return None
    text = lines.line_text(line)
    column = max(0, min(column, len(text)))
    recorded = _recorded(index, text, line, column)
    if recorded is not None:
        return recorded
    if _in_comment_or_long_string(index, lines, line, column):
        return None
    return _from_text(index, lines, text, line, column)


def _lines(index: SourceIndex) -> LineTable:
    state = index._state
    lines = getattr(state, "lines", None)
    return lines if isinstance(lines, LineTable) else LineTable(encode(index.text))


def _inside(span: SourceRange, line: int, column: int) -> bool:
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


def _typed(text: str, span: SourceRange, line: int, column: int) -> str:
    start = span.column if span.line == line else 0
    return text[start:column]


def _recorded(index: SourceIndex, text: str, line: int, column: int) -> CursorContext | None:
    for ref in index.refs:
        if _inside(ref.inner, line, column):
            return _from_ref(ref, text, line, column)
    for guard in index.tool_guards:
        if _inside(guard.inner, line, column):
            owner = guard.owners[0] if guard.owners else None
            return CursorContext(
                role=Role.TOOL_GUARD,
                prefix=_typed(text, guard.inner, line, column),
                replace=guard.inner,
                chain=owner.chain if owner else None,
                step=owner.step if owner else None,
                tool_guard=guard,
            )
    for act in index.act_calls:
        if _inside(act.name_range, line, column):
            owner = act.owners[0] if act.owners else None
            return CursorContext(
                role=Role.ACT_MEMBER,
                prefix=_typed(text, act.name_range, line, column),
                replace=act.name_range,
                chain=owner.chain if owner else None,
                step=owner.step if owner else None,
            )
    for chain in index.chains:
        for declaration in (*chain.subskills, *chain.topics):
            literal = declaration.name_string
            if literal is not None and _inside(literal.inner, line, column):
                return CursorContext(
                    role=Role.SUBSKILL_NAME if declaration.kind == "subskill" else Role.TOPIC_NAME,
                    prefix=_typed(text, literal.inner, line, column),
                    replace=literal.inner,
                    chain=chain.index,
                    step=None,
                )
    return None


def _from_ref(ref: StepRef, text: str, line: int, column: int) -> CursorContext:
    chain = ref.chain
    step = None
    for owner in ref.owners:
        chain = chain if chain is not None else owner.chain
        if owner.step is not None:
            step = owner.step
            break
    return CursorContext(
        role=ref.role,
        prefix=_typed(text, ref.inner, line, column),
        replace=ref.inner,
        chain=chain,
        step=step,
        ref=ref,
    )


def _in_comment_or_long_string(
    index: SourceIndex, lines: LineTable, line: int, column: int
) -> bool:
    tree = getattr(index._state, "tree", None)
    if tree is None:
        return False
    offset = lines.offset(line, column)
    node = tree.root_node.descendant_for_byte_range(offset, offset)
    for _ in range(8):
        if node is None:
            return False
        if node.type == "comment":
            return True
        if node.type == "string":
            # A triple-quoted string over several lines (a docstring) never names a step;
            # an unterminated "... may run on over lines while the user is typing it.
            opening = node.child(0)
            quote = (
                lines.data[opening.end_byte - 3 : opening.end_byte] if opening is not None else b""
            )
            return quote in (b'"""', b"'''") and node.start_point.row != node.end_point.row
        node = node.parent
    return False


def _open_string(before: str) -> tuple[int, str] | None:
    """(column of the opening quote, the quote) of the string ``before`` ends inside."""
    position = 0
    opened: tuple[int, str] | None = None
    while position < len(before):
        char = before[position]
        if opened is None:
            if char == "#":
                return None
            if char in "'\"":
                triple = before[position : position + 3]
                quote = triple if triple in ('"""', "'''") else char
                opened = (position, quote)
                position += len(quote)
                continue
        else:
            if char == "\\":
                position += 2
                continue
            if before.startswith(opened[1], position):
                position += len(opened[1])
                opened = None
                continue
        position += 1
    return opened


def _closing(after: str, quote: str) -> int | None:
    position = 0
    while position < len(after):
        if after[position] == "\\":
            position += 2
            continue
        if after.startswith(quote, position):
            return position
        position += 1
    return None


def _from_text(
    index: SourceIndex, lines: LineTable, text: str, line: int, column: int
) -> CursorContext | None:
    before = text[:column]
    member = _ACT_MEMBER.search(before)
    opened = _open_string(before)
    if opened is None:
        if member is None:
            return None
        start = column - len(member.group(1))
        return _context(
            index,
            Role.ACT_MEMBER,
            member.group(1),
            SourceRange(line, start, line, column),
            line,
            column,
            True,
        )
    quote_at, quote = opened
    letters = quote_at
    while letters > 0 and before[letters - 1] in _PREFIX_LETTERS:
        letters -= 1
    if letters > 0 and (before[letters - 1].isalnum() or before[letters - 1] == "_"):
        letters = quote_at
    head = before[:letters]
    after = text[column:]
    close = _closing(after, quote)
    if close is None:
        end = column + len(_NAME_CHARS.match(after).group(0))  # type: ignore[union-attr]
        trailing = after
    else:
        end = column + close
        trailing = after[close + len(quote) :]
    if not head.strip():
        head = _previous_line(lines, line) + " " + head
    role = _classify(index, head, trailing, line)
    if role is None:
        return None
    opening = quote_at + len(quote)
    return _context(
        index,
        role,
        text[opening:column],
        SourceRange(line, opening, line, end),
        line,
        column,
        close is not None,
    )


def _previous_line(lines: LineTable, line: int) -> str:
    for above in range(line - 1, max(-1, line - 4), -1):
        text = lines.line_text(above)
        if text.strip():
            return text.rstrip()
    return ""


def _classify(index: SourceIndex, head: str, trailing: str, line: int) -> Role | None:
    if _GUARD_AFTER.match(trailing):
        return Role.TOOL_GUARD
    for role, pattern in _HEAD_PATTERNS:
        if pattern.search(head):
            return role
    lam = _NEXT_LAMBDA.search(head)
    if lam is not None and _RETURN_POSITION.search(lam.group("body")):
        return Role.NEXT_RETURN
    returned = _RETURN_STATEMENT.match(head)
    in_next_function = any(
        function.used_as_next and function.range.line <= line <= function.range.end_line
        for function in index.functions
    )
    if returned and in_next_function and _RETURN_POSITION.search(returned.group("body")):
        return Role.NEXT_RETURN
    return None


def _context(
    index: SourceIndex,
    role: Role,
    prefix: str,
    replace: SourceRange,
    line: int,
    column: int,
    terminated: bool,
) -> CursorContext:
    from skillkit_core.source.query import chain_at, step_at

    chain = chain_at(index, line, column)
    step = step_at(index, line, column)
    return CursorContext(
        role=role,
        prefix=prefix,
        replace=replace,
        chain=step.chain if step is not None else (chain.index if chain is not None else None),
        step=step.index if step is not None else None,
        terminated=terminated,
    )

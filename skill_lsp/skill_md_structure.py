"""The outline of hand-written skill markdown: symbols, folding ranges, the tiers lens.

- Symbols: a ``frontmatter`` symbol holding its keys (a mapping's keys nested under it),
  then the ATX headings (``#`` to ``######``) nested by level; headings inside fenced code
  are not headings. The frontmatter comes from the core's SKILL.md parser, fences from
  its markdown scan.
- Folding: the frontmatter, each heading's section, each fenced code block.
- The lens on the frontmatter's first line gives what ``skillkit preview`` gives for the
  folder, from the same core function (``simulate.tiers.tier_view``) on the unsaved text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from lsprotocol import types

from skill_lsp.index import DocumentKind, Snapshot
from skillkit_core.lint.diagnostic import SourceRange

_HEADING = re.compile(r"^ {0,3}(?P<marks>#{1,6})(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*$")
# Characters of a scalar value a symbol's detail shows.
DETAIL_CHARS = 60


class MarkdownSymbol(NamedTuple):
    """One outline entry, shaped like the core's source symbols (``kind`` is
    ``frontmatter``, ``key`` or ``heading``)."""

    name: str
    detail: str | None
    kind: str
    range: SourceRange
    selection_range: SourceRange
    children: tuple[MarkdownSymbol, ...] = ()


class Heading(NamedTuple):
    """An ATX heading: its line, level, text and where the text (or the marks) is."""

    line: int
    level: int
    text: str
    selection: SourceRange


def _place(snapshot: Snapshot) -> Any:
    from skill_lsp.skill_md_links import markdown_place

    return markdown_place(snapshot)


def headings(snapshot: Snapshot) -> list[Heading]:
    """The document body's ATX headings outside fenced code, in order."""
    from skill_lsp.skill_md_links import scan_of

    place = _place(snapshot)
    if place is None:
        return []
    code = scan_of(snapshot, place).code_lines
    return list(_atx_headings(snapshot.lines, place.body_start, code))


def _atx_headings(lines: Sequence[str], start: int, code: set[int]) -> Iterator[Heading]:
    """The ATX headings of ``lines`` from line ``start`` on, but for the ``code`` lines
    (fenced code); the selection is the text (the marks for an empty heading)."""
    for number in range(start, len(lines)):
        text = lines[number]
        if "#" not in text or number in code:
            continue
        match = _HEADING.match(text)
        if match is None:
            continue
        title = match.group("text") or ""
        part = "text" if title else "marks"
        where = SourceRange(number, match.start(part), number, match.end(part))
        yield Heading(number, len(match.group("marks")), title, where)


def heading_slug(text: str) -> str:
    """The anchor a heading gets on GitHub and in VS Code: lowercase, punctuation dropped
    (hyphens and underscores kept), spaces made hyphens."""
    kept = "".join(char for char in text.strip().lower() if char.isalnum() or char in " -_")
    return kept.replace(" ", "-")


def heading_for(lines: Sequence[str], fragment: str) -> SourceRange | None:
    """Where the heading text the ``fragment`` of a link names sits in ``lines`` (a
    markdown file, its frontmatter skipped), or None."""
    from urllib.parse import unquote

    from skillkit_core.manifest.markdown import scan_markdown
    from skillkit_core.manifest.parse import frontmatter_end_line

    wanted = unquote(fragment).strip().lower()
    if not wanted:
        return None
    code = scan_markdown(list(lines)).code_lines
    closing = frontmatter_end_line(lines)
    start = 0 if closing is None else closing + 1
    for heading in _atx_headings(lines, start, code):
        if heading.text and heading_slug(heading.text) == wanted:
            return heading.selection
    return None


def _last_text_line(lines: Sequence[str], first: int, last: int) -> int:
    """The last line in ``first..last`` holding more than blanks (``first`` at least)."""
    while last > first and not lines[last].strip():
        last -= 1
    return last


def _section_ends(found: list[Heading], lines: Sequence[str]) -> list[int]:
    """For each heading, the last non-blank line of its section (up to the next heading
    of the same or a higher level)."""
    ends = []
    for position, heading in enumerate(found):
        stop = len(lines) - 1
        for later in found[position + 1 :]:
            if later.level <= heading.level:
                stop = later.line - 1
                break
        ends.append(_last_text_line(lines, heading.line, stop))
    return ends


def _line_end(lines: Sequence[str], line: int) -> SourceRange:
    return SourceRange(line, len(lines[line]), line, len(lines[line]))


def _heading_symbols(snapshot: Snapshot) -> list[MarkdownSymbol]:
    lines = snapshot.lines
    found = headings(snapshot)
    ends = _section_ends(found, lines)
    # Build the tree with a stack of (level, symbol fields, children) still open.
    roots: list[MarkdownSymbol] = []
    stack: list[tuple[int, Heading, int, list[MarkdownSymbol]]] = []

    def close() -> None:
        level, heading, end, children = stack.pop()
        symbol = MarkdownSymbol(
            name=heading.text or "(empty heading)",
            detail="#" * level,
            kind="heading",
            range=SourceRange(heading.line, 0, end, len(lines[end])),
            selection_range=heading.selection,
            children=tuple(children),
        )
        (stack[-1][3] if stack else roots).append(symbol)

    for heading, end in zip(found, ends, strict=True):
        while stack and stack[-1][0] >= heading.level:
            close()
        stack.append((heading.level, heading, end, []))
    while stack:
        close()
    return roots


def _value_detail(span: Any) -> str | None:
    if span.kind == "mapping":
        return f"{len(span.children)} keys"
    if span.kind == "list":
        return f"{len(span.items)} items" if span.items else "list"
    value = span.scalar
    if value is None:
        return None
    value = " ".join(value.split())
    return value if len(value) <= DETAIL_CHARS else value[: DETAIL_CHARS - 1] + "…"


def _key_symbol(span: Any, lines: Sequence[str]) -> MarkdownSymbol:
    key, value = span.key_range, span.value_range
    end_line, end_column = value.end_line, value.end_column
    # A block value's range ends at the start of the next line: end on the line before.
    if end_column == 0 and end_line > key.line:
        end_line -= 1
        end_column = len(lines[end_line]) if end_line < len(lines) else 0
    if (end_line, end_column) < (key.end_line, key.end_column):
        end_line, end_column = key.end_line, key.end_column
    children = tuple(_key_symbol(child, lines) for child in span.children.values())
    return MarkdownSymbol(
        name=span.key,
        detail=_value_detail(span),
        kind="key",
        range=SourceRange(key.line, key.column, end_line, end_column),
        selection_range=key,
        children=children,
    )


def _frontmatter_symbol(snapshot: Snapshot) -> MarkdownSymbol | None:
    if snapshot.kind != DocumentKind.SKILL_MD:
        return None
    parsed = snapshot.skill_md
    end = parsed.frontmatter_end_line
    if end is None or end >= len(snapshot.lines):
        return None
    lines = snapshot.lines
    keys = tuple(_key_symbol(span, lines) for span in parsed.fields.values())
    return MarkdownSymbol(
        name="frontmatter",
        detail=f"{len(keys)} keys",
        kind="frontmatter",
        range=SourceRange(0, 0, end, len(lines[end])),
        selection_range=SourceRange(0, 0, 0, len(lines[0])),
        children=keys,
    )


def document_symbols(snapshot: Snapshot) -> list[MarkdownSymbol] | None:
    """The outline of a SKILL.md or reference file (None for other documents)."""
    if _place(snapshot) is None:
        return None
    frontmatter = _frontmatter_symbol(snapshot)
    return ([frontmatter] if frontmatter else []) + _heading_symbols(snapshot)


def folding_ranges(snapshot: Snapshot, limit: int | None = None) -> list[types.FoldingRange] | None:
    """Folding ranges (whole lines) of a SKILL.md or reference file: the frontmatter,
    sections, fenced code blocks; at most ``limit`` of them (the client's range limit).
    None for other documents."""
    from skill_lsp.skill_md_links import scan_of

    place = _place(snapshot)
    if place is None:
        return None
    lines = snapshot.lines
    found: list[types.FoldingRange] = []
    frontmatter = _frontmatter_symbol(snapshot)
    if frontmatter is not None and frontmatter.range.end_line > 0:
        found.append(
            types.FoldingRange(
                start_line=0,
                end_line=frontmatter.range.end_line,
                kind=types.FoldingRangeKind.Region,
            )
        )
    marks = headings(snapshot)
    for heading, end in zip(marks, _section_ends(marks, lines), strict=True):
        if end > heading.line:
            found.append(types.FoldingRange(start_line=heading.line, end_line=end))
    for start, end in _fences(scan_of(snapshot, place).code_lines, len(lines)):
        if end > start:
            found.append(types.FoldingRange(start_line=start, end_line=end))
    found.sort(key=lambda item: (item.start_line, -item.end_line))
    return found[:limit] if limit else found


def _fences(code_lines: set[int], count: int) -> list[tuple[int, int]]:
    """(opening line, closing line) of each fenced block, from the scan's code lines:
    a run of code lines starts at the opening fence; the closing fence is the line after
    the run (the last line when the block is never closed)."""
    blocks = []
    ordered = sorted(code_lines)
    position = 0
    while position < len(ordered):
        start = last = ordered[position]
        while position + 1 < len(ordered) and ordered[position + 1] == last + 1:
            position += 1
            last = ordered[position]
        blocks.append((start, min(last + 1, count - 1)))
        position += 1
    return blocks


# -- the disclosure-tier lens -------------------------------------------------------------

_HOST_NAMES = {"claude-code": "Claude Code", "codex": "Codex"}


def tier_lens_title(view: Any) -> str:
    """The lens text for a ``TierView``: tokens per tier and each host's listing share."""
    parts = [
        f"metadata ~{view.listing_tokens} tokens",
        f"body ~{view.body_tokens} tokens",
        f"files on demand ~{view.resource_tokens} tokens",
    ]
    for share in view.shares:
        host = _HOST_NAMES.get(share.host, share.host)
        parts.append(
            f"{host} listing budget {share.percent}% ({share.used}/{share.limit} {share.unit})"
        )
    if view.listing is None:
        parts.append("not listed: " + (view.listing_note or "no host would list it"))
    return " · ".join(parts)


def tier_lens(snapshot: Snapshot) -> list[types.CodeLens]:
    """The lens above a SKILL.md's opening line (none without a frontmatter or folder).

    Reads the folder (scripts, references) and runs the serving rules: call it off the
    event loop."""
    from skillkit_core.simulate.errors import SimulationError
    from skillkit_core.simulate.tiers import tier_view

    if snapshot.kind != DocumentKind.SKILL_MD or snapshot.folder is None:
        return []
    if not snapshot.lines or snapshot.lines[0].strip() != "---":
        return []
    try:
        view = tier_view(snapshot.folder, text=snapshot.text)
    except SimulationError:
        return []
    where = types.Range(types.Position(0, 0), types.Position(0, 0))
    # A click shows the details: ``skillkit preview`` of the folder, on the unsaved text.
    command = types.Command(
        title=tier_lens_title(view), command="skillkit.preview", arguments=[{"uri": snapshot.uri}]
    )
    return [types.CodeLens(range=where, command=command, data={"action": "tiers"})]

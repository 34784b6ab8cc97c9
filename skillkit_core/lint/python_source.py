"""Python source for the workflow linter: texts, syntax trees, comments, callables.

:class:`SourceFiles` reads each file a check needs once and keeps its text, the core's
syntax index, Python's syntax tree and its suppression comments. The helpers below find
the code of a callback (lambda or ``def``) in that tree and read compiled code when the
source is not available.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from types import CodeType
from typing import TYPE_CHECKING, Any

from skillkit_core.lint.diagnostic import SourceRange

if TYPE_CHECKING:
    from skillkit_core.manifest.markdown import Suppressions
    from skillkit_core.source.model import SourceIndex

LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PY_SUPPRESS = re.compile(r"#\s*skillkit:\s*ignore(-file)?(?:\[([^\]]*)\])?")
# Longest file a check reads for positions (larger files are linted without ranges).
_MAX_SOURCE_BYTES = 4 * 1024 * 1024


def file_key(file: str) -> str:
    """How two spellings of one file compare equal."""
    return os.path.normcase(os.path.abspath(file))


class SourceFiles:
    """Texts, syntax indexes, Python trees and suppressions of the files one check
    reads, each computed once (a composite and its sub-skills often share a file)."""

    def __init__(self) -> None:
        self._texts: dict[str, str | None] = {}
        self._indexes: dict[str, SourceIndex | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._lines: dict[str, list[str]] = {}
        self._suppressions: dict[str, Suppressions] = {}
        self._callables: dict[str, dict[int, list[ast.AST]]] = {}

    def provide(self, file: str, text: str, index: SourceIndex | None = None) -> None:
        """Use ``text`` (and its ``index``) for ``file`` instead of reading the disk."""
        key = file_key(file)
        self._texts[key] = text
        if index is not None:
            self._indexes[key] = index

    def text(self, file: str | None) -> str | None:
        """The file's text, or None when it cannot be read as UTF-8."""
        if file is None:
            return None
        key = file_key(file)
        if key not in self._texts:
            self._texts[key] = _read_source(file)
        return self._texts[key]

    def index(self, file: str | None) -> SourceIndex | None:
        """The syntax index of the file (None when it cannot be read)."""
        if file is None:
            return None
        key = file_key(file)
        if key not in self._indexes:
            text = self.text(file)
            if text is None or not file.endswith(".py"):
                self._indexes[key] = None
            else:
                from skillkit_core.source.index import index_source

                self._indexes[key] = index_source(text)
        return self._indexes[key]

    def tree(self, file: str | None) -> ast.Module | None:
        """The Python syntax tree of the file (None when unreadable or not Python)."""
        if file is None:
            return None
        key = file_key(file)
        if key not in self._trees:
            text = self.text(file)
            try:
                self._trees[key] = ast.parse(text) if text is not None else None
            except (SyntaxError, ValueError):
                self._trees[key] = None
        return self._trees[key]

    def lines(self, file: str | None) -> list[str]:
        """The file's lines (split the way the core counts lines)."""
        if file is None:
            return []
        key = file_key(file)
        if key not in self._lines:
            text = self.text(file)
            self._lines[key] = LINE_BREAK.split(text) if text is not None else []
        return self._lines[key]

    def suppressions(self, file: str) -> Suppressions:
        """``skillkit: ignore[...]`` markers of the file (Python comments or markdown)."""
        key = file_key(file)
        if key not in self._suppressions:
            from skillkit_core.manifest.markdown import NO_SUPPRESSIONS, find_suppressions

            text = self.text(file)
            if text is None:
                found = NO_SUPPRESSIONS
            elif file.endswith(".py"):
                found = python_suppressions(text)
            else:
                found = find_suppressions(LINE_BREAK.split(text))
            self._suppressions[key] = found
        return self._suppressions[key]

    def functions_at(self, file: str, line: int) -> list[ast.AST]:
        """Lambdas and ``def``s of the file whose code starts on 1-based ``line``."""
        key = file_key(file)
        if key not in self._callables:
            table: dict[int, list[ast.AST]] = {}
            tree = self.tree(file)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
                    starts = {node.lineno}
                    if not isinstance(node, ast.Lambda):
                        starts.update(d.lineno for d in node.decorator_list)
                    for start in starts:
                        table.setdefault(start, []).append(node)
            self._callables[key] = table
        return self._callables[key].get(line, [])

    def ast_range(self, file: str, node: ast.AST) -> SourceRange | None:
        """A syntax-tree node's span in code points (the tree counts UTF-8 bytes)."""
        lines = self.lines(file)
        start_line = getattr(node, "lineno", None)
        end_line = getattr(node, "end_lineno", None)
        if start_line is None or end_line is None or end_line > len(lines):
            return None
        return SourceRange(
            start_line - 1,
            _code_points(lines[start_line - 1], node.col_offset),  # type: ignore[attr-defined]
            end_line - 1,
            _code_points(lines[end_line - 1], node.end_col_offset or 0),  # type: ignore[attr-defined]
        )

    def text_at(self, file: str | None, where: SourceRange) -> str | None:
        """The text a range covers."""
        lines = self.lines(file)
        if where.end_line >= len(lines) or where.line > where.end_line:
            return None
        if where.line == where.end_line:
            return lines[where.line][where.column : where.end_column]
        parts = [lines[where.line][where.column :]]
        parts.extend(lines[where.line + 1 : where.end_line])
        parts.append(lines[where.end_line][: where.end_column])
        return "\n".join(parts)


def _code_points(line: str, byte_column: int) -> int:
    if line.isascii():
        return byte_column
    return len(line.encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "replace"))


def python_suppressions(text: str) -> Suppressions:
    """``# skillkit: ignore[rule, ...]`` comments of Python source.

    A marker covers its own line; a comment alone on its line also covers the next line;
    ``# skillkit: ignore-file[rule]`` covers the whole file; no brackets means every rule.
    Only real comments count (tokenized), so a string that mentions the marker does not.
    """
    from skillkit_core.manifest.markdown import NO_SUPPRESSIONS, Suppressions

    if "skillkit" not in text:
        return NO_SUPPRESSIONS
    by_line: dict[int, set[str]] = {}
    file_wide: set[str] = set()
    for line, column, comment in _comments(text):
        for match in _PY_SUPPRESS.finditer(comment):
            ids = _rule_ids(match.group(2))
            if match.group(1):
                file_wide |= ids
                continue
            by_line.setdefault(line, set()).update(ids)
            if column == _indent(text, line):
                by_line.setdefault(line + 1, set()).update(ids)
    if not by_line and not file_wide:
        return NO_SUPPRESSIONS
    return Suppressions({k: frozenset(v) for k, v in by_line.items()}, frozenset(file_wide))


def _indent(text: str, line: int) -> int:
    lines = LINE_BREAK.split(text)
    if line >= len(lines):
        return -1
    return len(lines[line]) - len(lines[line].lstrip())


def _comments(text: str) -> Iterator[tuple[int, int, str]]:
    """(0-based line, column, text) of each comment; a line scan when tokenizing fails."""
    import io
    import tokenize

    found: list[tuple[int, int, str]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start[0] - 1, token.start[1], token.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        found = []
        for line, content in enumerate(LINE_BREAK.split(text)):
            column = content.find("#")
            if column >= 0:
                found.append((line, column, content[column:]))
    yield from found


def _rule_ids(text: str | None) -> set[str]:
    if text is None:
        return {"*"}
    return {part.strip() for part in text.split(",") if part.strip()}


# ---------------------------------------------------------------- callables


@dataclass(frozen=True)
class CallableSource:
    """Where a callable's code is written: its file and its syntax-tree node."""

    file: str
    node: ast.AST


def unwrap_callable(fn: Any) -> Any:
    """The author's function behind wrappers (``__wrapped__`` chains)."""
    seen = 0
    while hasattr(fn, "__wrapped__") and seen < 20:
        fn = fn.__wrapped__
        seen += 1
    return fn


def code_of(fn: Any) -> CodeType | None:
    """The code object of a plain function or lambda (None for other callables)."""
    code = getattr(unwrap_callable(fn), "__code__", None)
    return code if isinstance(code, CodeType) else None


def code_names(fn: Any) -> set[str]:
    """Every name (attributes, globals) the callable's code uses, nested code included."""
    code = code_of(fn)
    names: set[str] = set()
    stack = [code] if code is not None else []
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if isinstance(c, CodeType))
    return names


def string_constants(node: ast.AST) -> set[str]:
    return {
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def _read_source(file: str) -> str | None:
    """The text of ``file`` with universal newlines, as ``open`` reads it; ``None`` when
    it is too large, not UTF-8, or no regular file (a finding may name a FIFO under
    references/, which ``open`` would wait on for good)."""
    from skillkit_core.regular_file import read_whole_file

    try:
        data = read_whole_file(file, _MAX_SOURCE_BYTES)
        if data is None:
            return None
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")

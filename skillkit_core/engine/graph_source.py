"""What a ``next`` callable returns, read from its source file with the core's syntax index.

The index (``skillkit_core.source``) records the literals a ``next`` lambda's body or a
``next`` def's ``return`` statements give (role ``next-return``), and whether those are
all it can return. This module matches a compiled callable to that record by the
positions of its string constants. It imports tree-sitter (through the index), so only
tooling reaches it: the engine's own graph reads compiled code alone.
"""

from __future__ import annotations

import os
from types import CodeType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillkit_core.definitions import SkillDefinition
    from skillkit_core.engine.graph import SkillGraph

_MAX_FILES = 64


def analyze_source(definition: SkillDefinition) -> SkillGraph:
    """The definition's graph with ``next`` callables read from their source files
    (what the linter, preview, simulation and graph drawing use)."""
    from skillkit_core.engine.graph import analyze

    return analyze(definition, reader=source_returns)


_cache: dict[str, tuple[tuple[int, int], Any]] = {}


def source_returns(code: CodeType) -> tuple[set[str], bool] | None:
    """``(returned literals, whether they are all it returns)`` for the callable compiled
    to ``code``, or None when its file cannot be read or the index has no record of it
    as a ``next`` (then the caller reads the compiled code instead)."""
    found = _indexed(code.co_filename)
    if found is None:
        return None
    index, lines = found
    loads = _string_loads(code, lines)
    if not loads:
        return None
    complete = _record(code, index, loads[0][0])
    if complete is None:
        return None
    returned = _returned_positions(index)
    strings = {value for position, value in loads if returned.get(position) == value}
    if complete and not strings:
        return None  # the file changed since the code was compiled: trust neither
    return strings, complete


def _indexed(path: str) -> tuple[Any, Any] | None:
    """The syntax index and line table of a ``.py`` file, cached while it is unchanged."""
    if not path.endswith(".py"):
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    value = _index_file(path)
    if len(_cache) >= _MAX_FILES:
        _cache.pop(next(iter(_cache)))
    _cache[path] = (stamp, value)
    return value


def _index_file(path: str) -> tuple[Any, Any] | None:
    from skillkit_core.source.index import MAX_INDEX_BYTES, index_source
    from skillkit_core.source.positions import LineTable, encode

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(MAX_INDEX_BYTES + 1).removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return None
    index = index_source(text)
    if index.too_large:
        return None
    return index, LineTable(encode(text))


def _string_loads(code: CodeType, lines: Any) -> list[tuple[tuple[int, int], str]]:
    """``((line, code-point column), value)`` of each string constant ``code`` loads."""
    import dis

    loads = []
    for ins in dis.get_instructions(code):
        if ins.opname not in ("LOAD_CONST", "RETURN_CONST") or not isinstance(ins.argval, str):
            continue
        where = ins.positions
        if where is None or where.lineno is None or where.col_offset is None:
            continue
        line = where.lineno - 1
        if not 0 <= line < lines.line_count:
            continue
        start, end = lines.line_bounds(line)
        loads.append((lines.position(min(start + where.col_offset, end)), ins.argval))
    return loads


def _record(code: CodeType, index: Any, position: tuple[int, int]) -> bool | None:
    """Whether the index knows every value the callable returns (None: no record of it
    as a ``next``, e.g. a lambda stored in a variable or a def used only elsewhere)."""
    from skillkit_core.source.model import NextKind

    if code.co_name != "<lambda>":
        for function in index.functions:
            named = function.name == code.co_name and function.used_as_next
            if named and _contains(function.range, position):
                return function.returns_known
        return None
    for step in index.steps:
        if step.next is not NextKind.CALLABLE:
            continue
        argument = next((a for a in step.arguments if a.name == "next"), None)
        if argument is not None and _contains(argument.value_range, position):
            return step.next_known
    return None


def _returned_positions(index: Any) -> dict[tuple[int, int], str]:
    """Start of each literal a ``next`` callable returns, with its full string value."""
    from skillkit_core.source.model import Role, Target

    prefixes = {Target.SUBSKILL: "subskill:", Target.TOPIC: "topic:"}
    return {
        (ref.range.line, ref.range.column): prefixes.get(ref.target, "") + ref.name
        for ref in index.refs
        if ref.role is Role.NEXT_RETURN
    }


def _contains(span: Any, position: tuple[int, int]) -> bool:
    return (span.line, span.column) <= position <= (span.end_line, span.end_column)

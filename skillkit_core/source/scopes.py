"""Which step argument, chain argument or ``def`` a byte offset sits in.

Scopes come from a syntax tree, so any two of them are nested or disjoint; the innermost
one containing an offset is found by bisecting the starts and climbing parent links.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal

ScopeKind = Literal["step", "chain", "standalone", "def"]


@dataclass
class Scope:
    """A span whose contents belong to one owner; ``slots`` name its keyword arguments."""

    kind: ScopeKind
    start: int
    end: int
    key: int | str  # step index / chain index / standalone index / def name
    slots: list[tuple[str, int, int]]  # (keyword, value start, value end)
    default_slot: str = ""

    def slot_at(self, offset: int) -> str:
        """The keyword argument whose value holds ``offset`` (or the default slot)."""
        for name, start, end in self.slots:
            if start <= offset < end:
                return name
        return self.default_slot


class ScopeTable:
    """Innermost-scope lookups over properly nested spans."""

    def __init__(self, scopes: list[Scope]) -> None:
        # Outer scopes first when two start at the same byte, so inner ones win.
        self._scopes = sorted(scopes, key=lambda scope: (scope.start, -scope.end))
        self._starts = [scope.start for scope in self._scopes]
        self._parents: list[int] = []
        stack: list[int] = []
        for position, scope in enumerate(self._scopes):
            while stack and self._scopes[stack[-1]].end <= scope.start:
                stack.pop()
            self._parents.append(stack[-1] if stack else -1)
            stack.append(position)

    def innermost(self, offset: int) -> Scope | None:
        """The innermost scope containing byte ``offset`` (start inclusive, end exclusive)."""
        position = bisect_right(self._starts, offset) - 1
        while position >= 0:
            scope = self._scopes[position]
            if scope.start <= offset < scope.end:
                return scope
            position = self._parents[position]
        return None

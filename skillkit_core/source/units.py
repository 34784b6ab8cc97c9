"""The working data of an extraction, and the step units one version hands the next."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skillkit_core.source.model import (
    ActCall,
    Argument,
    ChainCall,
    ChainInfo,
    Declaration,
    FunctionInfo,
    StepInfo,
    StepRef,
    ToolGuard,
)
from skillkit_core.source.nodes import Args
from skillkit_core.source.positions import LineTable


class LazyArguments:
    """Builds the `Argument`s of one call when first asked (see ``_HasArguments``).

    Holds byte spans and literals only, never tree nodes, so a reused step does not keep
    an old tree alive.
    """

    __slots__ = ("_items", "_lines")

    def __init__(
        self,
        items: tuple[tuple[str | None, tuple[int, int], tuple[int, int], Any], ...],
        lines: LineTable,
    ) -> None:
        self._items = items
        self._lines = lines

    def __call__(self) -> tuple[Argument, ...]:
        return tuple(
            Argument(name=name, _span=span, _value_span=value_span, _lines=self._lines, _raw=raw)
            for name, span, value_span, raw in self._items
        )


@dataclass
class Segment:
    """A run of chained builder calls: ``root.m1(...).m2(...)`` down to its root."""

    top: Any  # the outermost call
    root: Any  # a builder call, an identifier, or anything else
    methods: list[tuple[str, Any, Any]]  # (method, call node, attribute node), source order


@dataclass
class RawChain:
    """A builder chain while it is being collected."""

    kind: str
    root: Any
    args: Args
    var: str | None
    names: list[str]
    statement: tuple[int, int]
    spans: list[tuple[int, int]]
    methods: list[tuple[str, Any, Any]] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    declarations: list[Declaration] = field(default_factory=list)
    registrations: list[tuple[Any, Args, Any]] = field(default_factory=list)
    built: bool = False


@dataclass
class RawStep:
    """A ``.step``/``.extend`` call while it is being collected."""

    index: int
    chain: int
    method: str
    call: Any
    attribute: Any
    start: int  # the dot
    key: tuple[Any, ...] = ()
    args: Args | None = None  # read only when the step is extracted afresh
    unit: StepUnit | None = None


@dataclass
class StepUnit:
    """Everything lexically inside one step call; reusable while its key is unchanged."""

    info: StepInfo | None
    call: ChainCall
    refs: list[StepRef]
    acts: list[ActCall]
    guards: list[ToolGuard]
    def_uses: list[tuple[str, str]]  # (def name, keyword it is used in)
    keywords: frozenset[str]
    base: str | None  # the base step variable of ``.extend``
    next_def: str | None  # a def of this file used as ``next=``


@dataclass
class Standalone:
    """A reusable ``step(...)`` value assigned to a variable (the base of ``.extend``)."""

    var: str | None
    call: Any
    args: Args


@dataclass
class Extraction:
    """The frozen parts of an index, and the step units to reuse next time."""

    chains: list[ChainInfo]
    steps: list[StepInfo]
    refs: list[StepRef]
    act_calls: list[ActCall]
    tool_guards: list[ToolGuard]
    functions: list[FunctionInfo]
    units: dict[tuple[Any, ...], StepUnit]

"""The frozen values a source index is made of.

Everything here is plain data: positions are `SourceRange`s (0-based lines, columns in
code points), cross references are indexes into the tuples of `SourceIndex`. Nothing in
this module imports tree-sitter, so reading an index costs nothing beyond the index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, Literal

from skillkit_core.lint.diagnostic import SourceRange


class Role(StrEnum):
    """What a string (or the string under the cursor) means to a skill."""

    DEFINITION = "definition"  # .step("x") / .extend("x")
    ENTRY = "entry"  # skill(entry="x") / module(entry="x")
    NEXT = "next"  # next="x" (also .register(m, next="x"))
    BRANCH = "branch"  # branch("x") / branch(to="x")
    ON_MAX_VISITS = "on-max-visits"
    NEXT_RETURN = "next-return"  # a literal a `next` callable returns
    STORE_SUBSCRIPT = "store-subscript"  # ctx.store.steps["x"]
    STORE_GET = "store-get"  # ctx.store.steps.get("x")
    STORE_ALL = "store-all"  # ctx.store.steps.all("x")
    STORE_RAN = "store-ran"  # ctx.store.steps.ran("x")
    TOOL_GUARD = "tool-guard"  # "X" in ctx.host.tools_available
    SUBSKILL_NAME = "subskill-name"  # .subskill("x", ...)
    TOPIC_NAME = "topic-name"  # .topic("x", ...)
    ACT_MEMBER = "act-member"  # act.<cursor>


#: Roles of strings that are transitions (edges of the step graph).
TRANSITION_ROLES = frozenset(
    {Role.ENTRY, Role.NEXT, Role.BRANCH, Role.ON_MAX_VISITS, Role.NEXT_RETURN}
)
#: Roles of store reads.
STORE_ROLES = frozenset({Role.STORE_SUBSCRIPT, Role.STORE_GET, Role.STORE_ALL, Role.STORE_RAN})


class Target(StrEnum):
    """What kind of thing a step-naming string points at."""

    STEP = "step"
    SUBSKILL = "subskill"  # "subskill:x"
    TOPIC = "topic"  # "topic:x"
    SELF = "self"  # "self": the step that owns the transition
    PARENT = "parent"  # "__parent__": the sentinel rewritten by .register/.extend


class PromptKind(StrEnum):
    """The shape of a step's ``prompt=`` argument, as far as syntax tells."""

    STRING = "string"
    ACT = "act"  # one act.<primitive>(...) call
    CALLABLE = "callable"  # a lambda or a function of this file
    LIST = "list"
    PIECE = "piece"  # system(...), view(...), prompt(...), fragment(...)
    EXPRESSION = "expression"  # anything else (a name imported from elsewhere, ...)
    MISSING = "missing"


class NextKind(StrEnum):
    """The shape of a step's ``next=`` argument."""

    STRING = "string"
    BRANCHES = "branches"
    CALLABLE = "callable"
    TERMINAL = "terminal"
    PARENT = "parent"
    EXPRESSION = "expression"
    MISSING = "missing"


ChainKind = Literal["skill", "module", "reference"]


@dataclass(frozen=True)
class StringLit:
    """A string literal: its decoded value (None for bytes or f-strings with fields)."""

    value: str | None
    range: SourceRange  # prefix and quotes included
    inner: SourceRange  # between the quotes
    prefix: str = ""  # lower-cased string prefix: "", "f", "r", "rb", ...
    terminated: bool = True


@dataclass(frozen=True, eq=False)
class Argument:
    """One argument of a call: positional when ``name`` is None.

    Steps have many arguments and few are ever looked at, so an argument keeps byte
    spans of the text it was read from and converts them when asked. Two arguments are
    equal when they have the same name, text and ranges.
    """

    name: str | None
    _span: tuple[int, int] = field(repr=False)  # bytes of ``name=value`` in that text
    _value_span: tuple[int, int] = field(repr=False)
    _lines: Any = field(repr=False)  # the LineTable of that text
    _raw: Any = field(default=None, repr=False)  # a RawString when the value is a literal

    @property
    def text(self) -> str:
        """Source text of the value."""
        return self._lines.text(*self._value_span)

    @property
    def range(self) -> SourceRange:
        """The whole argument, ``name=`` included."""
        return self._lines.range(*self._span)

    @property
    def value_range(self) -> SourceRange:
        """The value only."""
        return self._lines.range(*self._value_span)

    @property
    def string(self) -> StringLit | None:
        """The value as a string literal, when it is one."""
        raw = self._raw
        if raw is None:
            return None
        return StringLit(
            value=raw.value,
            range=self._lines.range(raw.start, raw.end),
            inner=self._lines.range(raw.inner_start, raw.inner_end),
            prefix=raw.prefix,
            terminated=raw.terminated,
        )

    def _key(self) -> tuple[object, ...]:
        return (self.name, self.text, self.range, self.value_range)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Argument) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


class _HasArguments:
    """Arguments built on first access: most consumers never look at them."""

    _arguments: Callable[[], tuple[Argument, ...]] | None

    @cached_property
    def arguments(self) -> tuple[Argument, ...]:
        """The call's arguments in source order."""
        return self._arguments() if self._arguments is not None else ()


@dataclass(frozen=True)
class Owner:
    """Where a string or call sits: which chain, which step, which keyword argument."""

    chain: int | None
    step: int | None  # index into SourceIndex.steps
    slot: str  # "prompt", "next", "save", "action", "name", "entry", ...


@dataclass(frozen=True)
class StepRef:
    """A string that names a step (or a sub-skill / topic route, or ``self``)."""

    name: str
    role: Role
    target: Target
    range: SourceRange  # the whole literal
    inner: SourceRange  # between the quotes
    name_range: SourceRange  # the name only (after ``subskill:`` / ``topic:``)
    chain: int | None  # the chain it is written in, when lexically inside one
    owners: tuple[Owner, ...] = ()
    function: str | None = None  # the ``def`` it is written in, when any


@dataclass(frozen=True)
class ChainCall(_HasArguments):
    """One chained builder call: ``.step(...)``, ``.extend(...)``, ``.build()``, ..."""

    method: str
    range: SourceRange  # from the dot to the closing parenthesis
    method_range: SourceRange
    _arguments: Callable[[], tuple[Argument, ...]] | None = field(
        default=None, repr=False, compare=False
    )


@dataclass(frozen=True)
class StepInfo(_HasArguments):
    """One ``.step(...)`` / ``.extend(...)`` of a chain."""

    index: int
    name: str | None  # None when the name is not a string literal
    name_string: StringLit | None
    chain: int
    method: Literal["step", "extend"]
    range: SourceRange  # ``.step(...)`` from the dot to the closing parenthesis
    method_range: SourceRange
    prompt: PromptKind
    primitives: tuple[str, ...]  # act primitives used by the prompt, in order
    response: str | None  # source text of ``response=``
    next: NextKind
    next_known: bool  # every target of ``next`` is known from literals
    max_visits: str | None
    on_max_visits: StepRef | None
    base: str | None  # the base step expression of ``.extend``
    recovered: bool = False  # found by text in a region the parser could not read
    _arguments: Callable[[], tuple[Argument, ...]] | None = field(
        default=None, repr=False, compare=False
    )


@dataclass(frozen=True)
class Declaration(_HasArguments):
    """A ``.subskill("x", definition)`` or ``.topic("x", ...)`` on a chain."""

    kind: Literal["subskill", "topic"]
    name: str | None
    name_string: StringLit | None
    chain: int
    range: SourceRange
    _arguments: Callable[[], tuple[Argument, ...]] | None = field(
        default=None, repr=False, compare=False
    )


@dataclass(frozen=True)
class Registration:
    """A ``.register(module_def, next=...)`` on a chain."""

    module: str  # source text of the module expression
    module_chain: int | None  # the module chain of this file it names, when resolved
    next: StepRef | None
    range: SourceRange


@dataclass(frozen=True)
class ChainInfo(_HasArguments):
    """A ``skill(...)``, ``module(...)`` or ``reference(...)`` builder and its calls."""

    index: int
    kind: ChainKind
    var: str | None  # the variable the chain (or its built value) is first assigned to
    names: tuple[str, ...]  # every variable bound to this chain
    name: StringLit | None  # name="..."
    entry: StepRef | None
    range: SourceRange  # the root call, e.g. ``skill(...)``
    statement_range: SourceRange  # the first statement (assignment or expression)
    extent: SourceRange  # from the first statement to the end of the last continuation
    calls: tuple[ChainCall, ...]
    steps: tuple[int, ...]
    subskills: tuple[Declaration, ...]
    topics: tuple[Declaration, ...]
    registrations: tuple[Registration, ...]
    built: bool
    complete: bool  # every step name is a literal and every registered module resolved
    has_errors: bool  # a syntax error lies inside the chain's text

    _arguments: Callable[[], tuple[Argument, ...]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def display_name(self) -> str:
        """The skill's name when literal, else its variable, else its kind."""
        if self.name is not None and self.name.value:
            return self.name.value
        return self.var or self.kind


@dataclass(frozen=True)
class OptionValue:
    """One ``{"value": "x", ...}`` option of ``act.ask_user``."""

    value: str | None
    range: SourceRange
    inner: SourceRange


@dataclass(frozen=True)
class ActCall(_HasArguments):
    """An ``act.<primitive>(...)`` call (also ``ctx.act.<primitive>(...)``)."""

    primitive: str
    range: SourceRange
    name_range: SourceRange  # the primitive's identifier
    options: tuple[OptionValue, ...]
    owners: tuple[Owner, ...]
    function: str | None = None
    _arguments: Callable[[], tuple[Argument, ...]] | None = field(
        default=None, repr=False, compare=False
    )


@dataclass(frozen=True)
class ToolGuard:
    """A host tool check such as ``"Bash" in ctx.host.tools_available``."""

    tool: str | None
    form: Literal["in", "not in", "count", "index"]
    range: SourceRange  # the tool-name literal
    inner: SourceRange
    expression_range: SourceRange  # the whole check
    scope: SourceRange | None  # the code the check guards (if-body, true branch, ...)
    owners: tuple[Owner, ...]
    function: str | None = None


@dataclass(frozen=True)
class FunctionInfo:
    """A ``def`` of the file that steps use (as a callback, or called from one)."""

    name: str
    range: SourceRange
    name_range: SourceRange
    returns: tuple[StepRef, ...]  # literal step names it returns (when used as ``next``)
    returns_known: bool  # every ``return`` gives a literal
    used_as_next: bool
    owners: tuple[Owner, ...]


@dataclass(frozen=True)
class Symbol:
    """A document symbol: a chain with its steps, topics and sub-skills as children."""

    name: str
    kind: Literal["skill", "module", "reference", "step", "subskill", "topic"]
    detail: str
    range: SourceRange
    selection_range: SourceRange
    children: tuple[Symbol, ...] = ()


@dataclass(frozen=True)
class CursorContext:
    """What the cursor is in, for completion: which role, what is typed, what to replace."""

    role: Role
    prefix: str  # text typed between the opening quote (or ``act.``) and the cursor
    replace: SourceRange  # the span a completion should replace (the string's content)
    chain: int | None
    step: int | None
    ref: StepRef | None = None
    tool_guard: ToolGuard | None = None
    terminated: bool = True


@dataclass(frozen=True)
class SourceIndex:
    """The syntax index of one skill source text. Immutable; share it freely."""

    text: str
    chains: tuple[ChainInfo, ...] = ()
    steps: tuple[StepInfo, ...] = ()
    refs: tuple[StepRef, ...] = ()  # every step-naming string, in document order
    act_calls: tuple[ActCall, ...] = ()
    tool_guards: tuple[ToolGuard, ...] = ()
    functions: tuple[FunctionInfo, ...] = ()
    has_errors: bool = False
    too_large: bool = False
    # Parse state kept for the next incremental re-index; not part of the value.
    _state: Any = field(default=None, repr=False, compare=False)

    def steps_of(self, chain: int) -> tuple[StepInfo, ...]:
        """The steps of chain number ``chain``, in source order."""
        return tuple(self.steps[i] for i in self.chains[chain].steps)

"""What routing reads: the closed response and params fields that can change where a run
goes, and the steps whose answers routing reads although they have no response schema.

Routing is each step's callable ``next`` and branch conditions. Their compiled code
(nested functions, and module functions or closures they call, a few levels deep) gives
the names they read: attributes (``ctx.response.verdict``, ``.change``) and string
constants (``steps["scope"]``, ``r["verdict"]``). A ``Literal``/``Enum``/``bool`` field
(see :func:`~skillkit_core.simulate.examples.choice_points`) is a *routing choice* when
routing can read it: by the step's own routing through ``ctx.response``, or by any
routing through the store, naming the step; a params field when routing reads
``ctx.params``. Reading names is an over-approximation (a field of the same name read
from elsewhere counts too): simulation then tries a value more, never one less.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import CodeType, FunctionType
from typing import Any

from skillkit_core.definitions import SkillDefinition, StepDefinition
from skillkit_core.safe_text import code_span
from skillkit_core.simulate.examples import ChoicePoint, choice_points

PARAMS = "params"
"""The owner of a params field's routing choice."""
_DEPTH = 3
"""How many calls deep a routing callable's helpers are read."""


@dataclass(frozen=True)
class Reads:
    """What one callable's code can read: attribute and global names, string constants,
    and the step names it reads from the store (``steps["x"]``, ``steps.get("x")``)."""

    names: frozenset[str]
    strings: frozenset[str]
    steps: frozenset[str] = frozenset()

    def reads_step(self, step: str) -> bool:
        return step in self.steps

    def reads_field(self, name: str) -> bool:
        return name in self.names or name in self.strings


@dataclass(frozen=True)
class RoutingChoice:
    """A closed field whose value routing reads."""

    owner: str
    """The step answering it (``sub/step`` in a sub-skill), or ``params``."""
    point: ChoicePoint
    readers: tuple[str, ...]
    """The steps whose routing reads it."""
    later: bool = False
    """Read through the store (or params), so it may decide a later step's way, not only
    the way out of the step that answers it."""

    @property
    def label(self) -> str:
        return f"{self.owner}.{self.point.label}"


@dataclass(frozen=True)
class SchemaGap:
    """A step without a response schema whose answer routing reads."""

    step: str
    reader: str
    """The step whose routing reads it."""
    how: str
    """``ctx.response`` (its own routing) or ``the store``."""

    def describe(self) -> str:
        reader = code_span(self.reader)
        where = "its own routing" if self.reader == self.step else f"the routing of {reader}"
        return (
            f"{code_span(self.step)} has no response schema, but {where} reads its answer through "
            f"{self.how}: the simulation could only answer `{{}}`; give the step a response "
            "model"
        )


@dataclass(frozen=True)
class Routing:
    """The routing choices and schema gaps of a skill and its sub-skills."""

    choices: tuple[RoutingChoice, ...] = ()
    gaps: tuple[SchemaGap, ...] = ()

    def of_step(self, step: str) -> list[RoutingChoice]:
        return [c for c in self.choices if c.owner == step]

    @property
    def params(self) -> list[RoutingChoice]:
        return [c for c in self.choices if c.owner == PARAMS]


def routing(definition: SkillDefinition) -> Routing:
    """The routing choices and schema gaps of ``definition`` (sub-skills' steps prefixed)."""
    choices: list[RoutingChoice] = []
    gaps: list[SchemaGap] = []
    skills = [("", definition)] + [(f"{s.name}/", s.definition) for s in definition.subskills]
    for prefix, skill in skills:
        readers = {name: step_reads(step) for name, step in skill.steps.items()}
        readers = {name: reads for name, reads in readers.items() if reads is not None}
        for name, step in skill.steps.items():
            choices += _step_choices(prefix, name, step, readers)
            gaps += _gaps(prefix, name, step, readers)
        if prefix == "" and skill.params is not None:
            choices += _params_choices(skill, readers)
    return Routing(tuple(choices), tuple(gaps))


def step_reads(step: StepDefinition) -> Reads | None:
    """What the step's routing (callable ``next`` and branch conditions) reads; ``None``
    when it has none (a literal ``next``)."""
    functions: list[Callable[..., Any]] = []
    if isinstance(step.next, tuple):
        functions = [arm.when for arm in step.next if arm.when is not None]
    elif callable(step.next) and not step.is_terminal:
        functions = [step.next]
    if not functions:
        return None
    names: set[str] = set()
    strings: set[str] = set()
    steps: set[str] = set()
    seen: set[int] = set()
    for function in functions:
        for code in code_closure(function, _DEPTH, seen):
            names.update(code.co_names)
            strings.update(c for c in code.co_consts if isinstance(c, str))
            steps.update(_store_keys(code))
    return Reads(frozenset(names), frozenset(strings), frozenset(steps))


_STORE_METHODS = frozenset({"get", "all", "ran"})


def _store_keys(code: CodeType) -> Iterator[str]:
    """The string constants ``code`` reads from ``steps``: a key right after ``steps``
    (``steps["x"]``) or after ``steps.get``/``.all``/``.ran`` (``steps.get("x")``)."""
    import dis

    before: list[str] = []  # the names the last two loads used
    for ins in dis.get_instructions(code):
        if ins.opname in ("CACHE", "EXTENDED_ARG", "PUSH_NULL", "NOP"):
            continue
        after_steps = before[-1:] == ["steps"] or (
            len(before) == 2 and before[0] == "steps" and before[1] in _STORE_METHODS
        )
        if ins.opname == "LOAD_CONST" and isinstance(ins.argval, str) and after_steps:
            yield ins.argval
        if ins.opname.startswith(("LOAD_ATTR", "LOAD_METHOD", "LOAD_FAST", "LOAD_NAME")):
            before = [*before[-1:], str(ins.argval)]
        else:
            before = []


def code_closure(function: Any, depth: int, seen: set[int]) -> Iterator[CodeType]:
    """The code of ``function``, its nested code, and that of the functions it can call
    (module globals and closure cells), ``depth`` calls deep."""
    function = inspect.unwrap(function)
    code = getattr(function, "__code__", None)
    if not isinstance(code, CodeType) or id(code) in seen:
        return
    seen.add(id(code))
    called: list[Any] = []
    for nested in _nested(code):
        yield nested
        globals_ = getattr(function, "__globals__", {})
        called += [globals_.get(name) for name in nested.co_names]
    for cell in getattr(function, "__closure__", None) or ():
        try:
            called.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    if depth > 0:
        for target in called:
            if isinstance(target, FunctionType):
                yield from code_closure(target, depth - 1, seen)


def _nested(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _nested(const)


def _step_choices(
    prefix: str, name: str, step: StepDefinition, readers: Mapping[str, Reads]
) -> list[RoutingChoice]:
    if step.response is None:
        return []
    found = []
    for point in choice_points(step.response):
        field = _field_name(point)
        if field is None:
            continue
        own = readers.get(name)
        by_response = own is not None and "response" in own.names and own.reads_field(field)
        by_store = [r for r, reads in readers.items() if reads.reads_step(name)]
        by_store = [r for r in by_store if readers[r].reads_field(field)]
        by = ([name] if by_response else []) + [r for r in by_store if r != name or not by_response]
        if by:
            readers_ = tuple(prefix + r for r in by)
            found.append(RoutingChoice(prefix + name, point, readers_, later=bool(by_store)))
    return found


def _params_choices(skill: SkillDefinition, readers: Mapping[str, Reads]) -> list[RoutingChoice]:
    assert skill.params is not None
    found = []
    for point in choice_points(skill.params):
        field = _field_name(point)
        by = [
            reader
            for reader, reads in readers.items()
            if field is not None and "params" in reads.names and reads.reads_field(field)
        ]
        if by:
            found.append(RoutingChoice(PARAMS, point, tuple(by), later=True))
    return found


def _gaps(
    prefix: str, name: str, step: StepDefinition, readers: Mapping[str, Reads]
) -> list[SchemaGap]:
    if step.response is not None or not step.has_prompt:
        return []
    found = []
    own = readers.get(name)
    if own is not None and "response" in own.names:
        found.append(SchemaGap(prefix + name, prefix + name, "`ctx.response`"))
    for reader, reads in readers.items():
        if reads.reads_step(name):
            found.append(SchemaGap(prefix + name, prefix + reader, f'`steps["{name}"]`'))
    return found


def _field_name(point: ChoicePoint) -> str | None:
    """The name routing would read the point by: the last field name on its path; ``None``
    for a point that is not a closed field (an empty list, an absent optional value)."""
    if point.values in (([],), (None,)):
        return None
    return next((part for part in reversed(point.path) if isinstance(part, str)), None)


def value_at(data: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path`` in JSON data, or ``MISSING``."""
    for key in path:
        if isinstance(data, dict) and str(key) in data:
            data = data[str(key)]
        elif isinstance(data, list) and isinstance(key, int) and key < len(data):
            data = data[key]
        else:
            return MISSING
    return data


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

"""Frozen data that describes a skill. Builders produce it; everything else reads it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Final

from skillkit_core.schema import Schema

PARENT: Final = "__parent__"
"""Sentinel ``next`` of a module or standalone step, rewritten by ``.register``/``.extend``."""

SUBSKILL_PREFIX: Final = "subskill:"
TOPIC_PREFIX: Final = "topic:"


class Terminal:
    """The ``terminal`` transition: the skill ends after this step."""

    _instance: Terminal | None = None

    def __new__(cls) -> Terminal:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "terminal"

    def __reduce__(self) -> str:
        return "terminal"


terminal: Final = Terminal()


@dataclass(frozen=True)
class Branch:
    """One arm of a declarative ``next``: go ``to`` a step when ``when(ctx)`` is true."""

    to: str
    when: Callable[[Any], Any] | None = None


def branch(to: str, when: Callable[[Any], Any] | None = None) -> Branch:
    """A branch of a declarative ``next`` list; first match wins, the last may omit ``when``."""
    from skillkit_core.errors import SkillDefinitionError

    if not isinstance(to, str) or not to:
        raise SkillDefinitionError(f"branch() needs a step name as 'to'; got {to!r}")
    if when is not None and not callable(when):
        raise SkillDefinitionError(f"branch('{to}', when=...) needs a callable; got {when!r}")
    return Branch(to, when)


NextSpec = str | Terminal | tuple[Branch, ...] | Callable[[Any], Any]


@dataclass(frozen=True)
class ActionDefinition:
    """A declared side effect: typed input and output around a sync or async ``run``."""

    name: str
    input: Schema | None
    output: Schema | None
    run: Callable[[Any], Any]


@dataclass(frozen=True)
class StepAction:
    """How a step uses an action: a declared one (with optional ``map_input``) or inline."""

    run: ActionDefinition | Callable[[Any], Any]
    map_input: Callable[[Any], Any] | None = None

    @property
    def declared(self) -> ActionDefinition | None:
        return self.run if isinstance(self.run, ActionDefinition) else None

    @property
    def name(self) -> str:
        if isinstance(self.run, ActionDefinition):
            return self.run.name
        return getattr(self.run, "__name__", "inline action")


@dataclass(frozen=True)
class StepDefinition:
    """One named step of a workflow."""

    name: str
    next: NextSpec
    prompt: Any = None
    response: Schema | None = None
    action: StepAction | None = None
    save: Callable[[Any], Any] | None = None
    max_visits: int | None = None
    on_max_visits: str | None = None

    @property
    def has_prompt(self) -> bool:
        return self.prompt is not None

    @property
    def is_terminal(self) -> bool:
        return self.next is terminal


@dataclass(frozen=True)
class StepTemplate:
    """A reusable step without a name (``step(...)``), placed with ``.extend``."""

    config: Mapping[str, Any]


@dataclass(frozen=True)
class Topic:
    """An on-demand piece of content: ``content`` is a string or ``ctx -> str``."""

    name: str
    label: str
    content: str | Callable[[Any], Any]


@dataclass(frozen=True)
class SkillMeta:
    """Frontmatter and packaging fields shared by workflow and reference skills."""

    description: str | None = None
    version: str | None = None
    resolve_version: bool = False
    triggers: tuple[str, ...] = ()
    argument_hint: str | None = None
    arguments: tuple[str, ...] | str | None = None
    allowed_tools: tuple[str, ...] = ()
    paths: tuple[str, ...] | str | None = None
    context: str | None = None
    license: str | None = None
    compatibility: str | None = None
    agent: str | None = None
    model: str | None = None
    effort: str | None = None
    disable_model_invocation: bool | None = None
    user_invocable: bool | None = None
    skill_md: str | Callable[[Any], str] | None = None
    package: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Subskill:
    """A skill registered under a composite dispatcher; ``params(response, store)`` maps."""

    name: str
    definition: SkillDefinition
    params: Callable[[Any, Any], Any] | None = None


def schema_uses(
    params: Schema | None,
    final_output: Schema | None,
    stores: Mapping[str, Schema],
    steps: Mapping[str, StepDefinition],
) -> list[tuple[str | None, str, Schema]]:
    """Every schema a skill uses, as ``(step name or None, what it types, schema)``: its
    params, final output and stores, each step's response and declared action's input
    and output."""
    found: list[tuple[str | None, str, Schema | None]] = [
        (None, "params", params),
        (None, "final_output", final_output),
        *((None, f"stores['{key}']", value) for key, value in stores.items()),
    ]
    for step in steps.values():
        found.append((step.name, "response", step.response))
        declared = step.action.declared if step.action is not None else None
        if declared is not None:
            found.append((step.name, f"action '{declared.name}' input", declared.input))
            found.append((step.name, f"action '{declared.name}' output", declared.output))
    return [(step, what, schema) for step, what, schema in found if schema is not None]


def _frozen_map(value: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    return MappingProxyType(dict(value or {}))


@dataclass(frozen=True)
class SkillDefinition:
    """A built workflow skill (possibly a composite dispatcher)."""

    name: str
    entry: str
    steps: Mapping[str, StepDefinition]
    system: str | None = None
    params: Schema | None = None
    stores: Mapping[str, Schema] = field(default_factory=_frozen_map)
    final_output: Schema | None = None
    observers: Mapping[str, Callable[[Any], Any]] = field(default_factory=_frozen_map)
    subskills: tuple[Subskill, ...] = ()
    topics: tuple[Topic, ...] = ()
    meta: SkillMeta = field(default_factory=SkillMeta)
    source_file: str | None = None
    problems: tuple[str, ...] = ()
    """Problems found by a lenient build (``.build(strict=False)``); empty when valid."""

    kind: ClassVar[str] = "skill"

    @property
    def is_composite(self) -> bool:
        return bool(self.subskills or self.topics)

    @property
    def description(self) -> str | None:
        return self.meta.description

    def subskill(self, name: str) -> Subskill | None:
        return next((s for s in self.subskills if s.name == name), None)

    def topic(self, name: str) -> Topic | None:
        return next((t for t in self.topics if t.name == name), None)


@dataclass(frozen=True)
class ModuleDefinition:
    """A group of steps registered into skills with ``.register(module, next=...)``."""

    name: str
    entry: str
    steps: Mapping[str, StepDefinition]


@dataclass(frozen=True)
class ReferenceDefinition:
    """A skill made only of on-demand topics."""

    name: str
    topics: tuple[Topic, ...]
    meta: SkillMeta = field(default_factory=SkillMeta)
    source_file: str | None = None
    problems: tuple[str, ...] = ()

    kind: ClassVar[str] = "reference"

    @property
    def description(self) -> str | None:
        return self.meta.description

    def topic(self, name: str) -> Topic | None:
        return next((t for t in self.topics if t.name == name), None)


AnyDefinition = SkillDefinition | ReferenceDefinition

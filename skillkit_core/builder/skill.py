"""The workflow builders: ``skill()``, ``step()``, ``module()`` and ``action()``."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any

from skillkit_core.builder.meta import caller_file, check_name, make_meta
from skillkit_core.builder.normalize import STEP_FIELDS, make_step, rewrite_parent
from skillkit_core.definitions import (
    PARENT,
    SUBSKILL_PREFIX,
    TOPIC_PREFIX,
    ActionDefinition,
    ModuleDefinition,
    SkillDefinition,
    StepDefinition,
    StepTemplate,
    Subskill,
    Topic,
    schema_uses,
)
from skillkit_core.errors import SkillDefinitionError, where
from skillkit_core.schema import Schema

OBSERVER_EVENTS = (
    "on_step_start",
    "on_step_complete",
    "on_step_validation_failed",
    "on_transition",
    "on_skill_complete",
)
_RESERVED_STORES = frozenset({"steps", "step", "get"})
_lenient = False


@contextmanager
def lenient_builds() -> Iterator[None]:
    """Within this block ``.build()`` records problems instead of raising (as with
    ``strict=False``). Editors use it to analyse a half-written skill module."""
    global _lenient
    previous, _lenient = _lenient, True
    try:
        yield
    finally:
        _lenient = previous


def strict_default(strict: bool | None) -> bool:
    """The effective strictness of a ``.build()`` call."""
    return (not _lenient) if strict is None else strict


def _step_config(**config: Any) -> dict[str, Any]:
    return {key: value for key, value in config.items() if value is not None}


class _StepCollector:
    """Shared by skills and modules: an ordered list of steps, duplicates kept for build."""

    _label: str

    def __init__(self) -> None:
        self._steps: list[StepDefinition] = []

    def _add(self, step: StepDefinition) -> None:
        self._steps.append(step)

    def _duplicate_problems(self) -> list[str]:
        seen: set[str] = set()
        problems = []
        for step in self._steps:
            if step.name in seen:
                problems.append(f"{where(self._label, step.name)}is defined twice; rename one")
            seen.add(step.name)
        return problems

    def _step_map(self) -> Mapping[str, StepDefinition]:
        steps: dict[str, StepDefinition] = {}
        for step in self._steps:
            steps.setdefault(step.name, step)
        return MappingProxyType(steps)


class SkillBuilder(_StepCollector):
    """Collects steps, sub-skills and topics; ``.build()`` checks and freezes them."""

    def __init__(self, name: str, entry: str, options: dict[str, Any]) -> None:
        super().__init__()
        self._label = name
        self._entry = entry
        self._options = options
        self._subskills: list[Subskill] = []
        self._topics: list[Topic] = []

    def step(
        self,
        name: str,
        *,
        next: Any,
        prompt: Any = None,
        response: Any = None,
        action: Any = None,
        save: Callable[[Any], Any] | None = None,
        max_visits: int | None = None,
        on_max_visits: str | None = None,
    ) -> SkillBuilder:
        """Add a step. See API.md for every option."""
        config = _step_config(
            prompt=prompt,
            response=response,
            action=action,
            save=save,
            max_visits=max_visits,
            on_max_visits=on_max_visits,
        )
        config["next"] = next
        self._add(make_step(self._label, name, config))
        return self

    def extend(self, name: str, base: StepTemplate, **overrides: Any) -> SkillBuilder:
        """Add a step that inherits ``base`` (a ``step(...)``) with ``overrides`` on top."""
        if not isinstance(base, StepTemplate):
            raise SkillDefinitionError(
                f"{where(self._label, name)}extend() needs a step(...) template as its base; "
                f"got {base!r}"
            )
        unknown = set(overrides) - STEP_FIELDS
        if unknown:
            raise SkillDefinitionError(
                f"{where(self._label, name)}unknown override(s) {', '.join(sorted(unknown))}"
            )
        self._add(make_step(self._label, name, {**base.config, **overrides}))
        return self

    def register(self, module_def: ModuleDefinition, *, next: str) -> SkillBuilder:
        """Merge a module's steps; its ``PARENT`` transitions go to ``next``."""
        if not isinstance(module_def, ModuleDefinition):
            raise SkillDefinitionError(
                f"{where(self._label)}register() needs a built module (module(...).build()); "
                f"got {module_def!r}"
            )
        if not isinstance(next, str) or not next:
            raise SkillDefinitionError(
                f"{where(self._label)}register({module_def.name!r}, next=...) needs a step name"
            )
        for step in module_def.steps.values():
            self._add(rewrite_parent(step, next))
        return self

    def subskill(
        self,
        name: str,
        definition: SkillDefinition,
        *,
        params: Callable[[Any, Any], Any] | None = None,
    ) -> SkillBuilder:
        """Register a sub-skill reachable with ``next`` = ``"subskill:<name>"``."""
        if not isinstance(name, str) or not name or "/" in name or ":" in name:
            raise SkillDefinitionError(
                f"{where(self._label)}sub-skill names must be non-empty without '/' or ':'; "
                f"got {name!r}"
            )
        if not isinstance(definition, SkillDefinition):
            raise SkillDefinitionError(
                f"{where(self._label)}subskill('{name}', ...) needs a built skill "
                f"(skill(...).build()); got {definition!r}"
            )
        if params is not None and not callable(params):
            raise SkillDefinitionError(
                f"{where(self._label)}subskill('{name}', params=...) must be a callable "
                "(response, store) -> params"
            )
        self._subskills.append(Subskill(name, definition, params))
        return self

    def topic(self, name: str, *, label: str, content: Any) -> SkillBuilder:
        """Register a topic reachable with ``next`` = ``"topic:<name>"``."""
        self._topics.append(make_topic(self._label, name, label, content))
        return self

    def build(self, *, strict: bool | None = None) -> SkillDefinition:
        """Check the whole skill and freeze it.

        With ``strict=False`` (used by editors to analyse half-written skills) problems are
        recorded on the definition's ``problems`` instead of raised.
        """
        problems = self._problems()
        if problems and strict_default(strict):
            raise SkillDefinitionError("\n".join(problems))
        opts = self._options
        return SkillDefinition(
            name=self._label,
            entry=self._entry,
            steps=self._step_map(),
            system=opts["system"],
            params=opts["params"],
            stores=opts["stores"],
            final_output=opts["final_output"],
            observers=opts["observers"],
            subskills=tuple(self._subskills),
            topics=tuple(self._topics),
            meta=opts["meta"],
            source_file=opts["source_file"],
            problems=tuple(problems),
        )

    def _problems(self) -> list[str]:
        if not self._steps:
            return [f"{where(self._label)}has no steps; add one with .step(...)"]
        problems = self._duplicate_problems()
        steps = self._step_map()
        if self._entry not in steps:
            problems.append(
                f"{where(self._label)}entry '{self._entry}' is not a step "
                f"(steps: {', '.join(steps)})"
            )
        for step in steps.values():
            problems.extend(self._target_problems(step, steps))
        problems.extend(self._composite_problems())
        problems.extend(self._schema_problems(steps))
        return problems

    def _schema_problems(self, steps: Mapping[str, StepDefinition]) -> list[str]:
        """Types pydantic cannot make a schema of (they would fail the run later)."""
        opts = self._options
        found = schema_uses(opts["params"], opts["final_output"], opts["stores"], steps)
        problems = []
        for step_name, what, schema in found:
            problem = schema.problem()
            if problem is not None:
                problems.append(
                    f"{where(self._label, step_name)}{what}={schema.name} is not a type "
                    f"pydantic can make a schema of ({problem}); use a pydantic model, a "
                    "dataclass or a typing type such as dict[str, int]"
                )
        return problems

    def _target_problems(self, step: StepDefinition, steps: Mapping[str, Any]) -> list[str]:
        from skillkit_core.engine.graph import literal_targets

        problems = []
        for role, target in literal_targets(step):
            if target == PARENT:
                problems.append(
                    f"{where(self._label, step.name)}{role} is still '{PARENT}'; give next= "
                    "when you extend a step(...) template"
                )
            elif target.startswith(SUBSKILL_PREFIX):
                if not any(s.name == target[len(SUBSKILL_PREFIX) :] for s in self._subskills):
                    problems.append(
                        f"{where(self._label, step.name)}{role} '{target}' names no registered "
                        "sub-skill; add .subskill(...)"
                    )
            elif target.startswith(TOPIC_PREFIX):
                if not any(t.name == target[len(TOPIC_PREFIX) :] for t in self._topics):
                    problems.append(
                        f"{where(self._label, step.name)}{role} '{target}' names no registered "
                        "topic; add .topic(...)"
                    )
            elif target != "self" and target not in steps:
                problems.append(
                    f"{where(self._label, step.name)}{role} '{target}' is not a step "
                    f"(steps: {', '.join(steps)})"
                )
        return problems

    def _composite_problems(self) -> list[str]:
        problems = []
        for kind, names in (
            ("sub-skill", [s.name for s in self._subskills]),
            ("topic", [t.name for t in self._topics]),
        ):
            dupes = sorted({n for n in names if names.count(n) > 1})
            problems.extend(f"{where(self._label)}{kind} '{n}' is registered twice" for n in dupes)
        for sub in self._subskills:
            if sub.definition.subskills:
                problems.append(
                    f"{where(self._label)}sub-skill '{sub.name}' has sub-skills of its own; "
                    "composites do not nest"
                )
        if self._subskills:
            problems.extend(
                f"{where(self._label, step.name)}a dispatcher step name cannot contain '/' "
                "(reserved for sub-skill steps such as 'doctor/diagnose')"
                for step in self._steps
                if "/" in step.name
            )
        return problems


def skill(
    *,
    name: str,
    entry: str,
    description: str | None = None,
    system: str | None = None,
    version: str | None = None,
    resolve_version: bool = False,
    triggers: list[str] | None = None,
    params: Any = None,
    stores: Mapping[str, Any] | None = None,
    final_output: Any = None,
    observers: Mapping[str, Callable[[Any], Any]] | None = None,
    skill_md: str | Callable[[Any], str] | None = None,
    package: Mapping[str, Any] | None = None,
    argument_hint: str | None = None,
    arguments: str | list[str] | None = None,
    allowed_tools: str | list[str] | None = None,
    paths: str | list[str] | None = None,
    context: str | None = None,
    license: str | None = None,
    compatibility: str | None = None,
    agent: str | None = None,
    model: str | None = None,
    effort: str | None = None,
    disable_model_invocation: bool | None = None,
    user_invocable: bool | None = None,
) -> SkillBuilder:
    """Start a workflow skill. Chain ``.step(...)`` calls and finish with ``.build()``."""
    check_name("skill", name)
    if not isinstance(entry, str) or not entry:
        raise SkillDefinitionError(f"{where(name)}entry= must name the first step")
    if system is not None and not isinstance(system, str):
        raise SkillDefinitionError(f"{where(name)}system= must be a string")
    meta = make_meta(
        name,
        description=description,
        version=version,
        resolve_version=resolve_version,
        triggers=triggers,
        argument_hint=argument_hint,
        arguments=arguments,
        allowed_tools=allowed_tools,
        paths=paths,
        context=context,
        license=license,
        compatibility=compatibility,
        agent=agent,
        model=model,
        effort=effort,
        disable_model_invocation=disable_model_invocation,
        user_invocable=user_invocable,
        skill_md=skill_md,
        package=package,
    )
    options = {
        "system": system,
        "params": Schema.of(params, what=f"{where(name)}params"),
        "stores": _stores(name, stores),
        "final_output": Schema.of(final_output, what=f"{where(name)}final_output"),
        "observers": _observers(name, observers),
        "meta": meta,
        "source_file": caller_file(),
    }
    return SkillBuilder(name, entry, options)


def _stores(name: str, stores: Mapping[str, Any] | None) -> Mapping[str, Schema]:
    if stores is None:
        return MappingProxyType({})
    if not isinstance(stores, Mapping):
        raise SkillDefinitionError(f"{where(name)}stores= must be a dict of name -> schema")
    checked = {}
    for store_name, schema in stores.items():
        if not isinstance(store_name, str) or not store_name.isidentifier():
            raise SkillDefinitionError(
                f"{where(name)}store name {store_name!r} must be a Python identifier"
            )
        if store_name in _RESERVED_STORES:
            raise SkillDefinitionError(
                f"{where(name)}store name '{store_name}' is reserved; choose another"
            )
        checked[store_name] = Schema.of(schema, what=f"{where(name)}stores['{store_name}']")
    return MappingProxyType(checked)


def _observers(name: str, observers: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if observers is None:
        return MappingProxyType({})
    if not isinstance(observers, Mapping):
        raise SkillDefinitionError(f"{where(name)}observers= must be a dict of event -> callable")
    for event, fn in observers.items():
        if event not in OBSERVER_EVENTS:
            raise SkillDefinitionError(
                f"{where(name)}unknown observer event {event!r}; "
                f"events: {', '.join(OBSERVER_EVENTS)}"
            )
        if not callable(fn):
            raise SkillDefinitionError(f"{where(name)}observer {event} must be callable")
    return MappingProxyType(dict(observers))


def make_topic(owner: str, name: Any, label: Any, content: Any) -> Topic:
    """Check a ``.topic(...)`` registration."""
    if not isinstance(name, str) or not name or "/" in name:
        raise SkillDefinitionError(f"{where(owner)}topic names must be non-empty without '/'")
    if not isinstance(label, str) or not label:
        raise SkillDefinitionError(f"{where(owner)}topic '{name}' needs label= as a string")
    if not (isinstance(content, str) or callable(content)):
        raise SkillDefinitionError(
            f"{where(owner)}topic '{name}' content= must be a string or a callable ctx -> str"
        )
    return Topic(name, label, content)


def step(
    *,
    response: Any,
    next: Any,
    prompt: Any = None,
    action: Any = None,
    save: Callable[[Any], Any] | None = None,
    max_visits: int | None = None,
    on_max_visits: str | None = None,
) -> StepTemplate:
    """A reusable step, placed into skills with ``.extend(name, template, **overrides)``."""
    config = _step_config(
        prompt=prompt,
        response=response,
        action=action,
        save=save,
        max_visits=max_visits,
        on_max_visits=on_max_visits,
    )
    config["next"] = next
    # Check the template's own types early; the name is filled in by .extend().
    make_step("step()", "template", {**config, "prompt": prompt if prompt is not None else ""})
    return StepTemplate(MappingProxyType(config))


class ModuleBuilder(_StepCollector):
    """Collects a module's steps; ``.build()`` gives a ``ModuleDefinition``."""

    def __init__(self, name: str, entry: str) -> None:
        super().__init__()
        self._label = name
        self._entry = entry

    step = SkillBuilder.step

    def build(self) -> ModuleDefinition:
        """Check and freeze the module (targets outside it are checked when registered)."""
        problems = self._duplicate_problems()
        if not self._steps:
            problems.append(f"{where(self._label)}module has no steps")
        elif self._entry not in self._step_map():
            problems.append(f"{where(self._label)}module entry '{self._entry}' is not a step")
        if problems:
            raise SkillDefinitionError("\n".join(problems))
        return ModuleDefinition(self._label, self._entry, self._step_map())


def module(*, name: str, entry: str) -> ModuleBuilder:
    """Start a module: a group of steps to ``.register`` into skills."""
    check_name("module", name)
    if not isinstance(entry, str) or not entry:
        raise SkillDefinitionError(f"module '{name}': entry= must name its first step")
    return ModuleBuilder(name, entry)


def action(
    name: str,
    input: Any = None,
    output: Any = None,
    run: Callable[[Any], Any] | None = None,
) -> ActionDefinition:
    """Declare a side effect with typed input and output; ``run(ctx)`` gets ``ctx.input``
    and ``ctx.signal`` and may be sync or async."""
    check_name("action", name)
    if run is None or not callable(run):
        raise SkillDefinitionError(f"action '{name}': run= must be a callable ctx -> output")
    return ActionDefinition(
        name=name,
        input=Schema.of(input, what=f"action '{name}': input"),
        output=Schema.of(output, what=f"action '{name}': output"),
        run=run,
    )

"""Turn the keyword arguments of ``.step(...)`` into a checked ``StepDefinition``.

Type mistakes raise at once with a message naming the skill, the step and the fix;
problems that need the whole skill (unknown targets, duplicates) are found by ``.build()``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from skillkit_core.definitions import (
    ActionDefinition,
    Branch,
    NextSpec,
    StepAction,
    StepDefinition,
    Terminal,
    terminal,
)
from skillkit_core.errors import SkillDefinitionError, where
from skillkit_core.schema import Schema

STEP_FIELDS = frozenset(
    {"prompt", "response", "next", "action", "save", "max_visits", "on_max_visits"}
)
_MISSING: Any = object()


def reserved_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a step name (it means something else in ``next``), or None."""
    from skillkit_core.definitions import PARENT, SUBSKILL_PREFIX, TOPIC_PREFIX

    if name == "self":
        return "is reserved: next='self' means the current step"
    if name == PARENT:
        return "is reserved: it marks a template transition that .extend(next=...) fills in"
    for prefix, meaning in ((SUBSKILL_PREFIX, "a sub-skill"), (TOPIC_PREFIX, "a topic")):
        if name.startswith(prefix):
            return f"is reserved: next='{prefix}…' routes to {meaning}"
    return None


def make_step(skill: str, name: Any, config: Mapping[str, Any]) -> StepDefinition:
    """Check one step's configuration and freeze it."""
    if not isinstance(name, str) or not name.strip():
        raise SkillDefinitionError(
            f"{where(skill)}a step name must be a non-empty string; got {name!r}"
        )
    reserved = reserved_name_problem(name)
    if reserved is not None:
        raise SkillDefinitionError(f"{where(skill)}step name {name!r} {reserved}")
    at = where(skill, name)
    unknown = set(config) - STEP_FIELDS
    if unknown:
        raise SkillDefinitionError(
            f"{at}unknown step option(s) {', '.join(sorted(unknown))}; "
            f"a step takes {', '.join(sorted(STEP_FIELDS))}"
        )
    if config.get("next", _MISSING) is _MISSING:
        raise SkillDefinitionError(
            f"{at}every step needs next= (a step name, 'self', terminal, branches or a callable)"
        )
    prompt = config.get("prompt")
    response = Schema.of(config.get("response"), what=f"{at}response")
    if response is not None and prompt is None:
        raise SkillDefinitionError(
            f"{at}has response= but no prompt=; the agent can only answer a prompt. "
            "Add a prompt, or drop response for a step that runs without the agent"
        )
    max_visits = config.get("max_visits")
    if max_visits is not None and (
        not isinstance(max_visits, int) or isinstance(max_visits, bool) or max_visits < 1
    ):
        raise SkillDefinitionError(f"{at}max_visits must be a positive integer; got {max_visits!r}")
    on_max = config.get("on_max_visits")
    if on_max is not None and (not isinstance(on_max, str) or not on_max):
        raise SkillDefinitionError(f"{at}on_max_visits must name a step; got {on_max!r}")
    save = config.get("save")
    if save is not None and not callable(save):
        raise SkillDefinitionError(f"{at}save must be a callable ctx -> dict; got {save!r}")
    return StepDefinition(
        name=name,
        next=normalize_next(at, config["next"]),
        prompt=_check_prompt(at, prompt),
        response=response,
        action=normalize_action(at, config.get("action")),
        save=save,
        max_visits=max_visits,
        on_max_visits=on_max,
    )


def normalize_next(at: str, value: Any) -> NextSpec:
    """Accept a step name, ``terminal``, ``{"terminal": True}``, branches or a callable."""
    if isinstance(value, Terminal) or value == {"terminal": True}:
        return terminal
    if isinstance(value, str):
        if not value:
            raise SkillDefinitionError(f"{at}next= must not be an empty string")
        return value
    if isinstance(value, list | tuple):
        return _normalize_branches(at, value)
    if callable(value):
        return value
    raise SkillDefinitionError(
        f"{at}next= must be a step name, 'self', terminal, a list of branch(...) or a callable "
        f"ctx -> step name; got {value!r}"
    )


def _normalize_branches(at: str, items: list[Any] | tuple[Any, ...]) -> tuple[Branch, ...]:
    if not items:
        raise SkillDefinitionError(f"{at}next= is an empty list; give at least one branch(...)")
    branches = []
    for i, item in enumerate(items):
        if isinstance(item, Mapping) and "to" in item:
            item = Branch(item["to"], item.get("when"))
        if not isinstance(item, Branch) or not isinstance(item.to, str) or not item.to:
            raise SkillDefinitionError(
                f"{at}next[{i}] must be branch('step', when=...); got {item!r}"
            )
        if item.when is None and i != len(items) - 1:
            raise SkillDefinitionError(
                f"{at}branch('{item.to}') has no when= but is not the last branch, so the "
                "branches after it could never be taken; move it to the end"
            )
        branches.append(item)
    return tuple(branches)


def normalize_action(at: str, value: Any) -> StepAction | None:
    """Accept ``action(...)``, ``{"run": a, "map_input": fn}`` or an inline callable."""
    if value is None:
        return None
    if isinstance(value, ActionDefinition):
        return StepAction(run=value)
    if isinstance(value, Mapping):
        run, map_input = value.get("run"), value.get("map_input")
        extra = set(value) - {"run", "map_input"}
        if extra or run is None:
            raise SkillDefinitionError(
                f"{at}action= as a dict takes 'run' (an action(...)) and optional 'map_input'"
            )
        if not isinstance(run, ActionDefinition) and not callable(run):
            raise SkillDefinitionError(f"{at}action run must be action(...) or a callable")
        if map_input is not None and not callable(map_input):
            raise SkillDefinitionError(f"{at}map_input must be a callable ctx -> input")
        return StepAction(run=run, map_input=map_input)
    if callable(value):
        return StepAction(run=value)
    raise SkillDefinitionError(
        f"{at}action= must be action(...), {{'run': action, 'map_input': fn}} or a callable; "
        f"got {value!r}"
    )


def _check_prompt(at: str, prompt: Any) -> Any:
    if prompt is None or isinstance(prompt, str) or callable(prompt):
        return prompt
    if isinstance(prompt, list | tuple):
        return tuple(prompt)
    if type(prompt).__module__.startswith("skillkit_core."):
        return prompt
    raise SkillDefinitionError(
        f"{at}prompt= must be a string, a prompt piece (system/view/act.*), a list of pieces "
        f"or a callable ctx -> prompt; got {type(prompt).__name__}"
    )


def rewrite_parent(step: StepDefinition, target: str) -> StepDefinition:
    """Replace the ``PARENT`` sentinel in a step's transitions with ``target``."""
    from dataclasses import replace

    from skillkit_core.definitions import PARENT

    nxt: NextSpec = step.next
    if nxt == PARENT:
        nxt = target
    elif isinstance(nxt, tuple):
        nxt = tuple(Branch(target if b.to == PARENT else b.to, b.when) for b in nxt)
    elif callable(nxt) and not isinstance(nxt, Terminal):
        nxt = _parent_rewriting(nxt, target)
    on_max = target if step.on_max_visits == PARENT else step.on_max_visits
    return replace(step, next=nxt, on_max_visits=on_max)


def _parent_rewriting(fn: Callable[[Any], Any], target: str) -> Callable[[Any], Any]:
    from skillkit_core.definitions import PARENT

    def next_with_parent(ctx: Any) -> Any:
        result = fn(ctx)
        return target if result == PARENT else result

    next_with_parent.__wrapped__ = fn  # type: ignore[attr-defined]
    return next_with_parent

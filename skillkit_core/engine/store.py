"""The append-only state store: step results and deep-merged sub-stores."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillkit_core.definitions import SkillDefinition
from skillkit_core.engine.results import StepResult
from skillkit_core.errors import SkillRuntimeError, where
from skillkit_core.records import Record, deep_merge


class StepNotRunError(KeyError):
    """``store.steps[name]`` for a step that has not run (yet)."""

    def __str__(self) -> str:
        return str(self.args[0])


class StepsView:
    """Read-only access to step results: ``steps[name]``, ``.get``, ``.all``, ``.ran``."""

    __slots__ = ("_by_step", "_history", "_known")

    def __init__(self, history: list[StepResult], by_step: dict[str, list[int]], known) -> None:
        self._history = history
        self._by_step = by_step
        self._known = known

    def __getitem__(self, name: str) -> Record:
        indexes = self._by_step.get(name)
        if not indexes:
            hint = (
                "it is not a step of this skill"
                if name not in self._known
                else "it has not run on this path; use store.steps.get(name) for optional steps"
            )
            raise StepNotRunError(f"store.steps['{name}']: no result, {hint}")
        return self._record(indexes[-1])

    def get(self, name: str, default: Any = None) -> Record | Any:
        """The latest result of ``name``, or ``default`` when it has not run."""
        indexes = self._by_step.get(name)
        return self._record(indexes[-1]) if indexes else default

    def all(self, name: str) -> tuple[Record, ...]:
        """Every result of ``name``, oldest first (loops)."""
        return tuple(self._record(i) for i in self._by_step.get(name, ()))

    def ran(self, name: str) -> bool:
        """Whether ``name`` has run at least once."""
        return bool(self._by_step.get(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.ran(name)

    @property
    def history(self) -> tuple[StepResult, ...]:
        """Every step result in order (the raw record)."""
        return tuple(self._history)

    def _record(self, index: int) -> Record:
        result = self._history[index]
        value = result.result
        return Record(value, f"step '{result.step}'") if isinstance(value, Mapping) else value


class Store:
    """The run's state. Steps append; sub-store writes deep-merge into new dicts."""

    def __init__(self, definition: SkillDefinition) -> None:
        self._definition = definition
        self._history: list[StepResult] = []
        self._by_step: dict[str, list[int]] = {}
        self._stores: dict[str, dict[str, Any]] = {name: {} for name in definition.stores}
        self.steps = StepsView(self._history, self._by_step, definition.steps)

    def __getattr__(self, name: str) -> Record:
        if name.startswith("_"):
            raise AttributeError(name)
        stores = self.__dict__["_stores"]
        if name not in stores:
            declared = ", ".join(stores) or "none"
            raise AttributeError(
                f"store has no sub-store '{name}' (declared: {declared}); declare it in "
                "skill(stores={...})"
            )
        return Record(stores[name], f"store.{name}")

    def sub_store(self, name: str) -> dict[str, Any]:
        """The current plain data of one sub-store."""
        return self._stores[name]

    def checkpoint(self) -> tuple[int, dict[str, dict[str, Any]]]:
        """A cheap marker to roll back to (writes replace dicts, never mutate them)."""
        return len(self._history), dict(self._stores)

    def rollback(self, mark: tuple[int, dict[str, dict[str, Any]]]) -> None:
        length, stores = mark
        while len(self._history) > length:
            gone = self._history.pop()
            self._by_step[gone.step].pop()
        self._stores = stores

    def append(self, result: StepResult) -> None:
        self._by_step.setdefault(result.step, []).append(len(self._history))
        self._history.append(result)

    def write(self, step: str, name: str, data: Any) -> None:
        """Deep-merge ``data`` into sub-store ``name`` after checking it against its schema."""
        at = where(self._definition.name, step)
        schema = self._definition.stores.get(name)
        if schema is None:
            declared = ", ".join(self._definition.stores) or "none"
            raise SkillRuntimeError(
                f"{at}save() wrote to '{name}', which is neither 'step' nor a declared "
                f"sub-store (declared: {declared})"
            )
        if not isinstance(data, Mapping):
            raise SkillRuntimeError(f"{at}save() must write a dict to sub-store '{name}'")
        from skillkit_core.engine.substore import check_write

        checked = check_write(schema, name, data, at)
        self._stores[name] = deep_merge(self._stores[name], checked)

"""A runtime session: which skills one conversation has loaded, most recent last.

The session is the state plane of the runtime seed: ``skills_load`` and ``skills_unload``
change ``active_skills``; reads and script runs need at least one active skill and act on
the one named, or on the most recently loaded. Loading re-reads the skill's SKILL.md and
caches that record (body, digest, properties) for as long as the skill stays active, so an
author's edit shows up on the next load while a loaded skill never changes under the agent.

Requests of MCP 2026-07-28 are served statelessly (its basic/index, Statelessness: state
across requests only through an explicit identifier): each gets a session of its own
(:meth:`RuntimeSession.for_one_request`), where nothing stays loaded and a read or a run
names its skill, which is read for that request alone.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from skillkit_core.runtime.errors import (
    NoActiveSkillError,
    ToolArgumentsError,
    TooManySkillsError,
    UnknownSkillError,
)
from skillkit_core.runtime.registry import Registry, SkillRecord

DEFAULT_MAX_ACTIVE = 5
LoadMode = Literal["replace", "add"]


class RuntimeSession:
    """The loaded-skill state of one connection (one conversation)."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_active: int = DEFAULT_MAX_ACTIVE,
        session_id: str | None = None,
    ) -> None:
        if max_active < 1:
            raise ToolArgumentsError(f"at least one skill must be loadable, not {max_active}")
        self.registry = registry
        self.max_active = max_active
        self.session_id = session_id or uuid.uuid4().hex
        self._active: list[SkillRecord] = []
        self.stateless = False
        self._runs = [0]  # shared by the sessions of one connection's stateless requests

    @property
    def running_scripts(self) -> int:
        """Scripts of this connection running now (its limit holds across requests)."""
        return self._runs[0]

    @running_scripts.setter
    def running_scripts(self, count: int) -> None:
        self._runs[0] = count

    def for_one_request(self) -> RuntimeSession:
        """A session for one stateless request: nothing loaded before it or kept after
        it, the connection's limit on running scripts shared."""
        fresh = RuntimeSession(self.registry, max_active=self.max_active)
        fresh.stateless = True
        fresh._runs = self._runs
        return fresh

    @property
    def active(self) -> tuple[SkillRecord, ...]:
        """Loaded skills' cached records in ``active_skills`` order (most recent last)."""
        return tuple(self._active)

    @property
    def active_names(self) -> list[str]:
        """The seed's ``active_skills``: names, most recently loaded last."""
        return [record.name for record in self._active]

    def load(self, names: Sequence[str], mode: LoadMode = "replace") -> list[SkillRecord]:
        """Load ``names`` (``replace`` the set, or ``add`` to it) and return their records.

        With ``add``, a skill already loaded keeps its place (the seed de-dupes by name and
        preserves order) but its SKILL.md is re-read. Nothing changes when any name is
        unknown or the result would exceed ``max_active``.
        """
        wanted = _unique_names(names)
        if mode not in ("replace", "add"):
            raise ToolArgumentsError(f"mode must be 'replace' or 'add', not {mode!r}")
        unknown = [name for name in wanted if name not in self.registry]
        if unknown:
            raise UnknownSkillError(self.registry.unknown_message(unknown))
        fresh = {name: self.registry.reread(name) for name in wanted}
        if mode == "replace":
            result = [fresh[name] for name in wanted]
        else:
            result = [fresh.pop(record.name, record) for record in self._active]
            result.extend(fresh.values())
        if len(result) > self.max_active:
            raise TooManySkillsError(
                f"loading {', '.join(wanted)} would make {len(result)} skills active; at most "
                f"{self.max_active} can be loaded at once. Load fewer skills, or unload some "
                f"first (active now: {', '.join(self.active_names) or 'none'})"
            )
        self._active = result
        return [record for record in result if record.name in wanted]

    def unload(self, names: Sequence[str] | None = None, *, unload_all: bool = False) -> None:
        """Remove ``names`` that are loaded (others are ignored), or everything."""
        if unload_all:
            if names:
                raise ToolArgumentsError("give either 'names' or 'all': true, not both")
            self._active = []
            return
        if names is None:
            raise ToolArgumentsError("give 'names' (a list of skill names) or 'all': true")
        dropped = set(_unique_names(names, allow_empty=True))
        self._active = [record for record in self._active if record.name not in dropped]

    def select(self, skill: str | None = None) -> SkillRecord:
        """The active skill a read or script run acts on: ``skill``, else the most recent.
        In a stateless request, the skill ``skill`` names (read now), which it must name."""
        if self.stateless and not self._active:
            if skill is None:
                raise NoActiveSkillError(
                    "requests of MCP 2026-07-28 are served statelessly: nothing stays loaded "
                    "between them, so name the skill with 'skill'"
                )
            return self.load([skill])[0]
        if not self._active:
            raise NoActiveSkillError(
                "no skill is loaded; call skills_load with the skill's name first"
            )
        if skill is None:
            return self._active[-1]
        for record in self._active:
            if record.name == skill:
                return record
        raise NoActiveSkillError(
            f"skill '{skill}' is not loaded (loaded: {', '.join(self.active_names)}); "
            "load it with skills_load first"
        )

    def receipt(self) -> dict[str, Any]:
        """The seed's load/unload receipt: ``{"active_skills": [...]}``."""
        return {"active_skills": [record.receipt() for record in self._active]}

    def bodies(self) -> list[tuple[str, str]]:
        """(name, SKILL.md body) of each active skill, in ``active_skills`` order."""
        return [(record.name, record.body) for record in self._active]


def _unique_names(names: Sequence[str] | None, *, allow_empty: bool = False) -> list[str]:
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ToolArgumentsError(f"'names' must be a list of skill names, not {names!r}")
    if not names and not allow_empty:
        raise ToolArgumentsError("'names' must list at least one skill")
    unique: list[str] = []
    for name in names:
        if not isinstance(name, str) or not name:
            raise ToolArgumentsError(f"skill names must be non-empty strings, not {name!r}")
        if name not in unique:
            unique.append(name)
    return unique

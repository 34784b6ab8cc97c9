"""Host-aware primitives: ``act.ask_user``, ``act.confirm``, ``act.plan``,
``act.checklist``, ``act.survey`` and ``act.subagent``.

Each returns an ``ActSegment`` holding a frozen, validated config; invalid input raises
``SkillDefinitionError`` at the call. The segment renders as the primitive's XML tag and
the preamble tells the agent which of its tools serves that tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillkit_core.primitives import ask_user as _ask_user
from skillkit_core.primitives import checklist as _checklist
from skillkit_core.primitives import confirm as _confirm
from skillkit_core.primitives import plan as _plan
from skillkit_core.primitives import subagent as _subagent
from skillkit_core.primitives import survey as _survey
from skillkit_core.primitives.ask_user import AskUserConfig, Option
from skillkit_core.primitives.base import PreambleRow, PrimitiveConfig, PrimitiveSpec
from skillkit_core.primitives.checklist import ChecklistConfig, ChecklistItem
from skillkit_core.primitives.confirm import ConfirmConfig
from skillkit_core.primitives.plan import PlanConfig
from skillkit_core.primitives.subagent import SubagentConfig
from skillkit_core.primitives.survey import SurveyConfig, SurveyQuestion
from skillkit_core.prompts.segments import ActSegment


class ActBuilder:
    """The ``act`` object: one method per primitive, each returning an ``ActSegment``."""

    def ask_user(
        self,
        *,
        question: str,
        type: str | None = None,
        options: Sequence[Any] | None = None,
        header: str | None = None,
        multi_select: bool = False,
    ) -> ActSegment:
        """Ask the user: ``type="structured"`` with 2–4 options (``value``, ``label``,
        optional ``description`` and ``preview``), or ``type="open"`` (no options).
        ``type`` defaults to structured when options are given. ``header`` is a chip
        label of at most 12 characters."""
        return ActSegment(
            _ask_user.create(
                question=question,
                type=type,
                options=options,
                header=header,
                multi_select=multi_select,
            )
        )

    def confirm(
        self, message: str, destructive: bool = False, default_answer: str = "no"
    ) -> ActSegment:
        """Ask for a yes/no approval; ``default_answer`` is ``"yes"`` or ``"no"``."""
        return ActSegment(
            _confirm.create(message, destructive=destructive, default_answer=default_answer)
        )

    def plan(self, summary: str, steps: Sequence[str]) -> ActSegment:
        """Present a plan (a summary and ordered steps) for approval."""
        return ActSegment(_plan.create(summary, steps))

    def checklist(self, create: Sequence[Any]) -> ActSegment:
        """Create a tracked task list from items ``{"title", "status"?}``."""
        return ActSegment(_checklist.create(create))

    def survey(self, questions: Sequence[Any]) -> ActSegment:
        """Ask several questions ``{"question", "options", "header"?, "multi_select"?}``
        at once (rendered in blocks of at most four)."""
        return ActSegment(_survey.create(questions))

    def subagent(self, prompt: str, output: Any, allow_recursion: bool = False) -> ActSegment:
        """Delegate ``prompt`` to an isolated agent whose result satisfies ``output``.
        Unless ``allow_recursion``, the subagent is told not to run this same skill."""
        return ActSegment(_subagent.create(prompt, output, allow_recursion=allow_recursion))

    def __repr__(self) -> str:
        return "act"


act = ActBuilder()

__all__ = [
    "ActBuilder",
    "AskUserConfig",
    "ChecklistConfig",
    "ChecklistItem",
    "ConfirmConfig",
    "Option",
    "PlanConfig",
    "PreambleRow",
    "PrimitiveConfig",
    "PrimitiveSpec",
    "SubagentConfig",
    "SurveyConfig",
    "SurveyQuestion",
    "act",
]

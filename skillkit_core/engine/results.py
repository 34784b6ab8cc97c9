"""What the engine returns for each call, and the JSON an agent sees for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class StepResult:
    """One completed step as the store keeps it (all values are plain JSON data)."""

    step: str
    response: Any
    result: Any
    action_result: Any = None
    has_action: bool = False

    def to_wire(self) -> dict[str, Any]:
        """The ``completed`` object: ``{step, response, actionResult?, result}``."""
        wire: dict[str, Any] = {"step": self.step, "response": self.response}
        if self.has_action:
            wire["actionResult"] = self.action_result
        wire["result"] = self.result
        return wire

    def history_entry(self) -> dict[str, Any]:
        """The entry a stateless agent passes back in ``--history``."""
        entry: dict[str, Any] = {"step": self.step, "response": self.response}
        if self.has_action:
            entry["actionResult"] = self.action_result
        return entry

    def renamed(self, step: str) -> StepResult:
        """The same result under another step name (sub-skill prefixing)."""
        return StepResult(step, self.response, self.result, self.action_result, self.has_action)


def _with_progress(
    wire: dict[str, Any], completed: StepResult | None, auto: tuple[StepResult, ...]
) -> dict[str, Any]:
    if completed is not None:
        wire["completed"] = completed.to_wire()
    if auto:
        wire["autoAdvanced"] = [r.to_wire() for r in auto]
    return wire


@dataclass(frozen=True)
class PromptResult:
    """The next step's prompt for the agent."""

    step: str
    prompt: str
    schema: dict[str, Any] | None
    preamble: str | None = None
    completed: StepResult | None = None
    auto_advanced: tuple[StepResult, ...] = ()
    kind: ClassVar[str] = "prompt"

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"kind": "prompt", "step": self.step}
        if self.preamble is not None:
            wire["preamble"] = self.preamble
        wire["prompt"] = self.prompt
        wire["schema"] = self.schema
        return _with_progress(wire, self.completed, self.auto_advanced)


@dataclass(frozen=True)
class DoneResult:
    """The skill finished; ``final_output`` is what the terminal step produced."""

    final_output: Any
    completed: StepResult | None = None
    auto_advanced: tuple[StepResult, ...] = ()
    kind: ClassVar[str] = "done"

    def to_wire(self) -> dict[str, Any]:
        wire = {"kind": "done", "done": True, "finalOutput": self.final_output}
        return _with_progress(wire, self.completed, self.auto_advanced)


@dataclass(frozen=True)
class ErrorResult:
    """A refused call. ``retry`` tells the agent whether the same call can be corrected."""

    error: str
    message: str
    step: str | None = None
    retry: bool = False
    kind: ClassVar[str] = "error"

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": "error",
            "error": self.error,
            "step": self.step,
            "message": self.message,
            "retry": self.retry,
        }


@dataclass(frozen=True)
class RedirectResult:
    """A dispatcher routed to ``subskill:X`` or ``topic:X``; the composite layer takes over."""

    redirect: str
    completed: StepResult | None
    store: Any
    auto_advanced: tuple[StepResult, ...] = ()
    kind: ClassVar[str] = "redirect"

    @property
    def target_kind(self) -> str:
        return self.redirect.split(":", 1)[0]

    @property
    def target(self) -> str:
        return self.redirect.split(":", 1)[1]

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"kind": "redirect", "redirect": self.redirect}
        return _with_progress(wire, self.completed, self.auto_advanced)


EngineResult = PromptResult | DoneResult | ErrorResult | RedirectResult

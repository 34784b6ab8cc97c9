"""The ``ctx`` object author callbacks receive, and the cancellation signal of actions."""

from __future__ import annotations

from typing import Any


class CancellationSignal:
    """Tells a running action that the run was cancelled; check ``cancelled`` in loops."""

    __slots__ = ("cancelled", "reason")

    def __init__(self) -> None:
        self.cancelled = False
        self.reason: str | None = None

    def cancel(self, reason: str = "cancelled") -> None:
        self.cancelled = True
        self.reason = reason

    @property
    def aborted(self) -> bool:
        """Alias of ``cancelled`` (the seeds' AbortSignal word)."""
        return self.cancelled


class StepContext:
    """What a prompt, action, ``save``, ``next`` or branch callback can read.

    Each field is set where it makes sense for that callback: ``response`` and
    ``action_result`` after the agent answered, ``input`` and ``signal`` in actions.
    """

    __slots__ = (
        "action_result",
        "attempts",
        "host",
        "input",
        "params",
        "refs",
        "response",
        "signal",
        "step",
        "store",
        "system",
    )

    def __init__(self, **fields: Any) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, fields.get(name))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ctx is read-only")

    @property
    def act(self) -> Any:
        """The primitives (``ctx.act.ask_user(...)``), the same object as
        ``skillkit_core.act``: loaded on first use, since most callbacks never touch them
        and loading them is a noticeable part of a built skill's call."""
        from skillkit_core.primitives import act

        return act

    def __repr__(self) -> str:
        return f"StepContext(step={self.step!r}, attempts={self.attempts!r})"

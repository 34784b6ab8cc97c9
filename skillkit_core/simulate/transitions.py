"""Where a step can go next, in words: targets, branch conditions' source text, guards.

Preview, simulation transcripts and the graph all describe transitions the same way, from
the definition and its graph analysis. A condition is shown as its source text: the body
of a lambda (``ctx.response.safe``), or the name of a named function (``_route()``).
"""

from __future__ import annotations

import inspect
import linecache
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from skillkit_core.definitions import SUBSKILL_PREFIX, TOPIC_PREFIX, StepDefinition, Terminal
from skillkit_core.engine.graph import SkillGraph
from skillkit_core.safe_text import code_span

END = "(end)"
"""The pseudo-target of a terminal step."""
UNKNOWN = "(unknown)"
"""The pseudo-target of a callable ``next`` whose targets could not be read."""


@dataclass(frozen=True)
class TransitionInfo:
    """One way out of a step.

    ``kind`` is ``next``, ``branch``, ``dynamic`` (a callable ``next``), ``max_visits``
    (the loop guard's fallback), ``route`` (``subskill:``/``topic:``) or ``terminal``.
    ``condition`` is the branch condition's source text (``None`` for an unconditional
    branch and plain ``next``); for ``dynamic`` it names the function; for
    ``max_visits`` it says which limit.
    """

    target: str
    kind: str
    condition: str | None = None
    position: int | None = None
    """1-based position of a branch in its list (first match wins)."""

    def to_data(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "kind": self.kind,
            "condition": self.condition,
            "position": self.position,
        }

    def describe(self) -> str:
        """One line such as ``branch 1 → deploy when ctx.response.safe``."""
        if self.kind == "terminal":
            return "terminal: the skill ends here"
        head = f"→ {code_span(self.target)}"
        if self.kind == "branch":
            when = f"when {code_span(self.condition)}" if self.condition else "otherwise"
            return f"{head} (branch {self.position}) {when}"
        if self.kind == "dynamic":
            if self.target == UNKNOWN:
                return f"→ ? ({code_span(self.condition)} decides; no step name found in its code)"
            return f"{head} ({code_span(self.condition)} may return it)"
        if self.kind == "max_visits":
            return f"{head} (loop guard: {self.condition} of this step)"
        if self.kind == "route":
            return f"{head} (route out of the dispatcher)"
        return head


def step_transitions(step: StepDefinition, graph: SkillGraph) -> list[TransitionInfo]:
    """Every way out of ``step``, in the order an author reads them."""
    nxt = step.next
    found: list[TransitionInfo] = []
    if isinstance(nxt, Terminal):
        found.append(TransitionInfo(END, "terminal"))
    elif isinstance(nxt, str):
        found.append(TransitionInfo(_target(step, nxt), _kind_of(nxt)))
    elif isinstance(nxt, tuple):
        for position, arm in enumerate(nxt, start=1):
            condition = callable_source(arm.when) if arm.when is not None else None
            found.append(TransitionInfo(_target(step, arm.to), "branch", condition, position))
    elif callable(nxt):
        name = callable_source(nxt)
        targets = [e.target for e in graph.edges if e.source == step.name and e.kind == "dynamic"]
        targets += list(graph.routes.get(step.name, ()))
        if not targets:
            found.append(TransitionInfo(UNKNOWN, "dynamic", name))
        found.extend(TransitionInfo(t, "dynamic", name) for t in dict.fromkeys(targets))
    if step.on_max_visits is not None:
        limit = graph.visit_limit(step)
        target = _target(step, step.on_max_visits)
        condition = f"after {limit} visit{'s' if limit != 1 else ''}"
        found.append(TransitionInfo(target, "max_visits", condition))
    return found


def _target(step: StepDefinition, target: str) -> str:
    return step.name if target == "self" else target


def _kind_of(target: str) -> str:
    return "route" if target.startswith((SUBSKILL_PREFIX, TOPIC_PREFIX)) else "next"


# -- source text of callables --------------------------------------------------------

_SPACE = re.compile(r"\s+")


def callable_source(fn: Callable[..., Any]) -> str:
    """A short text for a callable: a lambda's body, else ``name()``."""
    fn = inspect.unwrap(fn)
    name = getattr(fn, "__name__", None)
    if name == "<lambda>":
        body = lambda_body(fn)
        return body if body is not None else "<lambda>"
    if name:
        return f"{name}()"
    return type(fn).__name__


def lambda_body(fn: Callable[..., Any]) -> str | None:
    """The source text of a lambda's body expression, whitespace collapsed.

    Uses the code object's instruction positions (exact columns, so two lambdas on one
    line are told apart); ``None`` when the source is not available.
    """
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    try:
        filename = inspect.getsourcefile(fn)
    except TypeError:
        return None
    if not filename:
        return None
    lines = linecache.getlines(filename)
    spans = [
        (line, col, end_line, end_col)
        for line, end_line, col, end_col in code.co_positions()
        if None not in (line, end_line, col, end_col)
        and (line, col) != (end_line, end_col)  # zero-width: the function's own prologue
    ]
    if not spans or not lines:
        return None
    start = min((line, col) for line, col, _, _ in spans)
    end = max((end_line, end_col) for _, _, end_line, end_col in spans)
    text = _slice(lines, start, end)
    return _SPACE.sub(" ", text).strip() or None


def _slice(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    """Text between two (1-based line, UTF-8 byte column) positions."""
    (first, first_col), (last, last_col) = start, end
    if first < 1 or last > len(lines):
        return ""
    chunk = [line.encode("utf-8") for line in lines[first - 1 : last]]
    if len(chunk) == 1:
        return chunk[0][first_col:last_col].decode("utf-8", errors="replace")
    chunk[0] = chunk[0][first_col:]
    chunk[-1] = chunk[-1][:last_col]
    return b"".join(chunk).decode("utf-8", errors="replace")


def shorten(text: str, limit: int = 48) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

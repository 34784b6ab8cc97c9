"""Transitions in words: targets, branch conditions' source text, loop guards."""

from pydantic import BaseModel

from skillkit_core import branch, skill, terminal
from skillkit_core.engine.graph_source import analyze_source
from skillkit_core.simulate.transitions import (
    END,
    callable_source,
    lambda_body,
    shorten,
    step_transitions,
)


class Flags(BaseModel):
    a: bool
    b: bool


GATE = '"done" if ctx.store.steps["fork"].b else "start"'


def _decide(ctx):
    return "done"


def test_two_lambdas_on_one_line_are_told_apart() -> None:
    arms = [branch("x", when=lambda ctx: ctx.response.a), branch("y", when=lambda c: c.response.b)]
    assert [callable_source(arm.when) for arm in arms] == ["ctx.response.a", "c.response.b"]


def test_a_multi_line_lambda_is_collapsed_to_one_line() -> None:
    fn = lambda ctx: (  # noqa: E731
        ctx.response.a and not ctx.response.b
    )
    assert lambda_body(fn) == "ctx.response.a and not ctx.response.b"


def test_named_functions_are_shown_by_name() -> None:
    assert callable_source(_decide) == "_decide()"
    assert lambda_body(_decide) is not None  # its body exists, but names read better


def test_a_lambda_without_source_falls_back_to_a_plain_name() -> None:
    fn = eval("lambda ctx: ctx.response.a")
    assert callable_source(fn) == "<lambda>"


def test_every_kind_of_transition_is_described() -> None:
    definition = (
        skill(name="kinds", entry="start")
        .step("start", prompt="Go.", response=Flags, next="fork")
        .step(
            "fork",
            prompt="Fork.",
            response=Flags,
            next=[branch("self", when=lambda ctx: ctx.response.a), branch("gate")],
            max_visits=3,
            on_max_visits="gate",
        )
        .step("gate", next=lambda ctx: "done" if ctx.store.steps["fork"].b else "start")
        .step("done", prompt="Done.", response=Flags, next=terminal)
        .build()
    )
    graph = analyze_source(definition)
    described = {
        name: [t.describe() for t in step_transitions(step, graph)]
        for name, step in definition.steps.items()
    }
    assert described == {
        "start": ["→ `fork`"],
        "fork": [
            "→ `fork` (branch 1) when `ctx.response.a`",
            "→ `gate` (branch 2) otherwise",
            "→ `gate` (loop guard: after 3 visits of this step)",
        ],
        # Only the names a callable next can return are targets ("fork" is only read).
        "gate": [f"→ `{name}` (`{GATE}` may return it)" for name in ("done", "start")],
        "done": ["terminal: the skill ends here"],
    }
    done = step_transitions(definition.steps["done"], graph)[0]
    assert (done.target, done.kind) == (END, "terminal")


def test_shorten_keeps_short_text_and_marks_cuts() -> None:
    assert shorten("abc", 5) == "abc"
    assert shorten("abcdefgh", 5) == "abcd…"

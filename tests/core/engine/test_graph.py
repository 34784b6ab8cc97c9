"""Graph analysis: successors, reachability, cycles and guaranteed steps."""

from skillkit_core import branch, skill, terminal
from skillkit_core.engine.graph import analyze


def onboarding():
    return (
        skill(name="g", entry="greet")
        .step("greet", prompt="x", next="role")
        .step("role", prompt="x", next=[branch("stack", when=lambda c: True), branch("hobby")])
        .step("stack", prompt="x", next="hobby")
        .step(
            "hobby",
            prompt="x",
            next=[branch("hobby", when=lambda c: True), branch("check")],
            max_visits=3,
            on_max_visits="check",
        )
        .step("check", prompt="x", next=lambda ctx: "done" if ctx.response else "role")
        .step("done", prompt="x", next=terminal)
        .step("orphan", prompt="x", next="done")
        .build()
    )


def test_successors_include_branches_guards_and_callable_literals() -> None:
    graph = analyze(onboarding())
    assert graph.successors["role"] == ("stack", "hobby")
    assert set(graph.successors["hobby"]) == {"hobby", "check"}
    assert set(graph.successors["check"]) == {"done", "role"}
    assert graph.dynamic == {"check"} and graph.opaque == frozenset()
    assert graph.terminal == {"done"}


def test_reachability_and_cycles() -> None:
    graph = analyze(onboarding())
    assert "orphan" not in graph.reachable
    assert graph.on_cycle == {"role", "stack", "hobby", "check"}
    definition = onboarding()
    assert graph.visit_limit(definition.steps["hobby"]) == 3
    assert graph.visit_limit(definition.steps["role"]) == 10
    assert graph.visit_limit(definition.steps["greet"]) is None


def test_guaranteed_steps_are_those_on_every_path() -> None:
    graph = analyze(onboarding())
    assert graph.guaranteed_before("greet") == frozenset()
    assert graph.guaranteed_before("hobby") == {"greet", "role"}
    assert graph.guaranteed_before("check") == {"greet", "role", "hobby"}
    assert "stack" not in graph.guaranteed_before("done")


def test_opaque_callables_and_routes_are_recorded() -> None:
    definition = (
        skill(name="d", entry="a")
        .step("a", prompt="x", next=lambda ctx: ctx.response["to"])
        .step("b", prompt="x", next=lambda ctx: "subskill:doc" if ctx else "topic:faq")
        .subskill("doc", skill(name="doc", entry="x").step("x", prompt="x", next=terminal).build())
        .topic("faq", label="FAQ", content="...")
        .build()
    )
    graph = analyze(definition)
    assert graph.opaque == {"a"}
    assert set(graph.routes["b"]) == {"subskill:doc", "topic:faq"}


def test_analysis_is_cached_on_the_definition() -> None:
    definition = onboarding()
    assert analyze(definition) is analyze(definition)

"""Graph analysis: successors, reachability, cycles and guaranteed steps."""

from skillkit_core import branch, skill, terminal
from skillkit_core.engine.graph import analyze
from skillkit_core.engine.graph_source import analyze_source


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


def route_after_a(ctx):
    seen = "a"  # a name the code reads, never returns
    if ctx.store.steps.ran(seen):
        return "done"
    return "c"


def route_through_a_variable(ctx):
    target = "c" if ctx.store.steps.get("a") else "done"
    return target


def store_reading_router():
    return (
        skill(name="r", entry="a")
        .step("a", prompt="x", next="b")
        .step("b", prompt="x", next=lambda ctx: "done" if ctx.store.steps.ran("a") else "c")
        .step("c", prompt="x", next=route_after_a)
        .step("v", prompt="x", next=route_through_a_variable)
        .step("done", prompt="x", next=terminal)
        .build()
    )


def test_strings_a_next_callable_only_reads_are_not_successors() -> None:
    definition = (
        skill(name="r", entry="a")
        .step("a", prompt="x", next="b")
        .step("b", prompt="x", next=lambda ctx: "done" if ctx.store.steps.ran("a") else "c")
        .step("c", prompt="x", next="done")
        .step("done", prompt="x", next=terminal)
        .build()
    )
    for graph in (analyze_source(definition), analyze(definition)):
        assert set(graph.successors["b"]) == {"done", "c"}
        assert graph.on_cycle == frozenset() and graph.cycles == ()
        assert graph.visit_limit(definition.steps["a"]) is None
        assert graph.guaranteed_before("done") == {"a", "b"}


def test_the_source_index_drops_strings_a_def_never_returns() -> None:
    assert set(analyze_source(store_reading_router()).successors["c"]) == {"c", "done"}
    # Compiled code alone cannot tell that the variable `seen` is never returned.
    assert "a" in analyze(store_reading_router()).successors["c"]


def test_returns_the_index_cannot_read_fall_back_to_the_compiled_code() -> None:
    graph = analyze_source(store_reading_router())
    assert set(graph.successors["v"]) == {"c", "done"}
    assert "v" not in graph.opaque


def test_compiled_code_reading_skips_call_subscript_and_comparison_operands() -> None:
    from skillkit_core.engine.graph import returned_strings

    fn = (  # noqa: E731 - the lambda is the thing under test
        lambda ctx: (
            "x"
            if ctx.store.steps["a"].ok and "b" in ctx.host.tools_available
            else ("y" if ctx.params.get("c", "d") == "e" else f"topic:{ctx.f}")
        )
    )
    assert returned_strings(fn) == {"x", "y"}
    assert returned_strings(lambda ctx: ctx.store.steps.ran("a")) == set()


def test_the_engine_graph_never_reads_the_source(monkeypatch) -> None:
    import skillkit_core.engine.graph_source as graph_source
    from skillkit_core.engine import WorkflowEngine

    def refuse(code):
        raise AssertionError("the engine must not index source files")

    monkeypatch.setattr(graph_source, "source_returns", refuse)
    definition = store_reading_router()
    engine = WorkflowEngine(definition)
    assert engine.graph is analyze(definition)

"""The workflow as Mermaid, DOT, SVG and PNG."""

import shutil

import pytest
from pydantic import BaseModel

from skillkit_core import branch, reference, skill, terminal
from skillkit_core.errors import UsageError
from skillkit_core.simulate.errors import GraphvizError
from skillkit_core.simulate.graph_render import build_diagram, render_graph, to_dot

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")


def test_mermaid_shows_steps_branch_conditions_and_terminals(deploy_check) -> None:
    text = render_graph(deploy_check, "mermaid")
    assert text.startswith("flowchart TD\n")
    assert 'n2 -->|"ctx.response.safe"| n3' in text
    assert 'n2 -->|"otherwise"| n5' in text
    assert 'n4((("end")))' in text
    assert "class n3,n5 terminal" in text


def test_loop_guards_and_visit_limits_are_drawn(get_to_know_you) -> None:
    diagram = build_diagram(get_to_know_you)
    guards = {(a.source, a.target, a.label) for a in diagram.arrows if a.style == "guard"}
    assert guards == {
        ("ask-role", "write-card", "after 2 visits"),
        ("ask-hobby", "confirm-profile", "after 3 visits"),
    }
    labels = {n.id: n.label for n in diagram.nodes}
    assert labels["ask-hobby"] == "ask-hobby\nmax 3 visits"
    assert labels["confirm-profile"] == "confirm-profile\nmax 10 visits (implicit)"
    dot = to_dot(diagram)
    assert '"ask-hobby" -> "confirm-profile" [style=dashed, color="gray40", label="guard: ' in dot


def test_sub_skills_are_clusters_and_topics_are_notes(help_desk) -> None:
    diagram = build_diagram(help_desk)
    assert diagram.clusters == {
        "cluster_doctor": "sub-skill doctor",
        "cluster_setup": "sub-skill setup",
        "cluster_topics": "topics",
    }
    clusters = {n.id: n.cluster for n in diagram.nodes}
    assert clusters["doctor/gate"] == "cluster_doctor"
    assert clusters["topic:auth"] == "cluster_topics"
    # _route builds f"subskill:{intent}" and f"topic:{intent}": every registered sub-skill
    # and topic is a route it can take, read by the graph analysis (not a guess).
    routes = {(a.target, a.label, a.style) for a in diagram.arrows if a.source == "classify"}
    assert routes == {
        ("doctor/diagnose", "_route()", "dynamic"),
        ("setup/configure", "_route()", "dynamic"),
        ("topic:rate-limits", "_route()", "dynamic"),
        ("topic:auth", "_route()", "dynamic"),
    }
    gate = {a.target for a in diagram.arrows if a.source == "doctor/gate"}
    assert gate >= {"doctor/report-issues", "doctor/report-clean"}
    text = render_graph(help_desk, "mermaid")
    assert 'subgraph cluster_doctor["sub-skill doctor"]' in text
    assert '[/"topic auth<br/>Authentication and tokens"/]' in text


def test_literal_routes_point_at_the_sub_skill_entry() -> None:
    class Pick(BaseModel):
        ok: bool

    inner = (
        skill(name="inner", entry="first")
        .step("first", prompt="Go.", response=Pick, next=terminal)
        .build()
    )
    outer = (
        skill(name="outer", entry="pick")
        .step(
            "pick",
            prompt="Pick.",
            response=Pick,
            next=[branch("subskill:inner", when=lambda ctx: ctx.response.ok), branch("topic:t")],
        )
        .subskill("inner", inner)
        .topic("t", label="T", content="text")
        .build()
    )
    arrows = {(a.source, a.target, a.label) for a in build_diagram(outer).arrows}
    assert ("pick", "inner/first", "ctx.response.ok") in arrows
    assert ("pick", "topic:t", "otherwise") in arrows


def test_labels_are_escaped_for_both_languages() -> None:
    class Said(BaseModel):
        text: str

    definition = (
        skill(name="quotes", entry="a")
        .step(
            "a",
            prompt="Say.",
            response=Said,
            next=[branch("b", when=lambda ctx: ctx.response.text == 'a "b" <c>'), branch("a")],
            max_visits=2,
            on_max_visits="b",
        )
        .step("b", prompt="Done.", response=Said, next=terminal)
        .build()
    )
    mermaid = render_graph(definition, "mermaid")
    assert "ctx.response.text == 'a #34;b#34; #60;c#62;'" in mermaid
    dot = render_graph(definition, "dot")
    assert 'label="ctx.response.text == \'a \\"b\\" <c>\'"' in dot


def test_reference_skills_draw_their_topics() -> None:
    notes = reference(name="notes", description="N.").topic("a", label="Alpha", content="x")
    diagram = build_diagram(notes.build())
    assert [n.id for n in diagram.nodes] == ["topic:a"]


def test_an_unreadable_callable_next_points_at_a_question_mark() -> None:
    class Said(BaseModel):
        text: str

    targets = {"x": "b"}
    definition = (
        skill(name="opaque", entry="a")
        .step("a", prompt="Say.", response=Said, next=lambda ctx: targets["x"])
        .step("b", prompt="B.", response=Said, next=terminal)
        .build()
    )
    diagram = build_diagram(definition)
    assert ("a", "a(?)", "next()") in {(a.source, a.target, a.label) for a in diagram.arrows}


@needs_dot
@pytest.mark.parametrize(("fmt", "magic"), [("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_images_come_from_graphviz(help_desk, fmt, magic) -> None:
    image = render_graph(help_desk, fmt)
    assert isinstance(image, bytes) and image.startswith(magic)


def test_a_missing_dot_is_a_clear_error(deploy_check, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GraphvizError, match="apt-get install graphviz") as caught:
        render_graph(deploy_check, "svg")
    assert caught.value.code == "graphviz"
    assert render_graph(deploy_check, "dot").startswith('digraph "deploy-check"')


def test_unknown_formats_are_usage_errors(deploy_check) -> None:
    with pytest.raises(UsageError, match="mermaid, dot, svg, png"):
        render_graph(deploy_check, "jpeg")

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
    ids, _ = diagram.numbered()
    dot = to_dot(diagram)
    guard = f'{ids["ask-hobby"]} -> {ids["confirm-profile"]} [style=dashed, color="gray40", '
    assert guard + 'label="guard: ' in dot


def test_sub_skills_are_clusters_and_topics_are_notes(help_desk) -> None:
    diagram = build_diagram(help_desk)
    assert diagram.clusters == {
        ("subskill", "doctor"): "sub-skill doctor",
        ("subskill", "setup"): "sub-skill setup",
        ("topics", ""): "topics",
    }
    clusters = {n.id: n.cluster for n in diagram.nodes}
    assert clusters["doctor/gate"] == ("subskill", "doctor")
    assert clusters["topic:auth"] == ("topics", "")
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
    assert 'subgraph cluster_0["sub-skill doctor"]' in text
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
    arrows = {(a.source, a.target, a.label) for a in diagram.arrows}
    assert ("a", ("unknown", "a"), "next()") in arrows


def _plain_labels(dot: str) -> dict[str, str]:
    """Each node's label as Graphviz itself reads it (``dot -Tplain``): the text drawn."""
    import shlex
    import subprocess

    done = subprocess.run(["dot", "-Tplain"], input=dot, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    labels = {}
    for line in done.stdout.splitlines():
        if line.startswith("node "):
            fields = shlex.split(line)
            labels[fields[1]] = fields[6]
    return labels


TRICKY = ["(start)", "(end)", "a(?)", "a", "x &amp; <y> & \\n", "`code` **bold**"]


def _tricky_skill():
    class Said(BaseModel):
        text: str

    builder = skill(name="tricky", entry="(start)")
    for index, name in enumerate(TRICKY[:-1]):
        builder = builder.step(name, prompt="Go.", response=Said, next=TRICKY[index + 1])
    inner = skill(name="topics", entry="go").step("go", prompt="Go.", next=terminal).build()
    return (
        builder.step(TRICKY[-1], prompt="End.", response=Said, next=lambda ctx: ctx.x)
        .subskill("topics", inner)
        .topic("faq", label="FAQ & more", content="x")
        .build()
    )


def test_every_step_has_its_own_node_whatever_its_name() -> None:
    # Steps named "(start)", "(end)" or "a(?)" took the start, end and "?" nodes' places,
    # and a sub-skill named "topics" merged into the topics cluster.
    diagram = build_diagram(_tricky_skill())
    steps = [n.label for n in diagram.nodes if n.kind == "step"]
    assert steps == [*TRICKY, "go"]
    assert len([n for n in diagram.nodes if n.kind == "start"]) == 2  # the skill's, topics'
    assert list(diagram.clusters.values()) == ["sub-skill topics", "topics"]
    ids, _ = diagram.numbered()
    starts = [a for a in diagram.arrows if a.source == ("start", "")]
    assert [a.target for a in starts] == ["(start)"] and ids["(start)"] != ids[("start", "")]


@needs_dot
def test_graphviz_shows_every_label_as_written() -> None:
    diagram = build_diagram(_tricky_skill())
    labels = set(_plain_labels(to_dot(diagram)).values())
    assert set(TRICKY) <= labels
    assert "topic faq\\nFAQ & more" in labels  # -Tplain writes a line break as \n


def test_mermaid_labels_carry_no_markup() -> None:
    text = render_graph(_tricky_skill(), "mermaid")
    assert '["x #38;amp; #60;y#62; #38; #92;n"]' in text
    assert '["#96;code#96; **bold**"]' in text
    assert 'subgraph cluster_0["sub-skill topics"]' in text
    assert 'subgraph cluster_1["topics"]' in text


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

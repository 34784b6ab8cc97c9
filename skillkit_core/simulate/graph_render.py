"""The workflow as a picture: Mermaid or Graphviz DOT text, or SVG/PNG through ``dot``.

One neutral diagram is built from the definition and its graph analysis (steps, the
transitions with their branch conditions' source text, loop guards, terminal steps,
sub-skills as clusters and topics), then written in either language.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from typing import TypeAlias

from skillkit_core.definitions import (
    SUBSKILL_PREFIX,
    TOPIC_PREFIX,
    ReferenceDefinition,
    SkillDefinition,
)
from skillkit_core.engine.graph_source import analyze_source
from skillkit_core.errors import UsageError
from skillkit_core.simulate.errors import GraphvizError
from skillkit_core.simulate.transitions import (
    UNKNOWN,
    TransitionInfo,
    shorten,
    step_transitions,
)

FORMATS = ("mermaid", "dot", "svg", "png")
IMAGE_FORMATS = ("svg", "png")
DOT_TIMEOUT = 60.0
_LABEL_LIMIT = 48
#: The edges Mermaid draws before it refuses a diagram ("Edge limit exceeded"): its
#: ``maxEdges`` setting's default (mermaid 11: config.type.ts, its schema default 500).
MERMAID_MAX_EDGES = 500

NodeId: TypeAlias = str | tuple[str, str]
"""A step's node is its name (``sub/step`` in a sub-skill), a topic's ``topic:name``; the
start, end and ``?`` nodes are ``(kind, scope)`` pairs, which no step name can equal (a
step named ``(start)`` took the start node's place). The writers number them all."""
ClusterId: TypeAlias = tuple[str, str]
"""``("subskill", name)`` or ``("topics", "")``: a sub-skill named ``topics`` is its own."""
_TOPICS: ClusterId = ("topics", "")


@dataclass(frozen=True)
class Node:
    """A box in the picture. ``kind``: ``start``, ``end``, ``step``, ``gate`` (a
    prompt-less step), ``topic`` or ``unknown``."""

    id: NodeId
    label: str
    kind: str
    cluster: ClusterId | None = None
    terminal: bool = False


@dataclass(frozen=True)
class Arrow:
    """A transition. ``style``: ``plain``, ``dynamic`` (a callable ``next``'s guess) or
    ``guard`` (a loop guard's fallback)."""

    source: NodeId
    target: NodeId
    label: str | None = None
    style: str = "plain"


@dataclass
class Diagram:
    """What both writers draw."""

    title: str
    nodes: list[Node] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    clusters: dict[ClusterId, str] = field(default_factory=dict)
    """Cluster → caption (one per sub-skill, and one for topics)."""

    def add(self, node: Node) -> None:
        if all(n.id != node.id for n in self.nodes):
            self.nodes.append(node)

    def add_missing_targets(self) -> None:
        """A node for each arrow's end that is no step (a misspelt name in a half-written
        skill), labelled with that name (Mermaid showed the generated id instead)."""
        for arrow in self.arrows:
            for end in (arrow.source, arrow.target):
                if isinstance(end, str):
                    self.add(Node(end, end, "step"))

    def numbered(self) -> tuple[dict[NodeId, str], dict[ClusterId, str]]:
        """The writers' ids: ``n0``, ``n1``… for nodes, ``cluster_0``… for clusters (DOT
        draws a subgraph as a box only when its id starts with ``cluster``)."""
        nodes = {node.id: f"n{index}" for index, node in enumerate(self.nodes)}
        clusters = {key: f"cluster_{index}" for index, key in enumerate(self.clusters)}
        return nodes, clusters


def render_graph(definition: SkillDefinition | ReferenceDefinition, fmt: str) -> str | bytes:
    """The picture in ``fmt`` (``mermaid``, ``dot``, ``svg`` or ``png``); SVG and PNG
    need Graphviz's ``dot`` (``GraphvizError`` when it is missing or fails)."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown graph format '{fmt}' (formats: {', '.join(FORMATS)})")
    diagram = build_diagram(definition)
    if fmt == "mermaid":
        return to_mermaid(diagram)
    text = to_dot(diagram)
    return text if fmt == "dot" else dot_image(text, fmt)


# -- the diagram ---------------------------------------------------------------------


def build_diagram(definition: SkillDefinition | ReferenceDefinition) -> Diagram:
    """The neutral diagram of a skill (a reference skill draws its topics only)."""
    diagram = Diagram(definition.name)
    if isinstance(definition, SkillDefinition):
        _add_skill(diagram, definition, prefix="", cluster=None)
        for sub in definition.subskills:
            cluster = ("subskill", sub.name)
            diagram.clusters[cluster] = f"sub-skill {sub.name}"
            _add_skill(diagram, sub.definition, prefix=f"{sub.name}/", cluster=cluster)
    if definition.topics:
        diagram.clusters[_TOPICS] = "topics"
        for topic in definition.topics:
            label = f"topic {topic.name}\n{shorten(topic.label, _LABEL_LIMIT)}"
            diagram.add(Node(f"{TOPIC_PREFIX}{topic.name}", label, "topic", _TOPICS))
    diagram.add_missing_targets()
    return diagram


def _add_skill(
    diagram: Diagram, skill: SkillDefinition, *, prefix: str, cluster: ClusterId | None
) -> None:
    graph = analyze_source(skill)
    start, end = ("start", prefix), ("end", prefix)
    diagram.add(Node(start, "start", "start", cluster))
    if skill.entry in skill.steps:
        diagram.arrows.append(Arrow(start, prefix + skill.entry))
    for step in skill.steps.values():
        name = prefix + step.name
        limit = graph.visit_limit(step)
        label = step.name
        if limit is not None:
            implicit = " (implicit)" if step.max_visits is None else ""
            label += f"\nmax {limit} visits{implicit}"
        kind = "step" if step.has_prompt else "gate"
        diagram.add(Node(name, label, kind, cluster, terminal=step.is_terminal))
        branches = sum(1 for t in step_transitions(step, graph) if t.kind == "branch")
        for info in step_transitions(step, graph):
            _add_transition(diagram, skill, name, prefix, info, branches, end, cluster)


def _add_transition(
    diagram: Diagram,
    skill: SkillDefinition,
    source: str,
    prefix: str,
    info: TransitionInfo,
    branches: int,
    end: NodeId,
    cluster: ClusterId | None,
) -> None:
    condition = shorten(info.condition, _LABEL_LIMIT) if info.condition else None
    if info.kind == "dynamic":
        # One function decides among all these arrows: name it, not its whole body.
        condition = info.condition if (info.condition or "").endswith("()") else "next()"
    if info.kind == "terminal":
        diagram.add(Node(end, "end", "end", cluster))
        diagram.arrows.append(Arrow(source, end))
        return
    if info.kind == "max_visits":
        diagram.arrows.append(Arrow(source, prefix + info.target, condition, "guard"))
        return
    if info.kind == "dynamic" and info.target == UNKNOWN:
        _add_unknown(diagram, skill, source, condition or "next()", cluster)
        return
    target = _node_for(skill, prefix, info.target)
    if info.kind == "branch":
        label = condition or ("otherwise" if branches > 1 else None)
        diagram.arrows.append(Arrow(source, target, label))
    elif info.kind == "dynamic":
        diagram.arrows.append(Arrow(source, target, condition, "dynamic"))
    else:
        diagram.arrows.append(Arrow(source, target))


def _node_for(skill: SkillDefinition, prefix: str, target: str) -> str:
    """The node a target names: a step, a sub-skill's entry, or a topic."""
    if target.startswith(SUBSKILL_PREFIX):
        sub = skill.subskill(target[len(SUBSKILL_PREFIX) :])
        return f"{sub.name}/{sub.definition.entry}" if sub else target
    if target.startswith(TOPIC_PREFIX):
        return target
    return prefix + target


def _add_unknown(
    diagram: Diagram,
    skill: SkillDefinition,
    source: str,
    condition: str,
    cluster: ClusterId | None,
) -> None:
    """A callable ``next`` whose code names no step: in a dispatcher it can only route to
    the registered sub-skills and topics (drawn as guesses); elsewhere a ``?`` node."""
    routes = [f"{SUBSKILL_PREFIX}{s.name}" for s in skill.subskills]
    routes += [f"{TOPIC_PREFIX}{t.name}" for t in skill.topics]
    if not routes:
        unknown = ("unknown", source)
        diagram.add(Node(unknown, "?", "unknown", cluster))
        diagram.arrows.append(Arrow(source, unknown, condition, "dynamic"))
        return
    for route in routes:
        target = _node_for(skill, "", route)
        diagram.arrows.append(Arrow(source, target, f"{condition}?", "dynamic"))


# -- Mermaid -------------------------------------------------------------------------

_MERMAID_SHAPES = {
    "start": ('(("', '"))'),
    "end": ('((("', '")))'),
    "step": ('["', '"]'),
    "gate": ('{{"', '"}}'),
    "topic": ('[/"', '"/]'),
    "unknown": ('{"', '"}'),
}
_MERMAID_ARROWS = {"plain": "-->", "dynamic": "-.->", "guard": "-.->"}


def to_mermaid(diagram: Diagram) -> str:
    """A Mermaid ``flowchart``: dotted arrows for callable ``next`` guesses and loop
    guards, a thick border for terminal steps, hexagons for prompt-less steps."""
    ids, cluster_ids = diagram.numbered()
    lines = ["flowchart TD"]
    for node in diagram.nodes:
        if node.cluster is None:
            lines.append("    " + _mermaid_node(node, ids))
    for cluster, caption in diagram.clusters.items():
        lines.append(f'    subgraph {cluster_ids[cluster]}["{_mermaid_text(caption)}"]')
        lines += ["        " + _mermaid_node(n, ids) for n in diagram.nodes if n.cluster == cluster]
        lines.append("    end")
    for arrow in diagram.arrows:
        source, target = ids[arrow.source], ids[arrow.target]
        link = _MERMAID_ARROWS[arrow.style]
        label = f"guard: {arrow.label}" if arrow.style == "guard" else arrow.label
        middle = f'|"{_mermaid_text(label)}"|' if label else ""
        lines.append(f"    {source} {link}{middle} {target}")
    terminal = [ids[n.id] for n in diagram.nodes if n.terminal]
    if terminal:
        lines.append("    classDef terminal stroke-width:3px")
        lines.append(f"    class {','.join(terminal)} terminal")
    return "\n".join(lines) + "\n"


def _mermaid_node(node: Node, ids: dict[NodeId, str]) -> str:
    opening, closing = _MERMAID_SHAPES[node.kind]
    return f"{ids[node.id]}{opening}{_mermaid_text(node.label)}{closing}"


# Characters a quoted Mermaid label reads as markup, written as its entity codes ("#"
# first: the codes hold one): "&" starts an HTML entity, "\" a "\n" line break, "`" a
# Markdown string (Mermaid's flowchart lexer, packages/mermaid/src/diagrams/flowchart).
_MERMAID_CODES = (
    ("#", "#35;"),
    ('"', "#34;"),
    ("<", "#60;"),
    (">", "#62;"),
    ("&", "#38;"),
    ("\\", "#92;"),
    ("`", "#96;"),
)


def _mermaid_text(text: str) -> str:
    """Text inside a quoted Mermaid label, shown as written."""
    for char, code in _MERMAID_CODES:
        text = text.replace(char, code)
    return _one_kind_of_break(text).replace("\n", "<br/>")


def _one_kind_of_break(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- DOT -----------------------------------------------------------------------------

_DOT_SHAPES = {
    "start": 'shape=circle, label="start", width=0.4, fontsize=9',
    "end": 'shape=doublecircle, label="end", width=0.3, fontsize=9',
    "step": 'shape=box, style="rounded"',
    "gate": "shape=hexagon",
    "topic": "shape=note",
    "unknown": "shape=diamond",
}
_DOT_STYLES = {"plain": "", "dynamic": "style=dotted", "guard": 'style=dashed, color="gray40"'}


def to_dot(diagram: Diagram) -> str:
    """A Graphviz ``digraph``: dotted edges for callable ``next`` guesses, dashed ones
    for loop guards, a bold border for terminal steps, clusters for sub-skills."""
    lines = [
        f"digraph {_dot_quote(diagram.title)} {{",
        f'    graph [rankdir=TB, fontname="Helvetica", label={_dot_quote(diagram.title)}, '
        "labelloc=t];",
        '    node [fontname="Helvetica", fontsize=11];',
        '    edge [fontname="Helvetica", fontsize=9];',
    ]
    ids, cluster_ids = diagram.numbered()
    lines += ["    " + _dot_node(n, ids) for n in diagram.nodes if n.cluster is None]
    for cluster, caption in diagram.clusters.items():
        lines.append(f"    subgraph {cluster_ids[cluster]} {{")
        lines.append(f"        label={_dot_quote(caption)}; style=dashed; color=gray60;")
        lines += ["        " + _dot_node(n, ids) for n in diagram.nodes if n.cluster == cluster]
        lines.append("    }")
    for arrow in diagram.arrows:
        attributes = [_DOT_STYLES[arrow.style]] if _DOT_STYLES[arrow.style] else []
        if arrow.label:
            text = f"guard: {arrow.label}" if arrow.style == "guard" else arrow.label
            attributes.append(f"label={_dot_quote(text)}")
        suffix = f" [{', '.join(attributes)}]" if attributes else ""
        lines.append(f"    {ids[arrow.source]} -> {ids[arrow.target]}{suffix};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_node(node: Node, ids: dict[NodeId, str]) -> str:
    attributes = _DOT_SHAPES[node.kind]
    if node.kind not in ("start", "end"):
        attributes += f", label={_dot_quote(node.label)}"
    if node.terminal:
        attributes += ", penwidth=2.5"
    return f"{ids[node.id]} [{attributes}];"


def _dot_quote(text: str) -> str:
    """A DOT string shown as written: Graphviz reads "&amp;"-style entities in labels."""
    escaped = text.replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    escaped = _one_kind_of_break(escaped).replace("\n", "\\n")
    return f'"{escaped}"'


# -- images --------------------------------------------------------------------------


def dot_image(dot_text: str, fmt: str) -> bytes:
    """Render DOT text to ``svg`` or ``png`` bytes with Graphviz's ``dot``."""
    if fmt not in IMAGE_FORMATS:
        raise UsageError(f"dot renders {', '.join(IMAGE_FORMATS)}; not '{fmt}'")
    program = shutil.which("dot")
    if program is None:
        raise GraphvizError(
            f"--format {fmt} needs Graphviz's 'dot' program, which is not on PATH. Install "
            "Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install "
            "graphviz), or use --format mermaid or --format dot"
        )
    try:
        done = subprocess.run(
            [program, f"-T{fmt}"],
            input=dot_text.encode("utf-8"),
            capture_output=True,
            timeout=DOT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GraphvizError(f"Graphviz's dot could not render the graph: {error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip() or "no message"
        raise GraphvizError(f"Graphviz's dot failed (exit {done.returncode}): {message}")
    return done.stdout

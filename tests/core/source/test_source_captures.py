"""The index's node collection stays linear on any text and finds what the query finds.

tree-sitter's query cursor is quadratic in a run of anonymous siblings (an ERROR node
holding 300,000 ``(`` took over a minute); a tree with errors is walked instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillkit_core.source.parse import parse, walk_captures

FIXTURE = (Path(__file__).parent / "fixtures" / "release_desk.py").read_text(encoding="utf-8")
PIECES = ["(", ")", "[", "]", '"', "'", "\n", "\r\n", ".step(", "def f(", "return ", " == ", ":"]


def _query_captures(tree: object) -> dict[str, list]:
    import tree_sitter

    from skillkit_core.source.parse import _QUERY_SOURCE, language

    query = tree_sitter.Query(language(), _QUERY_SOURCE)
    return tree_sitter.QueryCursor(query).captures(tree.root_node)  # type: ignore[attr-defined]


def _as_set(found: dict[str, list]) -> set[tuple[str, int, int, str]]:
    return {
        (name, node.start_byte, node.end_byte, node.type)
        for name, nodes in found.items()
        for node in nodes
    }


def _same_as_the_query(text: str) -> None:
    tree = parse(text.encode("utf-8", "surrogatepass"))
    walked, queried = _as_set(walk_captures(tree.root_node)), _as_set(_query_captures(tree))
    # The query cursor passes over a zero-width MISSING node at byte 0 (hypothesis found
    # ' == "x'); the walk reports it there as anywhere else, which is what the index wants.
    at_start = {found for found in walked - queried if found[:3] == ("error", 0, 0)}
    assert walked - at_start == queried


def test_a_missing_node_at_the_very_start_is_reported() -> None:
    tree = parse(b' == "x\n')
    assert ("error", 0, 0, "identifier") in _as_set(walk_captures(tree.root_node))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(FIXTURE)),
            st.integers(min_value=0, max_value=30),
            st.sampled_from(PIECES) | st.text(max_size=6),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_walking_a_broken_tree_finds_what_the_query_finds(mutations: list) -> None:
    text = FIXTURE
    for start, length, insert in mutations:
        text = text[:start] + insert + text[start + length :]
    _same_as_the_query(text)


@pytest.mark.parametrize(
    "text",
    [
        FIXTURE,
        "(" * 2_000,
        "f(" + "(" * 500 + ")",
        "x = [" + "(" * 300 + "]\ndef f():\n    return g(a[1] == 2\n",
        "(" + FIXTURE,
        FIXTURE[: len(FIXTURE) // 2],
        "def f(ctx):\n    if x == :\n        return steps['a'\n",
    ],
    ids=["valid", "parens", "in-call", "mixed", "leading-paren", "truncated", "missing"],
)
def test_walking_finds_what_the_query_finds_on_known_shapes(text: str) -> None:
    _same_as_the_query(text)


@pytest.mark.parametrize(
    "line",
    ["(" * 300_000, "[" * 300_000, "f(a, [" * 50_000, "x = " + "(" * 100_000 + "\nx = f()\n"],
    ids=["parens", "brackets", "calls-and-lists", "parens-then-code"],
)
def test_a_line_of_unclosed_brackets_is_indexed_without_stalling(line: str) -> None:
    # Before the walk, the first case alone held the interpreter for over a minute; the
    # bound is generous (it is about a second now), the run is in a child so a
    # regression fails instead of hanging the suite.
    script = (
        "import sys\n"
        "from skillkit_core.source import index_source, structural_diagnostics, symbols\n"
        "text = sys.stdin.read()\n"
        "index = index_source(text)\n"
        "structural_diagnostics(index)\n"
        "symbols(index)\n"
        "print(index.has_errors)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=line,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_parsing_again_and_again_keeps_nothing_of_the_text_read() -> None:
    # py-tree-sitter keeps a reference to every chunk its read callback returns; the
    # callback hands out one reused buffer, so 100 parses of 16 KB leave nothing behind.
    import gc
    import tracemalloc

    text = ("x = f(" + "a, " * 20 + ")\n") * 250
    data = text.encode("utf-8")
    parse(data)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(100):
            parse(data)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 500_000, f"{grown} bytes kept after 100 parses"

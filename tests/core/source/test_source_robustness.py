"""No text makes the index, its queries or its diagnostics raise: random text, random
mutations of a real skill file, binary garbage, deep nesting and huge files."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillkit_core.source import (
    MAX_INDEX_BYTES,
    SourceIndex,
    chain_at,
    definition_of,
    index_source,
    name_refs,
    node_at,
    ref_at,
    step_at,
    step_graph,
    structural_diagnostics,
    symbols,
)

FIXTURE = (Path(__file__).parent / "fixtures" / "release_desk.py").read_text(encoding="utf-8")
SNIPPETS = [
    "",
    '"',
    "'",
    '"""',
    "(",
    ")",
    "[",
    "]",
    "\n",
    "\r\n",
    "\r",
    "\x00",
    "\ud800",
    "é",
    "🚀",
    "\\",
    "#",
    "f'{",
    "}",
    ".step(",
    'next="',
    "branch(",
    "act.",
    "lambda ctx:",
    ".register(",
    ".subskill(",
    "ctx.store.steps[",
    " in ctx.host.tools_available",
    "def f(ctx):\n    return '",
    "skill(",
    "module(",
]


def _index_and_ask_everything(text: str) -> SourceIndex:
    index = index_source(text)
    assert index.text == text
    assert index._state is not None, "the index fell back to its safety net"
    lines = text.splitlines() or [""]
    probes = random.Random(len(text)).sample(range(len(lines)), min(len(lines), 12))
    for line in probes:
        for column in (0, len(lines[line]) // 2, len(lines[line]), len(lines[line]) + 5):
            node_at(index, line, column)
            step_at(index, line, column)
            chain_at(index, line, column)
            found = ref_at(index, line, column)
            if found is not None:
                definition_of(index, found)
    for ref in index.refs[:20]:
        name_refs(index, ref.name, chain=ref.chain)
    for chain in index.chains:
        step_graph(index, chain.index)
    symbols(index)
    structural_diagnostics(index)
    _check_ranges(index, text)
    return index


def _check_ranges(index: SourceIndex, text: str) -> None:
    line_count = len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    for ref in index.refs:
        for span in (ref.range, ref.inner, ref.name_range):
            assert 0 <= span.line <= span.end_line < line_count
            assert (span.line, span.column) <= (span.end_line, span.end_column)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_random_text_never_raises(text: str) -> None:
    _index_and_ask_everything(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(FIXTURE)),
            st.integers(min_value=0, max_value=40),
            st.sampled_from(SNIPPETS) | st.text(max_size=8),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_random_mutations_of_a_skill_file_never_raise(mutations: list) -> None:
    text = FIXTURE
    for start, length, insert in mutations:
        text = text[:start] + insert + text[start + length :]
        _index_and_ask_everything(text)


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=0, max_value=len(FIXTURE)))
def test_every_truncation_of_a_skill_file_is_indexed(cut: int) -> None:
    index = _index_and_ask_everything(FIXTURE[:cut])
    if cut == len(FIXTURE):
        assert not index.has_errors


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=2000))
def test_binary_garbage_never_raises(data: bytes) -> None:
    _index_and_ask_everything(data.decode("latin-1"))
    _index_and_ask_everything(data.decode("utf-8", "surrogateescape"))


@pytest.mark.parametrize(
    "text",
    [
        "(" * 50_000,
        "[" * 30_000 + "]" * 30_000,
        "f(" * 5_000 + ")" * 5_000,
        "x" + ".y" * 50_000,
        "not " * 20_000 + "x",
        'x = skill(name="s", entry="a")' + '.step("a", next="a")' * 3_000,
        'x = skill(name="s", entry="a").step("a", next=lambda c: '
        + '"a" if c else ' * 2_000
        + '"a")',
        'x = "' + "\\" * 10_000,
        "def f(ctx):\n" + "    " * 200 + "return 'a'\n",
    ],
    ids=[
        "parens",
        "lists",
        "calls",
        "attributes",
        "nots",
        "long-chain",
        "conditionals",
        "escapes",
        "indent",
    ],
)
def test_pathological_nesting_never_raises(text: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        index = index_source(text)
        structural_diagnostics(index)
        node_at(index, 0, len(text))
        symbols(index)
    assert not caplog.records


def test_a_long_chain_keeps_every_step_in_order() -> None:
    text = 'x = skill(name="s", entry="s0")' + "".join(
        f'.step("s{i}", next="s{i + 1}")' for i in range(2_000)
    )
    index = index_source(text)
    assert [step.name for step in index.steps] == [f"s{i}" for i in range(2_000)]
    (diagnostic,) = structural_diagnostics(index)
    assert diagnostic.rule == "unknown-step" and diagnostic.message.startswith(
        "step 's1999': next 's2000' is not a step"
    )


def test_a_file_larger_than_the_limit_is_not_parsed() -> None:
    text = "# " + "x" * MAX_INDEX_BYTES
    index = index_source(text)
    assert index.too_large and index.chains == () and index.refs == ()
    assert structural_diagnostics(index) == []
    assert node_at(index, 0, 5) is None

"""Navigation questions on the index: step under the cursor, references, definitions,
symbols and step graphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source import (
    Role,
    SourceIndex,
    Target,
    chain_at,
    chain_named,
    definition_of,
    definitions,
    index_source,
    name_refs,
    ref_at,
    step_at,
    step_graph,
    step_named,
    symbols,
)

FIXTURE = Path(__file__).parent / "fixtures" / "release_desk.py"


@pytest.fixture(scope="module")
def index() -> SourceIndex:
    return index_source(FIXTURE.read_text(encoding="utf-8"))


def test_step_at_finds_the_step_call_around_a_position(index: SourceIndex) -> None:
    assert step_at(index, 66, 20).name == "verify"  # inside verify's response argument
    assert step_at(index, 63, 11).name == "verify"  # on the dot that starts the call
    assert step_at(index, 92, 61).name == "abort"  # on the closing parenthesis
    assert step_at(index, 47, 0) is None  # the skill(...) call itself
    assert step_at(index, 0, 0) is None


def test_chain_at_prefers_the_chain_around_the_position(index: SourceIndex) -> None:
    assert chain_at(index, 70, 0).display_name == "release-desk"
    assert chain_at(index, 108, 0).display_name == "desk"
    assert chain_at(index, 103, 0).display_name == "release-docs"  # the nearest one above


def test_name_refs_collects_definition_transitions_and_store_reads(index: SourceIndex) -> None:
    refs = name_refs(index, "verify")
    assert [(ref.role, ref.range.line) for ref in refs] == [
        (Role.STORE_GET, 36),
        (Role.NEXT, 61),
        (Role.DEFINITION, 64),
        (Role.NEXT, 80),
    ]


def test_name_refs_spans_a_skill_and_the_modules_it_registers(index: SourceIndex) -> None:
    refs = name_refs(index, "auth-login", chain=1)
    assert [(ref.role, ref.chain) for ref in refs] == [
        (Role.ENTRY, 0),
        (Role.DEFINITION, 0),
        (Role.NEXT, 1),
    ]
    assert name_refs(index, "classify", chain=1) == ()
    assert len(name_refs(index, "classify", chain=3)) == 3


def test_routes_and_self_are_not_references_to_a_step_of_that_name(index: SourceIndex) -> None:
    assert all(ref.target == Target.STEP for ref in name_refs(index, "release"))
    assert name_refs(index, "release") == ()
    assert name_refs(index, "self") == ()


def test_definitions_and_definition_of_resolve_within_the_namespace(index: SourceIndex) -> None:
    (login,) = definitions(index, "auth-login", chain=1)
    assert login.chain == 0
    assert definitions(index, "auth-login", chain=3) == ()
    next_login = ref_at(index, 59, 12)
    assert next_login is not None and definition_of(index, next_login) == login
    self_ref = ref_at(index, 88, 72)
    assert self_ref is not None and self_ref.target == Target.SELF
    assert definition_of(index, self_ref).name == "deploy"
    route = ref_at(index, 110, 30)
    assert route is not None and route.target == Target.SUBSKILL
    assert definition_of(index, route) is None


def test_ref_at_includes_the_quotes_and_nothing_around_them(index: SourceIndex) -> None:
    assert ref_at(index, 80, 62).name == "verify"  # the opening quote
    assert ref_at(index, 80, 70).name == "verify"  # after the closing quote
    assert ref_at(index, 80, 61) is None


def test_symbols_nest_steps_topics_and_subskills_under_their_chain(index: SourceIndex) -> None:
    auth, release, docs, desk = symbols(index)
    assert (release.name, release.kind, release.detail) == ("release-desk", "skill", "release")
    assert release.range == SourceRange(47, 0, 96, 1)
    assert release.selection_range == SourceRange(47, 22, 47, 34)
    assert [child.name for child in release.children] == [
        "choose", "verify", "review", "fix", "deploy", "abort", "done", "orphan",
    ]  # fmt: skip
    choose = release.children[0]
    assert choose.detail == "act (ask_user) → Choose"
    assert choose.selection_range == SourceRange(49, 5, 49, 11)
    assert [(child.name, child.kind) for child in desk.children] == [
        ("classify", "step"),
        ("release", "subskill"),
        ("rollback", "topic"),
    ]
    assert [child.kind for child in docs.children] == ["topic"]
    assert auth.kind == "module"
    for parent in (auth, release, docs, desk):
        for child in parent.children:
            assert (parent.range.line, parent.range.column) <= (
                child.range.line,
                child.range.column,
            )
            assert (child.range.end_line, child.range.end_column) <= (
                parent.range.end_line,
                parent.range.end_column,
            )


def test_the_step_graph_follows_literal_transitions_and_module_exits(index: SourceIndex) -> None:
    graph = step_graph(index, 1)
    assert graph.known and graph.entry == "choose"
    assert graph.outgoing["choose"] == ("auth-login",)
    assert graph.outgoing["auth-login"] == ("verify",)  # PARENT → .register(next="verify")
    assert graph.outgoing["review"] == ("abort", "deploy", "fix")
    assert graph.outgoing["deploy"] == ("deploy", "done")  # "self" is a loop
    assert graph.incoming["done"] == ("abort", "deploy", "orphan")
    assert graph.incoming["orphan"] == ()


def test_a_dynamic_next_makes_the_graph_unknown() -> None:
    text = (
        'x = skill(name="s", entry="a").step("a", next=pick).step("b", next=terminal)\n'
        "def pick(ctx):\n    return ctx.response.where\n"
    )
    index = index_source(text)
    assert not step_graph(index, 0).known
    (function,) = index.functions
    assert function.used_as_next and not function.returns_known


def test_a_built_definition_maps_back_to_its_chain_and_steps(index: SourceIndex) -> None:
    assert chain_named(index, "release-desk").index == 1
    assert chain_named(index, "docs").index == 2  # by variable when no name matches
    assert chain_named(index, "nope") is None
    assert step_named(index, "auth-login", skill="release-desk").chain == 0  # a registered module
    assert step_named(index, "classify", skill="release-desk") is None
    assert step_named(index, "classify").chain == 3
    assert step_named(index, "x", skill="nope") is None

"""Session state: load modes, order, the cap, unload, selection, receipts."""

from __future__ import annotations

import pytest

from skillkit_core.runtime.errors import (
    NoActiveSkillError,
    ToolArgumentsError,
    TooManySkillsError,
    UnknownSkillError,
)
from skillkit_core.runtime.registry import discover_skills
from skillkit_core.runtime.session import RuntimeSession
from tests.runtime.support import SKILLS, SkillTree

ROOTS = [SKILLS / "library", SKILLS / "single", SKILLS / "workflows"]


@pytest.fixture
def session() -> RuntimeSession:
    return RuntimeSession(discover_skills(ROOTS), max_active=3)


def test_replace_sets_the_active_skills_in_the_given_order(session: RuntimeSession) -> None:
    session.load(["single", "toolbox"])
    assert session.active_names == ["single", "toolbox"]
    session.load(["summarize"], "replace")
    assert session.active_names == ["summarize"]


def test_add_appends_new_skills_and_keeps_loaded_ones_in_place(session: RuntimeSession) -> None:
    session.load(["toolbox"])
    session.load(["single", "toolbox"], "add")
    assert session.active_names == ["toolbox", "single"]


def test_names_are_deduplicated(session: RuntimeSession) -> None:
    loaded = session.load(["single", "single", "toolbox"])
    assert [record.name for record in loaded] == ["single", "toolbox"]
    assert session.active_names == ["single", "toolbox"]


def test_the_cap_refuses_with_advice_and_changes_nothing(session: RuntimeSession) -> None:
    session.load(["toolbox", "single"])
    with pytest.raises(TooManySkillsError, match=r"4 skills active; at most 3.*Load fewer"):
        session.load(["summarize", "deploy-flow"], "add")
    with pytest.raises(TooManySkillsError):
        session.load(["toolbox", "single", "summarize", "deploy-flow"])
    assert session.active_names == ["toolbox", "single"]


def test_unknown_names_are_refused_and_change_nothing(session: RuntimeSession) -> None:
    session.load(["toolbox"])
    with pytest.raises(UnknownSkillError, match=r"'nope', 'sumarize'.*did you mean 'summarize'"):
        session.load(["single", "nope", "sumarize"])
    assert session.active_names == ["toolbox"]


@pytest.mark.parametrize(
    ("names", "mode"),
    [([], "replace"), ("toolbox", "replace"), ([""], "replace"), ([3], "add"), (["toolbox"], "x")],
)
def test_malformed_load_arguments_are_refused(session: RuntimeSession, names, mode) -> None:
    with pytest.raises(ToolArgumentsError):
        session.load(names, mode)


def test_unload_by_name_ignores_skills_not_loaded(session: RuntimeSession) -> None:
    session.load(["toolbox", "single", "summarize"])
    session.unload(["single", "deploy-flow", "not-a-skill"])
    assert session.active_names == ["toolbox", "summarize"]
    session.unload(unload_all=True)
    assert session.active_names == []


def test_unload_needs_exactly_one_of_names_and_all(session: RuntimeSession) -> None:
    with pytest.raises(ToolArgumentsError, match="either 'names' or 'all'"):
        session.unload(["toolbox"], unload_all=True)
    with pytest.raises(ToolArgumentsError, match="give 'names'"):
        session.unload()


def test_select_defaults_to_the_most_recently_loaded(session: RuntimeSession) -> None:
    with pytest.raises(NoActiveSkillError, match="no skill is loaded; call skills_load"):
        session.select()
    session.load(["toolbox"])
    session.load(["single"], "add")
    assert session.select().name == "single"
    assert session.select("toolbox").name == "toolbox"
    with pytest.raises(NoActiveSkillError, match="'summarize' is not loaded"):
        session.select("summarize")


def test_receipt_lists_active_skills_in_order(session: RuntimeSession) -> None:
    session.load(["single", "toolbox"])
    receipt = session.receipt()
    assert [entry["name"] for entry in receipt["active_skills"]] == ["single", "toolbox"]
    assert set(receipt["active_skills"][0]) == {
        "name",
        "location",
        "root_dir",
        "digest",
        "properties",
    }
    assert session.bodies()[0][0] == "single" and "SINGLE-BODY-MARKER" in session.bodies()[0][1]


def test_loading_caches_the_body_as_it_was_at_load_time(own_tree: SkillTree) -> None:
    session = RuntimeSession(discover_skills([own_tree.library]))
    skill_md = own_tree.toolbox / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nEDIT-ONE\n")
    session.load(["toolbox"])
    skill_md.write_text(skill_md.read_text() + "\nEDIT-TWO\n")
    assert "EDIT-ONE" in session.select().body
    assert "EDIT-TWO" not in session.select().body
    session.load(["toolbox"], "add")  # reloading re-reads
    assert "EDIT-TWO" in session.select().body


def test_each_session_has_its_own_state() -> None:
    registry = discover_skills(ROOTS)
    first, second = RuntimeSession(registry), RuntimeSession(registry)
    first.load(["toolbox"])
    assert second.active_names == []
    assert first.session_id != second.session_id

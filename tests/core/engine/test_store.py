"""Store access: results by name, all visits, read-only records, sub-stores."""

import pytest

from skillkit_core import skill, terminal
from skillkit_core.engine.results import StepResult
from skillkit_core.engine.store import StepNotRunError, Store
from skillkit_core.records import Record


def store():
    definition = (
        skill(name="s", entry="a", stores={"profile": dict[str, str]})
        .step("a", prompt="x", next="b")
        .step("b", prompt="x", next=terminal)
        .build()
    )
    store = Store(definition)
    store.append(StepResult("a", {}, {"v": 1, "nested": {"k": [1, 2]}}))
    store.append(StepResult("a", {}, {"v": 2, "nested": {"k": []}}))
    return store


def test_latest_result_all_visits_and_ran() -> None:
    s = store()
    assert s.steps["a"].v == 2 and s.steps["a"]["v"] == 2
    assert [r.v for r in s.steps.all("a")] == [1, 2]
    assert s.steps.ran("a") and not s.steps.ran("b")
    assert s.steps.get("b") is None
    assert len(s.steps.history) == 2 and "a" in s.steps


def test_missing_steps_raise_a_key_error_with_a_hint() -> None:
    s = store()
    with pytest.raises(StepNotRunError, match="has not run on this path"):
        s.steps["b"]
    with pytest.raises(KeyError, match="not a step of this skill"):
        s.steps["zzz"]


def test_results_are_read_only_all_the_way_down() -> None:
    record = store().steps.all("a")[0]
    assert isinstance(record.nested, Record)
    assert record.nested.k == (1, 2)
    with pytest.raises(TypeError):
        record.v = 3
    with pytest.raises(TypeError):
        record["v"] = 3  # type: ignore[index]
    with pytest.raises(AttributeError, match="has no field 'zz'"):
        _ = record.zz


def test_sub_stores_start_empty_and_deep_merge() -> None:
    s = store()
    assert s.profile == {} and s.profile.get("name") is None
    s.write("a", "profile", {"name": "Ada"})
    s.write("a", "profile", {"role": "dev"})
    assert s.profile == {"name": "Ada", "role": "dev"}
    with pytest.raises(AttributeError, match="no sub-store 'other'"):
        _ = s.other


def test_rollback_restores_results_and_sub_stores() -> None:
    s = store()
    mark = s.checkpoint()
    s.append(StepResult("b", {}, {}))
    s.write("b", "profile", {"name": "x"})
    s.rollback(mark)
    assert not s.steps.ran("b") and s.profile == {} and s.steps["a"].v == 2

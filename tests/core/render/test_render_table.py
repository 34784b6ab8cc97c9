from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from skillkit_core import render
from skillkit_core.errors import SkillDefinitionError

CHECKS = [
    {"name": "ci", "status": "fail", "detail": "no config"},
    {"name": "lint", "status": "pass", "detail": "eslint configured"},
]


def test_table_with_columns_and_default_status_icons():
    assert render.table(CHECKS, columns=["name", "status", "detail"]) == (
        "| name | status | detail |\n"
        "| --- | --- | --- |\n"
        "| ci | ❌ fail | no config |\n"
        "| lint | ✅ pass | eslint configured |"
    )


def test_columns_default_to_the_first_rows_keys():
    assert render.table(CHECKS).splitlines()[0] == "| name | status | detail |"


def test_columns_choose_and_order():
    assert render.table(CHECKS, columns=["detail", "name"]).splitlines()[2] == "| no config | ci |"


def test_empty_rows_give_an_empty_string():
    assert render.table([]) == ""


def test_custom_status_icons_override_defaults_and_unknown_values_stay_plain():
    text = render.table(
        [{"status": "fail"}, {"status": "flaky"}, {"status": "pass"}],
        status_icons={"fail": "🔥", "flaky": "🎲"},
    )
    assert text.splitlines()[2:] == ["| 🔥 fail |", "| 🎲 flaky |", "| ✅ pass |"]


def test_icons_only_apply_to_the_status_column():
    assert render.table([{"result": "pass"}]).splitlines()[2] == "| pass |"


def test_cells_are_escaped_and_values_formatted():
    text = render.table([{"a": "x|y", "b": "one\ntwo", "c": None, "d": True, "e": [1, 2]}])
    assert text.splitlines()[2] == "| x\\|y | one<br>two |  | true | 1, 2 |"


def test_missing_fields_are_empty_cells():
    text = render.table([{"a": 1, "b": 2}, {"a": 3}])
    assert text.splitlines()[3] == "| 3 |  |"


def test_rows_may_be_models_or_dataclasses():
    class Check(BaseModel):
        name: str
        status: str

    @dataclass
    class Row:
        name: str
        status: str

    expected = "| name | status |\n| --- | --- |\n| ci | ✅ ok |"
    assert render.table([Check(name="ci", status="ok")]) == expected
    assert render.table([Row("ci", "ok")]) == expected


def test_rows_that_are_not_records_are_refused():
    with pytest.raises(SkillDefinitionError, match=r"render\.table: expected a dict-like row"):
        render.table(["ci"])

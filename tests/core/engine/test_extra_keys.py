"""A key the schema does not declare is refused, never dropped silently.

The reference SDK keeps such keys; skillkit used to drop them without a word, so an agent
that wrote ``blocker`` for ``blockers`` never learnt why its answer lost data. Now it gets
a retryable validation error naming the key, unless the author's models opt in to extra
keys with their own ``extra`` setting. The JSON Schema the agent is given says which:
``"additionalProperties": false`` on each object whose undeclared keys are refused.
"""

import dataclasses

import pytest
from pydantic import BaseModel, ConfigDict, RootModel
from typing_extensions import TypedDict

from skillkit_core.engine import Handshake, WorkflowEngine
from skillkit_core.errors import ParamsError
from tests.core.engine.skills import one_answer, started


class Verdict(BaseModel):
    safe: bool


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    safe: bool


class Params(BaseModel):
    target: str


class Ignoring(BaseModel):
    model_config = ConfigDict(extra="ignore")
    safe: bool


class Checked(TypedDict):
    name: str


@dataclasses.dataclass
class Where:
    host: str


class Labels(RootModel[dict[str, str]]):
    pass


class Report(BaseModel):
    verdict: Verdict
    checked: list[Checked]
    where: Where
    labels: Labels
    notes: dict[str, int]


class Mixed(BaseModel):
    verdict: Verdict
    open: Open


def _skill(response: type[BaseModel]):
    return one_answer(response, Params, step="check")


async def _started(response: type[BaseModel]) -> WorkflowEngine:
    return await started(_skill(response), {"target": "t"})


async def test_an_undeclared_key_in_a_response_is_a_retryable_error_naming_it() -> None:
    engine = await _started(Verdict)
    wire = (await engine.advance("check", {"safe": True, "blocker": "db"})).to_wire()
    assert wire["kind"] == "error" and wire["error"] == "validation" and wire["retry"] is True
    assert wire["message"] == "blocker: not a field of the schema; leave it out"
    assert engine.current == "check"
    assert (await engine.advance("check", {"safe": True})).to_wire()["step"] == "end"


async def test_a_model_that_allows_extra_keys_keeps_them() -> None:
    engine = await _started(Open)
    wire = (await engine.advance("check", {"safe": True, "note": "n"})).to_wire()
    assert wire["completed"]["response"] == {"safe": True, "note": "n"}


def test_an_undeclared_param_is_refused() -> None:
    with pytest.raises(ParamsError, match="x: not a field of the schema; leave it out"):
        WorkflowEngine(_skill(Verdict), Handshake(host="generic"), {"target": "t", "x": 1})


async def test_a_nested_model_that_allows_extra_keys_keeps_them() -> None:
    # pydantic refuses undeclared keys in a whole answer or nowhere: a nested model's own
    # policy used to be overridden, against the schema's "additionalProperties": true.
    engine = await _started(Mixed)
    answer = {"verdict": {"safe": True, "x": 1}, "open": {"safe": True, "note": "n"}}
    wire = (await engine.advance("check", answer)).to_wire()
    assert wire["completed"]["response"] == {
        "verdict": {"safe": True},
        "open": {"safe": True, "note": "n"},
    }


async def test_an_undeclared_key_deep_in_an_answer_is_refused_with_its_path() -> None:
    engine = await _started(Report)
    answer = {
        "verdict": {"safe": True},
        "checked": [{"name": "db", "ok": True}],
        "where": {"host": "h"},
        "labels": {"any": "key"},
        "notes": {"free": 1},
    }
    wire = (await engine.advance("check", answer)).to_wire()
    assert wire["message"] == "checked.0.ok: not a field of the schema; leave it out"
    del answer["checked"][0]["ok"]
    assert (await engine.advance("check", answer)).to_wire()["step"] == "end"


def _closed_objects(schema: dict) -> dict[str, bool | None]:
    """Each titled object of a JSON Schema (root and $defs) and its additionalProperties."""
    objects = [schema, *schema.get("$defs", {}).values()]
    return {o["title"]: o.get("additionalProperties") for o in objects if "title" in o}


async def test_the_schema_an_agent_is_given_says_which_objects_are_closed() -> None:
    engine = WorkflowEngine(_skill(Report), Handshake(host="generic"), {"target": "t"})
    schema = (await engine.start()).to_wire()["schema"]
    assert _closed_objects(schema) == {
        "Report": False,
        "Verdict": False,
        "Checked": False,
        "Where": False,
        "Labels": {"type": "string"},  # a dict: any key
    }
    assert schema["properties"]["notes"]["additionalProperties"] == {"type": "integer"}


@pytest.mark.parametrize(
    ("response", "closed"),
    [(Mixed, {"Mixed": None, "Verdict": None, "Open": True}), (Ignoring, {"Ignoring": None})],
)
async def test_an_extra_policy_anywhere_leaves_the_schema_open(response, closed) -> None:
    engine = WorkflowEngine(_skill(response), Handshake(host="generic"), {"target": "t"})
    schema = (await engine.start()).to_wire()["schema"]
    assert _closed_objects(schema) == closed


def test_the_params_schema_is_closed_too() -> None:
    definition = _skill(Verdict)
    assert definition.params.json_schema()["additionalProperties"] is False


class SaysOpen(BaseModel):
    model_config = ConfigDict(json_schema_extra={"additionalProperties": True})
    safe: bool


async def test_a_schema_extra_that_opens_the_object_keeps_undeclared_keys() -> None:
    engine = WorkflowEngine(_skill(SaysOpen), Handshake(host="generic"), {"target": "t"})
    assert (await engine.start()).to_wire()["schema"]["additionalProperties"] is True
    wire = (await engine.advance("check", {"safe": True, "note": "n"})).to_wire()
    assert wire["step"] == "end", wire


@dataclasses.dataclass
class Tally:
    seen: int
    total: int = dataclasses.field(init=False, default=0)


class WithTally(BaseModel):
    tally: Tally


async def test_a_dataclass_field_no_answer_can_set_is_not_in_the_schema() -> None:
    # pydantic lists an init=False field as a property, then refuses it as input.
    engine = WorkflowEngine(_skill(WithTally), Handshake(host="generic"), {"target": "t"})
    schema = (await engine.start()).to_wire()["schema"]
    assert schema["$defs"]["Tally"]["properties"] == {"seen": {"title": "Seen", "type": "integer"}}
    wire = (await engine.advance("check", {"tally": {"seen": 1, "total": 2}})).to_wire()
    assert wire["message"] == "tally.total: not a field of the schema; leave it out"

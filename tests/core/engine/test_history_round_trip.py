"""A ``completed`` object passed back as history replays to the same state.

A stateless agent hands back each ``completed`` as a ``--history`` entry (PROTOCOL.md),
which is validated again as its answer. The dump of a validated value is not always an
answer the schema takes: aliases are written as field names, computed fields are added,
excluded fields left out, serializers applied, and a validator may change a value twice
(found with hypothesis-jsonschema answers to the schemas skillkit shows). Such a step's
entry carries the answer as the agent wrote it; a plain model's keeps its dump (defaults
filled in).
"""

from typing import Annotated

import pytest
from pydantic import (
    AliasPath,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    computed_field,
    field_validator,
)

from skillkit_core.engine import WorkflowEngine
from tests.core.engine.skills import one_answer, started


class Params(BaseModel):
    pass


class Aliased(BaseModel):
    user_name: str = Field(alias="userName")


class Nested(BaseModel):
    name: str = Field(validation_alias=AliasPath("data", "name"))


class Box(BaseModel):
    width: int
    height: int

    @computed_field
    @property
    def area(self) -> int:
        return self.width * self.height


class Secret(BaseModel):
    token: str = Field(exclude=True)
    label: str


class Serialised(BaseModel):
    amount: Annotated[int, PlainSerializer(lambda value: str(value), return_type=str)]


class Counter(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def bump(cls, value: int) -> int:
        return value + 1


class Snake(BaseModel):
    model_config = ConfigDict(alias_generator=lambda name: name.upper())
    level: int


CASES = [
    (Aliased, {"userName": "ada"}),
    (Nested, {"data": {"name": "ada"}}),
    (Box, {"width": 2, "height": 3}),
    (Secret, {"token": "t", "label": "l"}),
    (Serialised, {"amount": 5}),
    (Counter, {"n": 1}),
    (Snake, {"LEVEL": 2}),
]


@pytest.mark.parametrize(("model", "answer"), CASES, ids=[model.__name__ for model, _ in CASES])
async def test_a_completed_entry_replays_to_the_same_value(
    model: type[BaseModel], answer: dict
) -> None:
    definition = one_answer(model, Params)
    engine = await started(definition, {})
    wire = (await engine.advance("gate", answer)).to_wire()
    assert wire["kind"] == "prompt" and wire["step"] == "end", wire
    assert wire["completed"]["response"] == answer
    again = WorkflowEngine(definition, params={})
    await again.replay([wire["completed"]])
    assert again.current == "end"
    assert again.store.steps["gate"] == engine.store.steps["gate"]


class Plain(BaseModel):
    name: str
    count: int = 3


async def test_a_plain_models_entry_is_its_dump_with_defaults() -> None:
    engine = await started(one_answer(Plain, Params), {})
    wire = (await engine.advance("gate", {"name": "ada"})).to_wire()
    assert wire["completed"]["response"] == {"name": "ada", "count": 3}
    again = WorkflowEngine(one_answer(Plain, Params), params={})
    await again.replay([wire["completed"]])
    assert again.store.steps["gate"] == engine.store.steps["gate"]


class Reading(BaseModel):
    value: float


async def test_an_integer_beyond_a_floats_range_is_a_validation_error() -> None:
    # pydantic makes it an infinity, which a reply would print as Infinity (no JSON).
    engine = await started(one_answer(Reading, Params), {})
    wire = (await engine.advance("gate", {"value": 10**309})).to_wire()
    assert (wire["kind"], wire["error"], wire["retry"]) == ("error", "validation", True)
    assert wire["message"] == "value: a number that JSON cannot hold (NaN, or beyond ±1.8e308)"
    wire = (await engine.advance("gate", {"value": 10**308})).to_wire()
    assert wire["step"] == "end" and wire["completed"]["response"] == {"value": 1e308}

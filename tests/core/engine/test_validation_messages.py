"""Validation messages name paths of the agent's answer: pydantic's union member tags
(``pet.cat.meows``, ``v.int``) are no keys of it, so a problem of one member says which
(``pet.meows (as cat)``), and a key of another member is not called wrong outright
(an agent told "barks: not a field of the schema; leave it out" deleted the field its
Dog needed; found by answering the shown schemas with hypothesis-jsonschema)."""

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from tests.core.engine.skills import one_answer, started


class Params(BaseModel):
    pass


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    meows: bool


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    barks: bool


class Pets(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    any_pet: Cat | Dog | None = None
    value: int | str = 0
    weights: dict[float, int] = {}
    cats: list[Cat] = []


PET = {"kind": "cat", "meows": True}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            {"pet": {"kind": "cat", "meows": "x"}},
            "pet.meows (as cat): Input should be a valid boolean",
        ),
        ({"pet": {"kind": "cat"}}, "pet.meows (as cat): Field required"),
        (
            {"pet": PET, "value": 1.5},
            "value (as int): Input should be a valid integer; "
            "value (as str): Input should be a valid string",
        ),
        (
            {"pet": PET, "any_pet": {"kind": "dog", "barks": "x"}},
            "any_pet.kind (as Cat): Input should be 'cat'; any_pet.meows (as Cat): Field "
            "required; any_pet.barks (as Cat): not a field of Cat; any_pet.barks (as Dog): "
            "Input should be a valid boolean",
        ),
        (
            {"pet": PET, "weights": {"abc": 1}},
            "weights.abc (the key): Input should be a valid number, unable to parse string "
            "as a number",
        ),
        ({"pet": PET, "cats": [{"meows": 1}]}, "cats.0.meows: Input should be a valid boolean"),
        ({"pet": PET, "extra": 1}, "extra: not a field of the schema; leave it out"),
    ],
)
async def test_messages_name_the_answers_own_paths(answer: dict, message: str) -> None:
    engine = await started(one_answer(Pets, Params), {})
    wire = (await engine.advance("gate", answer)).to_wire()
    assert (wire["error"], wire["message"]) == ("validation", message)

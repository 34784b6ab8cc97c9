"""Example data from schemas: valid, deterministic, and enumerating closed fields."""

import dataclasses
import datetime
import enum
import itertools
import os
import subprocess
import sys
import uuid
from typing import Annotated, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, create_model, model_validator
from typing_extensions import TypedDict

from skillkit_core.schema import Schema
from skillkit_core.simulate.errors import ExampleError
from skillkit_core.simulate.examples import (
    choice_points,
    closed_values,
    example_value,
    seed_for,
    variants,
    with_value,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Size(enum.IntEnum):
    SMALL = 1
    LARGE = 2


class Inner(BaseModel):
    mode: Literal["fast", "slow"]
    note: str


class Outer(BaseModel):
    inner: Inner
    flag: bool
    color: Color
    maybe: Literal["x"] | None = None
    items: list[Inner]
    label: str | None = None


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Movie(TypedDict):
    title: str
    year: int


def test_the_same_seed_gives_the_same_value_and_other_seeds_differ() -> None:
    first = example_value(Outer, seed=7)
    assert example_value(Outer, seed=7) == first
    assert any(example_value(Outer, seed=s) != first for s in range(1, 6))


@pytest.mark.parametrize(
    "source",
    [
        dict[str, int],
        list[Literal["a", "b"]],
        Color,
        Size,
        Point,
        Movie,
        tuple[int, str],
        Annotated[int, Field(ge=3, le=5)],
        Annotated[str, Field(pattern=r"^[a-z]{3}-\d{2}$")],
        datetime.date,
        uuid.UUID,
        Outer,
    ],
    ids=str,
)
def test_typeadapter_types_and_models_get_valid_json_examples(source) -> None:
    data = example_value(source, seed=3)
    schema = Schema(source)
    assert schema.dump(schema.validate(data)) == data


def test_defaults_are_kept_only_when_asked() -> None:
    class Params(BaseModel):
        repo_path: str = "."
        depth: int = 2

    assert example_value(Params, use_defaults=True) == {"repo_path": ".", "depth": 2}
    assert example_value(Params, seed=1) != {"repo_path": ".", "depth": 2}


def test_a_schema_no_value_can_satisfy_is_a_clear_error() -> None:
    class Impossible(BaseModel):
        n: int

        @model_validator(mode="after")
        def never(self):
            raise ValueError("never valid")

    with pytest.raises(ExampleError, match="could not generate a valid example of Impossible"):
        example_value(Impossible)


def test_closed_values_cover_literal_enum_bool_and_optional() -> None:
    assert closed_values(Literal["a", "b"]) == ("a", "b")
    assert closed_values(Color) == ("red", "blue")
    assert closed_values(bool) == (True, False)
    assert closed_values(Literal["x"] | None) == ("x", None)
    assert closed_values(Annotated[bool, Field(description="d")]) == (True, False)
    assert closed_values(str) is None
    assert closed_values(int | str) is None


def test_choice_points_reach_nested_models_list_items_and_optionals() -> None:
    points = {p.label: p.values for p in choice_points(Outer)}
    assert points == {
        "inner.mode": ("fast", "slow"),
        "flag": (True, False),
        "color": ("red", "blue"),
        "maybe": ("x", None),
        "items": ([],),
        "items.0.mode": ("fast", "slow"),
        "label": (None,),
    }


def test_variants_give_every_value_of_every_closed_field() -> None:
    examples = variants(Outer, seed=2)
    assert examples[0].label == "example"
    schema = Schema(Outer)
    for example in examples:
        schema.validate(example.data)
    for point in choice_points(Outer):
        for value in point.values:
            assert any(_get(e.data, point.path) == value for e in examples), (point.label, value)
    assert len({repr(e.data) for e in examples}) == len(examples)


def _get(data, path):
    for key in path:
        if isinstance(data, list):
            if not data:
                return []
            data = data[key]
        else:
            data = data.get(key)
    return data


def test_with_value_copies_and_refuses_absent_paths() -> None:
    data = {"a": {"b": 1}, "items": [{"c": 1}], "none": None}
    changed = with_value(data, ("a", "b"), 2)
    assert changed == {"a": {"b": 2}, "items": [{"c": 1}], "none": None}
    assert data["a"]["b"] == 1
    assert with_value(data, ("items", "0", "c"), 5)["items"][0]["c"] == 5
    assert with_value(data, ("items", 3, "c"), 5) is None
    assert with_value(data, ("none", "x"), 5) is None
    assert with_value(data, (), 9) == 9


def test_seeds_and_examples_are_the_same_in_another_process() -> None:
    code = (
        "from skillkit_core.simulate.examples import example_value, seed_for\n"
        "print(seed_for(0, 'verify', 1), example_value(dict[str, int], seed=5))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    expected = f"{seed_for(0, 'verify', 1)} {example_value(dict[str, int], seed=5)}"
    assert done.stdout.strip() == expected
    assert seed_for(0, "verify", 2) != seed_for(0, "verify", 1)


def test_every_example_response_schema_gets_valid_examples_and_variants(
    deploy_check, get_to_know_you, repo_doctor, help_desk
) -> None:
    definitions = [deploy_check, get_to_know_you, repo_doctor, help_desk]
    definitions += [s.definition for s in help_desk.subskills]
    schemas = [s.response for d in definitions for s in d.steps.values() if s.response]
    assert len(schemas) > 15
    for schema, seed in itertools.product(schemas, (0, 1, 99)):
        for example in variants(schema, seed=seed):
            schema.validate(example.data)


# -- property: generated responses always validate ------------------------------------

_counter = itertools.count()

_LEAVES = st.sampled_from(
    [
        str,
        int,
        float,
        bool,
        Literal["a", "b", "c"],
        Color,
        Size,
        datetime.date,
        uuid.UUID,
        Annotated[int, Field(ge=0, le=9)],
        Annotated[float, Field(gt=0.5, lt=2.5)],
        Annotated[str, Field(min_length=3, max_length=8)],
        Annotated[str, Field(pattern=r"^[a-z]{2}-\d{3}$")],
        Annotated[list[int], Field(min_length=2, max_length=4)],
    ]
)


def _model(fields: list) -> type[BaseModel]:
    spec = {f"f{i}": (tp, ...) for i, tp in enumerate(fields)}
    return create_model(f"Generated{next(_counter)}", **spec)


_TYPES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        inner.map(lambda tp: list[tp]),
        inner.map(lambda tp: tp | None),
        inner.map(lambda tp: dict[str, tp]),
        st.lists(inner, min_size=1, max_size=4).map(_model),
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=_TYPES, seed=st.integers(min_value=0, max_value=2**31))
def test_generated_values_always_validate_against_their_schema(source, seed) -> None:
    schema = Schema(source)
    data = example_value(schema, seed=seed)
    assert schema.dump(schema.validate(data)) == data
    assert example_value(schema, seed=seed) == data
    for example in variants(schema, seed=seed, base=data):
        schema.validate(example.data)


class WrittenAsSeconds(BaseModel):
    model_config = {"ser_json_timedelta": "float"}
    delay: datetime.timedelta


def test_an_example_whose_json_is_not_read_back_says_so() -> None:
    # The model writes its duration as seconds and reads ISO 8601 only: a simulation
    # sent its own generated answer and called the run failed.
    with pytest.raises(ExampleError, match="not read back as an answer") as raised:
        example_value(WrittenAsSeconds)
    assert "--responses" in raised.value.message


def test_every_example_is_read_back_as_an_answer_would_be() -> None:
    for schema in (datetime.datetime, datetime.date, uuid.UUID, tuple[int, str], float):
        data = example_value(schema)
        Schema(schema).validate(data, from_agent=True)

"""An agent's answer must fit the JSON Schema it was given, value by value.

pydantic's lax mode turns ``"yes"``, ``"t"`` or ``1`` into ``True`` and ``"3"`` into 3:
an agent that answered ``"safe": "yes"`` at a deploy gate was routed to the deploy. The
schema it got says ``"type": "boolean"`` (and zod, behind the TypeScript SDK, refuses
such values too), so the answer is a retryable validation error. JSON values that the
schema's types take as JSON (a date as a string, an integer for a float, a list for a
tuple, an enum's value) are accepted as before.
"""

import datetime
import decimal
import enum
import re
from typing import Annotated, Any, ClassVar, Literal

import pytest
from pydantic import AliasPath, BaseModel, Field, HttpUrl, field_validator

from skillkit_core.engine import Handshake, WorkflowEngine
from skillkit_core.errors import ParamsError
from tests.core.engine.skills import one_answer, started


class Colour(enum.Enum):
    RED = "red"


class Gate(BaseModel):
    safe: bool
    count: int = 0


class Rich(BaseModel):
    when: datetime.date
    ratio: float
    pair: tuple[int, str]
    colour: Colour


class Params(BaseModel):
    retries: int


def _skill(response: type[BaseModel]):
    return one_answer(response, Params)


async def _started(response: type[BaseModel]) -> WorkflowEngine:
    return await started(_skill(response), {"retries": 1})


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"safe": "yes"}, "safe: Input should be a valid boolean"),
        ({"safe": 1}, "safe: Input should be a valid boolean"),
        ({"safe": True, "count": "3"}, "count: Input should be a valid integer"),
        ({"safe": True, "count": 2.5}, "count: Input should be a valid integer"),
        ({"safe": True, "count": True}, "count: Input should be a valid integer"),
    ],
)
async def test_a_value_the_schema_does_not_take_is_a_retryable_error(
    answer: dict, message: str
) -> None:
    engine = await _started(Gate)
    wire = (await engine.advance("gate", answer)).to_wire()
    assert (wire["kind"], wire["error"], wire["retry"]) == ("error", "validation", True)
    assert wire["message"].startswith(message)
    assert engine.current == "gate"


@pytest.mark.parametrize("number", [float("nan"), float("inf"), -float("inf")])
async def test_a_number_json_cannot_hold_is_a_retryable_error(number: float) -> None:
    # Over MCP the SDK's transport parses the request with Python's json, which reads
    # NaN, Infinity and 1e400 (as inf); printed back, the result was no JSON.
    engine = await _started(Rich)
    answer = {"when": "2026-11-29", "ratio": 1.5, "pair": [1, "a"], "colour": "red"}
    answer["ratio"] = number
    wire = (await engine.advance("gate", answer)).to_wire()
    assert (wire["kind"], wire["error"], wire["retry"]) == ("error", "validation", True)
    assert wire["message"] == "ratio: a number that JSON cannot hold (NaN, or beyond ±1.8e308)"
    assert engine.current == "gate"


async def test_a_whole_number_beyond_2_to_the_53_written_as_a_float_is_no_integer() -> None:
    # int(1e300) is the float's binary value, not the 10**300 the agent wrote.
    engine = await _started(Gate)
    wire = (await engine.advance("gate", {"safe": True, "count": 1e300})).to_wire()
    assert (wire["error"], wire["retry"]) == ("validation", True), wire
    assert wire["message"].startswith("count: Input should be a valid integer")
    wire = (await engine.advance("gate", {"safe": True, "count": 2.0**53})).to_wire()
    assert wire["completed"]["response"]["count"] == 2**53


async def test_a_whole_number_written_with_a_fraction_is_an_integer() -> None:
    # JSON Schema's "integer" takes 3.0; so does zod (JavaScript has one number type).
    engine = await _started(Gate)
    wire = (await engine.advance("gate", {"safe": True, "count": 3.0})).to_wire()
    assert wire["step"] == "end" and wire["completed"]["response"]["count"] == 3


async def test_json_forms_of_richer_types_are_taken() -> None:
    engine = await _started(Rich)
    answer = {"when": "2026-11-29", "ratio": 1, "pair": [1, "a"], "colour": "red"}
    wire = (await engine.advance("gate", answer)).to_wire()
    assert wire["step"] == "end", wire
    assert wire["completed"]["response"] == {**answer, "ratio": 1.0}


def test_params_are_taken_strictly_too() -> None:
    with pytest.raises(ParamsError, match="retries: Input should be a valid integer"):
        WorkflowEngine(_skill(Gate), Handshake(host="generic"), {"retries": "2"})


class Loose(BaseModel):
    value: Any
    ratio: int | float


async def test_a_whole_number_stays_a_float_where_the_schema_takes_one() -> None:
    # 3.0 is read as an integer only when the answer does not fit otherwise.
    engine = await _started(Loose)
    wire = (await engine.advance("gate", {"value": 1.0, "ratio": 3.0})).to_wire()
    response = wire["completed"]["response"]
    assert response == {"value": 1.0, "ratio": 3.0}
    assert isinstance(response["value"], float) and isinstance(response["ratio"], float)


class Level(enum.IntEnum):
    LOW = 0
    HIGH = 1


class Confirm(BaseModel):
    # pydantic matches literals and enums by Python equality (True == 1), strict or not.
    deploy: Literal[True]
    votes: Literal[1, 2, 3] = 1
    level: Level = Level.LOW
    picks: list[Literal[1, 2]] = []
    either: Literal[1] | str = "x"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"deploy": 1}, "deploy: Input should be True"),
        ({"deploy": 1.0}, "deploy: Input should be True"),
        ({"deploy": True, "votes": True}, "votes: Input should be 1, 2 or 3"),
        ({"deploy": True, "level": False}, "level: Input should be 0 or 1"),
        ({"deploy": True, "picks": [2, True]}, "picks.1: Input should be 1 or 2"),
        ({"deploy": True, "either": True}, "either: Input should be 1"),
    ],
)
async def test_a_boolean_is_no_number_and_a_number_no_boolean_in_literals_and_enums(
    answer: dict, message: str
) -> None:
    engine = await _started(Confirm)
    wire = (await engine.advance("gate", answer)).to_wire()
    assert (wire["kind"], wire["error"], wire["retry"]) == ("error", "validation", True)
    assert wire["message"] == message
    assert engine.current == "gate"


async def test_literals_and_enums_take_their_own_kind() -> None:
    engine = await _started(Confirm)
    answer = {"deploy": True, "votes": 3.0, "level": 1, "picks": [2, 1], "either": 1}
    wire = (await engine.advance("gate", answer)).to_wire()
    assert wire["step"] == "end", wire
    assert wire["completed"]["response"] == {**answer, "votes": 3}


class Counted(BaseModel):
    count: int
    value: Any
    ratio: int | float = 0


async def test_only_the_whole_number_an_error_is_about_becomes_an_integer() -> None:
    # 3.0 is read as 3 for the integer field alone: 1.0 stays a float where any value
    # (or a float) is taken, whatever else the answer holds.
    engine = await _started(Counted)
    answer = {"count": 3.0, "value": 1.0, "ratio": 2.0}
    wire = (await engine.advance("gate", answer)).to_wire()
    response = wire["completed"]["response"]
    assert response == {"count": 3, "value": 1.0, "ratio": 2.0}
    assert isinstance(response["count"], int)
    assert isinstance(response["value"], float) and isinstance(response["ratio"], float)


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    good: bool


class Pets(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    by_port: dict[int, str] = {}


async def test_the_schema_says_what_validation_requires_beyond_pydantics_schema() -> None:
    # pydantic's own schema leaves the tag of a discriminated union optional when each
    # member defaults it (validation then fails without it), and says nothing of the keys
    # of a dict[int, ...].
    engine = WorkflowEngine(_skill(Pets), Handshake(host="generic"), {"retries": 1})
    schema = (await engine.start()).to_wire()["schema"]
    assert schema["properties"]["pet"]["required"] == ["kind"]
    assert schema["properties"]["by_port"]["propertyNames"] == {"pattern": "^-?(0|[1-9][0-9]*)$"}
    wire = (await engine.advance("gate", {"pet": {"lives": 9}})).to_wire()
    assert wire["kind"] == "error" and "discriminator 'kind'" in wire["message"]
    wire = (await engine.advance("gate", {"pet": {"kind": "cat", "lives": 9}})).to_wire()
    assert wire["step"] == "end"


class Link(BaseModel):
    url: HttpUrl


async def test_the_schema_names_the_url_schemes_validation_takes() -> None:
    # pydantic's schema of HttpUrl is "format": "uri" alone; ftp:// was refused unwarned.
    engine = WorkflowEngine(_skill(Link), Handshake(host="generic"), {"retries": 1})
    schema = (await engine.start()).to_wire()["schema"]
    pattern = schema["properties"]["url"]["pattern"]
    assert pattern == "^(?:[hH][tT][tT][pP]|[hH][tT][tT][pP][sS]):"
    for url, taken in (("https://x.org", True), ("HTTP://x.org", True), ("ftp://x.org", False)):
        assert bool(re.search(pattern, url)) is taken
        wire = (await engine.advance("gate", {"url": url})).to_wire()
        assert (wire["kind"] == "prompt") is taken, wire
        if taken:
            engine = WorkflowEngine(_skill(Link), Handshake(host="generic"), {"retries": 1})
            await engine.start()


class Price(BaseModel):
    amount: decimal.Decimal


async def test_the_schema_of_a_decimal_takes_only_numerals_as_text() -> None:
    engine = WorkflowEngine(_skill(Price), Handshake(host="generic"), {"retries": 1})
    schema = (await engine.start()).to_wire()["schema"]
    (text,) = [b for b in schema["properties"]["amount"]["anyOf"] if b["type"] == "string"]
    for numeral in ("12.50", "-3", ".5", "5.", "1e3", "abc", "", "NaN", "0x10"):
        taken = re.search(text["pattern"], numeral) is not None
        assert taken is (numeral not in ("abc", "", "NaN", "0x10")), numeral
        # Whatever the pattern takes, validation takes.
        if taken:
            wire = (await engine.advance("gate", {"amount": numeral})).to_wire()
            assert wire["kind"] == "prompt", wire
            engine = WorkflowEngine(_skill(Price), Handshake(host="generic"), {"retries": 1})
            await engine.start()


class Keyed(BaseModel):
    weights: dict[float, int] = {}
    flags: dict[bool, int] = {}
    slugs: dict[Annotated[str, Field(pattern="^[a-z]+$")], int] = {}


@pytest.mark.parametrize(
    ("field", "key", "taken"),
    [
        ("weights", "1.5", True),
        ("weights", "-2e3", True),
        ("weights", "abc", False),
        ("flags", "true", True),
        ("flags", "x", False),
        ("slugs", "abc", True),
        ("slugs", "ABC", False),
    ],
)
async def test_the_schema_says_which_keys_a_dict_takes(field: str, key: str, taken: bool) -> None:
    # pydantic's schema said nothing of float or bool keys, and a string key's pattern
    # only as patternProperties, which leaves other keys free: validation refuses them.
    engine = WorkflowEngine(_skill(Keyed), Handshake(host="generic"), {"retries": 1})
    names = (await engine.start()).to_wire()["schema"]["properties"][field]["propertyNames"]
    in_schema = key in names["enum"] if "enum" in names else bool(re.search(names["pattern"], key))
    assert in_schema is taken
    wire = (await engine.advance("gate", {field: {key: 1}})).to_wire()
    assert (wire["kind"] == "prompt") is taken, wire


async def test_integer_keys_written_otherwise_are_refused_not_merged() -> None:
    # pydantic took "01" and "+1" for the key 1, merging three entries into one.
    engine = WorkflowEngine(_skill(Pets), Handshake(host="generic"), {"retries": 1})
    await engine.start()
    pet = {"kind": "cat", "lives": 9}
    answer = {"pet": pet, "by_port": {"1": "a", "01": "b", "+1": "c"}}
    wire = (await engine.advance("gate", answer)).to_wire()
    assert wire["message"] == (
        "by_port.01: Key should be an integer written plainly (as 1 or -2); "
        "by_port.+1: Key should be an integer written plainly (as 1 or -2)"
    )
    wire = (await engine.advance("gate", {"pet": pet, "by_port": {"1": "a", "-2": "b"}})).to_wire()
    assert wire["step"] == "end", wire


class Pathed(BaseModel):
    name: str = Field(validation_alias=AliasPath("data", "name"))
    city: str = Field("Paris", validation_alias=AliasPath("data", "city"))


async def test_the_schema_nests_a_field_read_through_an_alias_path() -> None:
    # pydantic's schema showed "name" at the top, where validation reads data.name: every
    # answer that followed the schema was refused.
    engine = WorkflowEngine(_skill(Pathed), Handshake(host="generic"), {"retries": 1})
    schema = (await engine.start()).to_wire()["schema"]
    assert schema["required"] == ["data"] and set(schema["properties"]) == {"data"}
    data = schema["properties"]["data"]
    assert (set(data["properties"]), data["required"]) == ({"name", "city"}, ["name"])
    wire = (await engine.advance("gate", {"name": "Ada"})).to_wire()
    assert wire["kind"] == "error"
    wire = (await engine.advance("gate", {"data": {"name": "Ada"}})).to_wire()
    assert wire["kind"] == "prompt", wire


class Named(BaseModel):
    # Field names that are also keys of pydantic's core schema nodes.
    type: str
    config: Literal[1, 2]
    default: Literal[True] = True


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"type": "x", "config": True}, "config: Input should be 1 or 2"),
        ({"type": "x", "config": 1, "default": 1}, "default: Input should be True"),
    ],
)
async def test_fields_named_like_schema_keys_are_checked_like_any(
    answer: dict, message: str
) -> None:
    engine = await _started(Named)
    wire = (await engine.advance("gate", answer)).to_wire()
    assert (wire["kind"], wire["error"], wire["message"]) == ("error", "validation", message)
    wire = (await engine.advance("gate", {"type": "x", "config": 2})).to_wire()
    assert wire["step"] == "end", wire


class Tagged(BaseModel):
    level: Literal[1, 2]
    tags: list[str] = []
    calls: ClassVar[list[object]] = []

    @field_validator("tags", mode="before")
    @classmethod
    def split(cls, value: object) -> object:
        cls.calls.append(value)
        return value.split(",") if isinstance(value, str) else value


async def test_the_authors_validators_run_once_per_answer() -> None:
    # The check of literals' kinds validates the answer's shape a second time, without
    # the author's validators.
    Tagged.calls.clear()
    engine = await _started(Tagged)
    wire = (await engine.advance("gate", {"level": 2, "tags": "a,b"})).to_wire()
    # A validator may change a value: the history entry keeps the answer as written.
    assert wire["completed"]["response"] == {"level": 2, "tags": "a,b"}
    assert wire["completed"]["result"] == {"level": 2, "tags": ["a", "b"]}
    assert Tagged.calls == ["a,b"]

"""A key the schema does not declare is refused, never dropped silently.

The reference SDK keeps such keys; skillkit used to drop them without a word, so an agent
that wrote ``blocker`` for ``blockers`` never learnt why its answer lost data. Now it gets
a retryable validation error naming the key, unless the author's model opts in to extra
keys with its own ``extra`` setting.
"""

import pytest
from conftest import one_answer, started
from pydantic import BaseModel, ConfigDict

from skillkit_core.engine import Handshake, WorkflowEngine
from skillkit_core.errors import ParamsError


class Verdict(BaseModel):
    safe: bool


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    safe: bool


class Params(BaseModel):
    target: str


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

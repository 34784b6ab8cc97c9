import pytest
from pydantic import BaseModel

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.primitives import act
from skillkit_core.primitives.registry import render_primitive
from tests.golden_util import assert_golden


class Findings(BaseModel):
    findings: list[str]


def test_subagent_names_the_skill_it_must_not_recurse_into():
    segment = act.subagent("Review the PR for security issues.", Findings)
    config = segment.primitive
    assert config.kind == "subagent"
    assert config.output is Findings
    assert_golden(
        "primitives/subagent_no_recurse.xml", render_primitive(segment, skill_name="my-skill")
    )


def test_allowing_recursion_drops_the_guard():
    segment = act.subagent("Run the doctor sub-skill.", Findings, allow_recursion=True)
    xml = render_primitive(segment, skill_name="my-skill")
    assert xml == "<subagent>Run the doctor sub-skill.</subagent>"


def test_without_a_skill_name_there_is_nothing_to_guard():
    assert render_primitive(act.subagent("Go.", Findings)) == "<subagent>Go.</subagent>"


def test_output_may_be_any_type_pydantic_accepts():
    config = act.subagent("List files.", list[str]).primitive
    assert config.output_json_schema() == {"items": {"type": "string"}, "type": "array"}


def test_output_json_schema_of_a_model():
    schema = act.subagent("Review.", Findings).primitive.output_json_schema()
    assert schema["properties"]["findings"]["type"] == "array"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", Findings), "prompt must not be empty"),
        (("Review.", None), "output must be a schema"),
        (("Review.", object()), "output is not a usable schema"),
    ],
)
def test_invalid_subagent_is_refused(args, message):
    with pytest.raises(SkillDefinitionError, match=message):
        act.subagent(*args)

import pytest

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.primitives import act
from skillkit_core.primitives.registry import render_primitive
from tests.golden_util import assert_golden


def test_plan_golden():
    segment = act.plan(
        "Migrate database schema", ["Backup current schema", "Run migration", "Validate"]
    )
    assert segment.primitive.kind == "plan"
    assert segment.primitive.steps == ("Backup current schema", "Run migration", "Validate")
    assert_golden("primitives/plan.xml", render_primitive(segment))


def test_steps_keep_their_order_and_are_escaped():
    xml = render_primitive(act.plan("S & T", ["b < c", "a"]))
    assert xml == '<plan summary="S &amp; T">\n<step>b &lt; c</step>\n<step>a</step>\n</plan>'


@pytest.mark.parametrize(
    ("summary", "steps", "message"),
    [
        ("Do it", [], "at least one step"),
        ("", ["a"], "summary must not be empty"),
        ("Do it", "abc", "steps must be a list"),
        ("Do it", ["a", ""], "step 2 must not be empty"),
        ("Do it", ["a", 3], "step 2 must be a string"),
    ],
)
def test_invalid_plan_is_refused(summary, steps, message):
    with pytest.raises(SkillDefinitionError, match=message):
        act.plan(summary, steps)

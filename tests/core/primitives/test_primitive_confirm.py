import pytest

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.primitives import act
from skillkit_core.primitives.registry import render_primitive
from tests.golden_util import assert_golden


def test_destructive_confirm_golden():
    segment = act.confirm(
        "This will delete 47 files in .cache/. Continue?", destructive=True, default_answer="no"
    )
    assert_golden("primitives/confirm_destructive.xml", render_primitive(segment))


def test_plain_confirm_has_default_and_no_destructive_attribute():
    segment = act.confirm("Proceed?", default_answer="yes")
    assert segment.primitive.kind == "confirm"
    assert render_primitive(segment) == '<confirm default="yes">Proceed?</confirm>'


def test_default_answer_is_no():
    assert act.confirm("Go?").primitive.default_answer == "no"


def test_message_text_is_escaped():
    xml = render_primitive(act.confirm("Delete <all> & everything?"))
    assert xml == '<confirm default="no">Delete &lt;all&gt; &amp; everything?</confirm>'


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("",), {}, "message must not be empty"),
        ((None,), {}, "message must be a string"),
        (("Go?",), {"default_answer": "maybe"}, "default_answer must be one of 'yes', 'no'"),
        (("Go?",), {"destructive": 1}, "destructive must be True or False"),
    ],
)
def test_invalid_confirm_is_refused(args, kwargs, message):
    with pytest.raises(SkillDefinitionError, match=message):
        act.confirm(*args, **kwargs)

import pytest

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.primitives import AskUserConfig, Option, act
from skillkit_core.primitives.registry import render_primitive
from skillkit_core.prompts import ActSegment
from tests.golden_util import assert_golden

TWO = [{"value": "production", "label": "Production"}, {"value": "staging", "label": "Staging"}]


def test_structured_question_is_an_act_segment_with_introspectable_options():
    segment = act.ask_user(type="structured", question="Which environment?", options=TWO)
    assert isinstance(segment, ActSegment)
    assert segment.kind == "act"
    config = segment.primitive
    assert isinstance(config, AskUserConfig)
    assert config.kind == "ask_user"
    assert [option.value for option in config.options] == ["production", "staging"]
    assert config.options[0] == Option(value="production", label="Production")


def test_config_is_frozen():
    config = act.ask_user(question="Which?", options=TWO).primitive
    with pytest.raises(AttributeError):
        config.question = "changed"  # type: ignore[misc]


def test_type_defaults_to_structured_with_options_and_open_without():
    assert act.ask_user(question="Which?", options=TWO).primitive.type == "structured"
    assert act.ask_user(question="Why?").primitive.type == "open"


def test_structured_golden():
    segment = act.ask_user(
        type="structured",
        question="Which environment?",
        header="Target",
        multi_select=True,
        options=[
            {"value": "production", "label": "Production", "description": "Live traffic"},
            {
                "value": "staging",
                "label": "Staging",
                "description": "Pre-release",
                "preview": "deploy --env staging\n--dry-run",
            },
            {"value": "dev", "label": "Dev"},
        ],
    )
    assert_golden("primitives/ask_user_structured.xml", render_primitive(segment.primitive))


def test_open_question_renders_self_closing_tag():
    segment = act.ask_user(type="open", question="What's your tech stack?")
    assert render_primitive(segment) == (
        '<ask-user type="open" question="What\'s your tech stack?" />'
    )


def test_attributes_are_left_out_when_not_set():
    xml = render_primitive(act.ask_user(question="Which?", options=TWO))
    assert xml.splitlines()[0] == '<ask-user type="structured" question="Which?">'
    assert '<option value="staging" label="Staging"></option>' in xml


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"options": TWO[:1]}, "needs 2 to 4 options, got 1"),
        ({"options": TWO * 2 + [{"value": "x", "label": "X"}]}, "needs 2 to 4 options, got 5"),
        ({"options": [], "type": "structured"}, "got 0"),
        ({"type": "structured"}, "needs options"),
        ({"options": TWO, "header": "Thirteen char"}, "at most 12 characters, got 13"),
        ({"options": TWO, "type": "poll"}, "type must be one of 'structured', 'open'"),
        ({"options": [TWO[0], TWO[0]]}, "distinct"),
        ({"options": [{"value": "a"}, {"value": "b", "label": "B"}]}, "missing key(s) 'label'"),
        ({"options": [{"value": "a", "label": "A", "desc": "x"}, TWO[1]]}, "unknown key(s) 'desc'"),
        ({"options": [{"value": 1, "label": "A"}, TWO[1]]}, "value must be a string"),
        ({"options": ["a", "b"]}, "expected a dict"),
        ({"options": "ab"}, "options must be a list"),
        ({"options": TWO, "multi_select": "yes"}, "multi_select must be True or False"),
        ({"type": "open", "options": TWO}, "takes no options"),
        ({"type": "open", "header": "Hi"}, "structured questions only"),
    ],
)
def test_invalid_input_raises_at_definition_time(kwargs, message):
    with pytest.raises(SkillDefinitionError) as info:
        act.ask_user(question="Which?", **kwargs)
    assert message in str(info.value)
    assert str(info.value).startswith("act.ask_user")


def test_empty_question_is_refused():
    with pytest.raises(SkillDefinitionError, match="question must not be empty"):
        act.ask_user(question="   ", options=TWO)


def test_header_of_exactly_twelve_characters_is_accepted():
    assert act.ask_user(question="Q", options=TWO, header="x" * 12).primitive.header == "x" * 12


def test_option_instances_are_accepted():
    options = [Option("a", "A", description="first"), Option("b", "B")]
    config = act.ask_user(question="Q", options=options).primitive
    assert config.options[0].description == "first"


def test_quotes_angle_brackets_and_ampersands_are_escaped():
    xml = render_primitive(
        act.ask_user(
            question='Pick "one" <now> & go',
            options=[{"value": 'a"b', "label": "<A>"}, {"value": "c&d", "label": "C"}],
        )
    )
    assert 'question="Pick &quot;one&quot; &lt;now&gt; &amp; go"' in xml
    assert '<option value="a&quot;b" label="&lt;A&gt;">' in xml
    assert 'value="c&amp;d"' in xml

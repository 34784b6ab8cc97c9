import xml.etree.ElementTree as ET

import pytest

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.primitives import act
from skillkit_core.primitives.registry import render_primitive
from tests.golden_util import assert_golden

YES_NO = [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]


def _question(n: int) -> dict:
    return {"question": f"Question {n}?", "options": YES_NO}


def test_survey_golden():
    segment = act.survey(
        [
            {
                "question": "Which language?",
                "header": "Language",
                "options": [
                    {"value": "py", "label": "Python", "description": "3.11+"},
                    {"value": "ts", "label": "TypeScript"},
                ],
            },
            {
                "question": "Which extras?",
                "multi_select": True,
                "options": [
                    {"value": "lint", "label": "Linting"},
                    {"value": "ci", "label": "CI"},
                    {"value": "docs", "label": "Docs"},
                ],
            },
        ]
    )
    assert segment.primitive.kind == "survey"
    assert_golden("primitives/survey.xml", render_primitive(segment))


@pytest.mark.parametrize(("count", "blocks"), [(1, [1]), (4, [4]), (5, [4, 1]), (9, [4, 4, 1])])
def test_more_than_four_questions_split_into_blocks(count, blocks):
    xml = render_primitive(act.survey([_question(n) for n in range(count)]))
    parts = xml.split("\n\n")
    assert [len(ET.fromstring(part).findall("question")) for part in parts] == blocks
    texts = [q.get("text") for part in parts for q in ET.fromstring(part)]
    assert texts == [f"Question {n}?" for n in range(count)]


@pytest.mark.parametrize(
    ("questions", "message"),
    [
        ([], "at least one question"),
        ([{"question": "Q?", "options": YES_NO[:1]}], "question 1: a structured question needs"),
        ([{"question": "Q?"}], "missing key"),
        ([{"question": "Q?", "options": YES_NO, "header": "x" * 13}], "at most 12"),
        ([_question(1), {"question": "", "options": YES_NO}], "question 2: question must not"),
    ],
)
def test_invalid_survey_is_refused(questions, message):
    with pytest.raises(SkillDefinitionError, match=message):
        act.survey(questions)

import pytest

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.primitives import ChecklistItem, act
from skillkit_core.primitives.registry import render_primitive
from tests.golden_util import assert_golden


def test_checklist_golden():
    segment = act.checklist(
        [
            {"title": "Lint config", "status": "completed"},
            {"title": "Test suite", "status": "in_progress"},
            {"title": "Deploy script"},
        ]
    )
    config = segment.primitive
    assert config.kind == "checklist"
    assert config.create[2] == ChecklistItem("Deploy script", "pending")
    assert_golden("primitives/checklist.xml", render_primitive(segment))


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([], "at least one item"),
        ([{"title": "a", "status": "done"}], "status must be one of"),
        ([{"name": "a"}], "unknown key"),
        ([{"title": ""}], "title must not be empty"),
        (None, "create must be a list"),
    ],
)
def test_invalid_checklist_is_refused(items, message):
    with pytest.raises(SkillDefinitionError, match=message):
        act.checklist(items)

import pytest

from skillkit_core import render
from skillkit_core.errors import SkillDefinitionError


def test_checklist():
    items = [
        {"text": "TypeScript", "done": True},
        {"text": "Bun", "done": True},
        {"text": "Deploy script", "done": False},
    ]
    assert render.checklist(items) == "- [x] TypeScript\n- [x] Bun\n- [ ] Deploy script"


def test_checklist_done_defaults_to_open_and_text_is_required():
    assert render.checklist([{"text": "a"}]) == "- [ ] a"
    assert render.checklist([]) == ""
    with pytest.raises(SkillDefinitionError, match="without 'text'"):
        render.checklist([{"title": "a"}])


def test_code_fences_with_and_without_language():
    assert render.code("const x = 42;", "typescript") == "```typescript\nconst x = 42;\n```"
    assert render.code("x = 1\n") == "```\nx = 1\n```"


def test_code_fence_outgrows_backticks_in_the_source():
    assert render.code("a ```` b") == "`````\na ```` b\n`````"


def test_kv_aligns_values_after_the_longest_key():
    text = render.kv({"Name": "Alice", "Role": "Developer", "Stack": "TypeScript + Bun"})
    assert text == "Name   Alice\nRole   Developer\nStack  TypeScript + Bun"


def test_kv_accepts_pairs_and_indents_multiline_values():
    assert render.kv([("a", "1\n2"), ("bbb", None)]) == "a    1\n     2\nbbb"


def test_kv_empty_and_bad_pairs():
    assert render.kv({}) == ""
    assert render.kv([]) == ""
    with pytest.raises(SkillDefinitionError, match=r"render\.kv"):
        render.kv(["ab"])


def test_section():
    assert render.section("Health Checks", "| a |\n") == "## Health Checks\n\n| a |"
    assert render.section("Empty", "") == "## Empty"

import dataclasses

import pytest

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.prompts import Fragment, fragment, prompt, system, view


def test_fragment_trims_and_is_immutable():
    tone = fragment("playful-tone", "\n  Keep it light and fun.\n  ")
    assert tone == Fragment(name="playful-tone", content="Keep it light and fun.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        tone.content = "other"  # type: ignore[misc]


def test_fragment_in_f_string_gives_its_content():
    tone = fragment("tone", "Be kind.")
    assert f"{tone} Ask away." == "Be kind. Ask away."
    assert str(tone) == "Be kind."


@pytest.mark.parametrize(("name", "content"), [("", "x"), (None, "x"), ("n", 3)])
def test_fragment_refuses_bad_input(name, content):
    with pytest.raises(SkillDefinitionError):
        fragment(name, content)


def test_prompt_dedents_and_strips_blank_edge_lines():
    text = prompt(
        """

        First line.
          Indented more.

        Last line.
        """
    )
    assert text == "First line.\n  Indented more.\n\nLast line."


def test_prompt_with_an_interpolated_fragment():
    tone = fragment("tone", "Keep it light.")
    text = prompt(
        f"""
        {tone}
        Now ask the user about their hobbies.
        """
    )
    assert text == "Keep it light.\nNow ask the user about their hobbies."


def test_prompt_keeps_text_without_common_indent():
    assert prompt("a\n  b") == "a\n  b"


def test_prompt_handles_tabs_and_mixed_indentation():
    assert prompt("\t\tx\n\t\t\ty") == "x\n\ty"
    assert prompt("\t x\n  y") == "\t x\n  y"


def test_prompt_of_blank_text_is_empty():
    assert prompt("   \n\n  ") == ""


def test_prompt_refuses_non_strings():
    with pytest.raises(SkillDefinitionError, match="expects a string, got int"):
        prompt(3)  # type: ignore[arg-type]


def test_system_accepts_fragments_and_works_in_f_strings():
    persona = fragment("persona", "You are a mentor.")
    assert system(persona).text == "You are a mentor."
    assert system(f"{persona} Be brief.").text == "You are a mentor. Be brief."
    assert f"{system('Be brief.')}" == "Be brief."
    assert system(system("x")) == system("x")


def test_system_refuses_non_text():
    with pytest.raises(SkillDefinitionError, match="system\\(\\) expects a string, got list"):
        system(["x"])


def test_view_forms():
    assert view("body").name is None
    assert view("report", "body").name == "report"
    assert view(fragment("f", "content")).content == "content"


@pytest.mark.parametrize("args", [(), ("a", "b", "c"), ("", "body"), (3, "body")])
def test_view_refuses_bad_arguments(args):
    with pytest.raises(SkillDefinitionError, match="view"):
        view(*args)


def test_segment_kinds():
    assert system("x").kind == "system"
    assert view("x").kind == "view"

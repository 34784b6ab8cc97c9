"""The pytest plugin hands the helpers out as fixtures."""

from skillkit_core import skill, terminal


def test_fixtures_drive_a_skill(run_skill, mock_model) -> None:
    definition = skill(name="p", entry="a").step("a", prompt="x", next=terminal).build()
    assert run_skill(definition, model=mock_model({"a": {"ok": 1}})).response == {"ok": 1}


def test_composite_fixture_is_the_helper(run_composite) -> None:
    from skillkit_core.testing import run_composite as helper

    assert run_composite is helper

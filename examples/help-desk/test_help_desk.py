"""How an author tests help-desk: every route through run_composite."""

from help_desk import help_desk

from skillkit_core.testing import mock_model, run_composite


def test_doctor_route_prefixes_sub_skill_steps() -> None:
    result = run_composite(
        help_desk,
        model=mock_model(
            {
                "classify": {"intent": "doctor"},
                "doctor/diagnose": {"failing": ["ci"]},
                "doctor/report-issues": {"summary": "add a CI config"},
            }
        ),
    )
    assert result.redirected_to == {"kind": "subskill", "name": "doctor"}
    assert result.path == ["classify", "doctor/diagnose", "doctor/gate", "doctor/report-issues"]
    assert result.response == {"summary": "add a CI config"}


def test_setup_route_maps_params_and_loops() -> None:
    result = run_composite(
        help_desk,
        model=mock_model(
            {
                "classify": {"intent": "setup", "project": "web"},
                "setup/configure": [
                    {"key": "port", "value": "8080", "more": True},
                    {"key": "tls", "value": "on", "more": False},
                ],
                "setup/summary": lambda prompt: {
                    "summary": prompt.split("changes: ")[1].split("\n")[0]
                },
            }
        ),
    )
    assert "web" in result.prompts["setup/configure"]
    assert result.response == {"summary": "port=8080, tls=on"}


def test_topics_answer_from_references() -> None:
    result = run_composite(help_desk, model=mock_model({"classify": {"intent": "auth"}}))
    assert result.redirected_to == {"kind": "topic", "name": "auth"}
    assert result.response["topic"] == "auth"
    assert "Bearer" in result.response["content"]


def test_direct_sub_skill_start_skips_the_dispatcher() -> None:
    result = run_composite(
        help_desk,
        direct_subskill="setup",
        params={"project": "api"},
        model=mock_model(
            {
                "setup/configure": {"key": "a", "value": "b", "more": False},
                "setup/summary": {"summary": "a=b"},
            }
        ),
    )
    assert result.path == ["setup/configure", "setup/summary"]

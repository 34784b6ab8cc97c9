"""How an author tests deploy-check: drive it with canned answers."""

from deploy_check import deploy_check

from skillkit_core.testing import mock_model, run_skill


def test_safe_release_is_deployed() -> None:
    result = run_skill(
        deploy_check,
        model=mock_model(
            {
                "choose": {"target": "staging"},
                "verify": {"blockers": [], "safe": True},
                "deploy": {"url": "https://staging.example.com"},
            }
        ),
    )
    assert result.path == ["choose", "verify", "deploy"]
    assert result.response == {"url": "https://staging.example.com"}


def test_blocked_release_is_aborted_with_the_target_in_the_prompt() -> None:
    result = run_skill(
        deploy_check,
        model=mock_model(
            {
                "choose": {"target": "production"},
                "verify": {"blockers": ["migration pending"], "safe": False},
                "abort": {"summary": "Blocked by a pending migration."},
            }
        ),
    )
    assert result.path == ["choose", "verify", "abort"]
    assert "production" in result.prompts["verify"]
    assert result.store.steps["verify"].blockers == ("migration pending",)

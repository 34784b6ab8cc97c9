"""How an author tests get-to-know-you: paths, loops and the profile sub-store."""

from get_to_know_you import get_to_know_you

from skillkit_core.testing import mock_model, run_skill


def answers(**overrides):
    base = {
        "greet": {"name": "Ada"},
        "ask-role": {"role": "developer"},
        "ask-stack": {"answer": "Python and Rust"},
        "ask-hobby": [
            {"hobby": "chess", "wants_more": True},
            {"hobby": "climbing", "wants_more": False},
        ],
        "confirm-profile": {"approved": True},
        "write-card": {"card": "Ada — developer."},
    }
    base.update(overrides)
    return mock_model(base)


def test_developer_path_fills_the_profile() -> None:
    result = run_skill(get_to_know_you, model=answers())
    assert result.path == [
        "greet",
        "ask-role",
        "ask-stack",
        "ask-hobby",
        "ask-hobby",
        "confirm-profile",
        "write-card",
    ]
    profile = result.store.profile
    assert (profile.name, profile.role, profile.stack) == ("Ada", "developer", "Python and Rust")
    assert profile.hobbies == ("chess", "climbing")
    assert "Ada" in result.prompts["ask-stack"]


def test_hobby_loop_stops_at_its_visit_limit() -> None:
    endless = [{"hobby": f"h{i}", "wants_more": True} for i in range(3)]
    result = run_skill(
        get_to_know_you, model=answers(**{"ask-role": {"role": "designer"}, "ask-hobby": endless})
    )
    assert result.path.count("ask-hobby") == 3
    assert result.path[-2:] == ["confirm-profile", "write-card"]


def test_rejected_profile_asks_the_role_again_then_gives_up() -> None:
    result = run_skill(
        get_to_know_you,
        model=answers(
            **{
                "ask-role": [{"role": "designer"}, {"role": "manager"}],
                "ask-hobby": [{"hobby": "chess", "wants_more": False}] * 2,
                "confirm-profile": [{"approved": False}, {"approved": False}],
            }
        ),
    )
    # ask-role may be entered twice; the third attempt goes to write-card instead.
    assert result.path.count("ask-role") == 2
    assert result.path[-1] == "write-card"
    assert result.store.profile.role == "manager"

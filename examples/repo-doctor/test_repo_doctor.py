"""How an author tests repo-doctor: the routing gate, the confirm before fixing, the fix loop
and its action."""

from repo_doctor import repo_doctor

from skillkit_core.testing import mock_model, run_skill

CHECKS = [
    {"name": "ci", "status": "fail", "detail": "no config"},
    {"name": "lint", "status": "pass", "detail": "ruff"},
    {"name": "tests", "status": "fail", "detail": "none"},
]


def test_clean_repository_skips_remediation(tmp_path) -> None:
    result = run_skill(
        repo_doctor,
        params={"repo_path": str(tmp_path)},
        model=mock_model(
            {
                "diagnose": {"checks": [c | {"status": "pass"} for c in CHECKS]},
                "report-clean": {"summary": "healthy"},
            }
        ),
    )
    assert result.path == ["diagnose", "gate", "report-clean"]
    assert not (tmp_path / ".repo-doctor.log").exists()


def test_fixes_are_logged_by_the_action_and_remembered(tmp_path) -> None:
    result = run_skill(
        repo_doctor,
        params={"repo_path": str(tmp_path)},
        model=mock_model(
            {
                "diagnose": {"checks": CHECKS},
                "confirm-fixes": {"approved": True},
                "remediate": [{"fixed": ["ci"]}, {"fixed": ["tests"]}],
                "review": {"approved": True, "findings": []},
                "report": {"summary": "all fixed"},
            }
        ),
    )
    assert result.path == [
        "diagnose",
        "gate",
        "confirm-fixes",
        "remediate",
        "remediate",
        "review",
        "report",
    ]
    assert result.prompts["review"].startswith('<subagent no-recurse="repo-doctor">')
    log = (tmp_path / ".repo-doctor.log").read_text().splitlines()
    assert [line.split()[-1] for line in log] == ["ci", "tests"]
    assert result.store.progress.fixed == ("ci", "tests")
    last = result.history[-3]
    assert last.step == "remediate" and last.action_result["entries"] == 1
    assert last.result == {"fixed": ["tests"], "log": str(tmp_path / ".repo-doctor.log")}
    assert "| ci | ❌ fail | no config |" in result.prompts["report"]


def test_stubborn_failures_stop_after_three_attempts(tmp_path) -> None:
    result = run_skill(
        repo_doctor,
        params={"repo_path": str(tmp_path)},
        model=mock_model(
            {
                "diagnose": {"checks": CHECKS},
                "confirm-fixes": {"approved": True},
                "remediate": [{"fixed": []}] * 3,
                "review": {"approved": False, "findings": ["nothing changed"]},
                "report": {"summary": "ci and tests still fail"},
            }
        ),
    )
    assert result.path.count("remediate") == 3
    assert result.path[-2:] == ["review", "report"]


def test_fixing_asks_a_destructive_confirm_naming_what_will_change(tmp_path) -> None:
    result = run_skill(
        repo_doctor,
        params={"repo_path": str(tmp_path)},
        model=mock_model(
            {
                "diagnose": {"checks": CHECKS},
                "confirm-fixes": {"approved": True},
                "remediate": {"fixed": ["ci", "tests"]},
                "review": {"approved": True, "findings": []},
                "report": {"summary": "all fixed"},
            }
        ),
    )
    prompt = result.prompts["confirm-fixes"]
    assert prompt.startswith('<confirm default="no" destructive="true">')
    assert f"Edit the files of {tmp_path} to fix ci, tests?" in prompt
    assert result.path.index("confirm-fixes") < result.path.index("remediate")


def test_declined_fixes_change_nothing_and_go_straight_to_the_report(tmp_path) -> None:
    result = run_skill(
        repo_doctor,
        params={"repo_path": str(tmp_path)},
        model=mock_model(
            {
                "diagnose": {"checks": CHECKS},
                "confirm-fixes": {"approved": False},
                "report": {"summary": "ci and tests still fail; nothing changed"},
            }
        ),
    )
    assert result.path == ["diagnose", "gate", "confirm-fixes", "report"]
    assert not (tmp_path / ".repo-doctor.log").exists()
    assert "Fixed: nothing." in result.prompts["report"]
    assert "| tests | ❌ fail | none |" in result.prompts["report"]

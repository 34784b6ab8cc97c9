"""The bundled examples, loaded the way the CLI loads them."""

from pathlib import Path

import pytest

from skillkit_core.loader import load_entry

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def example(folder: str, file: str):
    return load_entry(str(EXAMPLES / folder / file))


@pytest.fixture(scope="session")
def deploy_check():
    return example("deploy-check", "deploy_check.py")


@pytest.fixture(scope="session")
def get_to_know_you():
    return example("get-to-know-you", "get_to_know_you.py")


@pytest.fixture(scope="session")
def repo_doctor():
    return example("repo-doctor", "repo_doctor.py")


@pytest.fixture(scope="session")
def help_desk():
    return example("help-desk", "help_desk.py")

"""Fixtures for the runtime tests (helpers live in ``support.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtime.support import SkillTree, make_skill_tree


@pytest.fixture(scope="session")
def skill_tree(tmp_path_factory: pytest.TempPathFactory) -> SkillTree:
    """One shared, read-only-by-convention copy of the fixture skills."""
    return make_skill_tree(tmp_path_factory.mktemp("runtime") / "skills")


@pytest.fixture
def own_tree(tmp_path: Path) -> SkillTree:
    """A private copy for tests that edit skills."""
    return make_skill_tree(tmp_path / "skills")

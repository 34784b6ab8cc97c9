"""pytest plugin (registered through the ``pytest11`` entry point).

Exposes the testing helpers as fixtures, so a skill's tests need no imports::

    def test_deploys(run_skill, mock_model):
        result = run_skill(deploy_check, model=mock_model({...}))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def mock_model() -> Callable[..., Any]:
    """``skillkit_core.testing.mock_model``."""
    from skillkit_core.testing import mock_model as factory

    return factory


@pytest.fixture
def run_skill() -> Callable[..., Any]:
    """``skillkit_core.testing.run_skill`` (use ``run_skill_async`` in async tests)."""
    from skillkit_core.testing import run_skill as runner

    return runner


@pytest.fixture
def run_composite() -> Callable[..., Any]:
    """``skillkit_core.testing.run_composite``."""
    from skillkit_core.testing import run_composite as runner

    return runner

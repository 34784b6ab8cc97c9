"""Response fixtures: the map ``mock_model`` takes, given inline or in a file.

A value answers every visit of its step; a list answers one visit each (wrap a list
answer in another list); a callable receives the prompt text and returns the answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillkit_core.simulate.errors import SimulationError

NO_ANSWER: Any = object()
"""What :func:`fixture_answer` returns when the fixture has nothing for a visit."""


def load_responses(responses: Mapping[str, Any] | str | Path | None) -> dict[str, Any] | None:
    """The fixture map from a mapping, a ``.json`` file, or a ``.py`` file (its
    ``responses`` or ``RESPONSES`` variable)."""
    if responses is None:
        return None
    if isinstance(responses, Mapping):
        return dict(responses)
    file = Path(responses)
    if not file.is_file():
        raise SimulationError(f"responses file {file} does not exist")
    if file.suffix == ".json":
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise SimulationError(f"responses file {file} is not valid JSON: {error}") from None
    elif file.suffix == ".py":
        data = _python_responses(file)
    else:
        raise SimulationError(f"responses file {file} must be a .json or .py file")
    if not isinstance(data, Mapping):
        raise SimulationError(
            f"responses file {file} must hold an object mapping step names to responses"
        )
    return dict(data)


def _python_responses(file: Path) -> Any:
    import runpy

    try:
        namespace = runpy.run_path(str(file))
    except Exception as error:  # the fixture is the author's code
        raise SimulationError(
            f"responses file {file} raised {type(error).__name__}: {error}"
        ) from None
    for name in ("responses", "RESPONSES"):
        if name in namespace:
            return namespace[name]
    raise SimulationError(f"responses file {file} defines no 'responses' variable")


def fixture_answer(answers: Mapping[str, Any], step: str, visit: int, prompt: str) -> Any:
    """The fixture's answer for ``step`` at its ``visit`` (1-based), or ``NO_ANSWER``.

    Unlike ``mock_model`` this keeps no state, so a simulation can ask again (probes,
    re-runs) and get the same answer.
    """
    if step not in answers:
        return NO_ANSWER
    answer = answers[step]
    if isinstance(answer, list):
        if visit > len(answer):
            return NO_ANSWER
        answer = answer[visit - 1]
    if callable(answer):
        try:
            answer = answer(prompt)
        except Exception as error:  # the fixture is the author's code
            raise SimulationError(
                f"the responses fixture for step '{step}' raised {type(error).__name__}: {error}"
            ) from None
    return answer

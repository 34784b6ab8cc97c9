"""skillkit: write agent skills as typed Python workflows or references.

Names are imported lazily so that a built ``scripts/run`` pays only for what it uses.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_EXPORTS = {
    "skill": "skillkit_core.builder.skill",
    "step": "skillkit_core.builder.skill",
    "module": "skillkit_core.builder.skill",
    "action": "skillkit_core.builder.skill",
    "reference": "skillkit_core.builder.reference",
    "branch": "skillkit_core.definitions",
    "terminal": "skillkit_core.definitions",
    "PARENT": "skillkit_core.definitions",
    "SkillDefinition": "skillkit_core.definitions",
    "ReferenceDefinition": "skillkit_core.definitions",
    "ModuleDefinition": "skillkit_core.definitions",
    "act": "skillkit_core.primitives",
    "system": "skillkit_core.prompts",
    "view": "skillkit_core.prompts",
    "fragment": "skillkit_core.prompts",
    "prompt": "skillkit_core.prompts",
    "check_skill": "skillkit_core.lint",
    "LintDiagnostic": "skillkit_core.lint.diagnostic",
    "SkillkitError": "skillkit_core.errors",
    "SkillDefinitionError": "skillkit_core.errors",
}
_MODULES = {"render": "skillkit_core.render"}

__all__ = [
    "PARENT",
    "LintDiagnostic",
    "ModuleDefinition",
    "ReferenceDefinition",
    "SkillDefinition",
    "SkillDefinitionError",
    "SkillkitError",
    "act",
    "action",
    "branch",
    "check_skill",
    "fragment",
    "module",
    "prompt",
    "reference",
    "render",
    "skill",
    "step",
    "system",
    "terminal",
    "view",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors only
    from skillkit_core import render
    from skillkit_core.builder.reference import reference
    from skillkit_core.builder.skill import action, module, skill, step
    from skillkit_core.definitions import (
        PARENT,
        ModuleDefinition,
        ReferenceDefinition,
        SkillDefinition,
        branch,
        terminal,
    )
    from skillkit_core.errors import SkillDefinitionError, SkillkitError
    from skillkit_core.lint import check_skill
    from skillkit_core.lint.diagnostic import LintDiagnostic
    from skillkit_core.primitives import act
    from skillkit_core.prompts import fragment, prompt, system, view


def __getattr__(name: str) -> Any:
    # importlib (and the warnings module it brings) only when a name is asked for:
    # ``skillkit check`` imports this package and asks for none.
    from importlib import import_module

    if name in _MODULES:
        value = import_module(_MODULES[name])
    elif name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'skillkit_core' has no attribute {name!r}")
    globals()[name] = value
    return value

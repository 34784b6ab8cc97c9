"""Builders that turn author code into frozen definitions."""

from skillkit_core.builder.reference import ReferenceBuilder, reference
from skillkit_core.builder.skill import ModuleBuilder, SkillBuilder, action, module, skill, step

__all__ = [
    "ModuleBuilder",
    "ReferenceBuilder",
    "SkillBuilder",
    "action",
    "module",
    "reference",
    "skill",
    "step",
]

"""SKILL.md parsing and Agent Skills spec validation."""

from skillkit_core.manifest.parse import (
    FieldSpan,
    ParsedSkillMd,
    ParseProblem,
    YamlFeature,
    find_skill_md,
    parse_skill_md,
    read_skill_md,
)

__all__ = [
    "FieldSpan",
    "ParseProblem",
    "ParsedSkillMd",
    "YamlFeature",
    "find_skill_md",
    "parse_skill_md",
    "read_skill_md",
]

"""SKILL.md parsing and Agent Skills spec validation.

The names below come from :mod:`skillkit_core.manifest.parse`, imported on first use:
a check whose results are read back from its cache imports this package (for the folder
listing) without needing the parser.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
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


def __getattr__(name: str) -> object:
    if name in __all__:
        from skillkit_core.manifest import parse

        return getattr(parse, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

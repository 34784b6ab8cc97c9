"""What the agent reads about skills: ``<available_skills>``, ``<active_skills>``, the rules.

``<available_skills>`` is tier 1 of progressive disclosure: one ``<skill>`` element per
skill with ``<name>``, ``<description>`` and (for agents that read files themselves)
``<location>``, every value XML-escaped. A character budget (the host seed's ~15,000
characters by default) keeps the block from crowding the context: skills are kept in
registry order while the whole block fits, and the rest are cut and reported.

``<active_skills>`` carries the SKILL.md bodies of loaded skills (tier 2) in load order, so
that later skills win conflicts, as the runtime seed orders them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillkit_core.runtime.registry import DEFAULT_MAX_DEPTH, SkillRecord, discover_skills

DEFAULT_BUDGET = 15_000
_OPEN = "<available_skills>\n"
_CLOSE = "</available_skills>"
# Characters XML 1.0 forbids outright; a description carrying them would break parsers.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

# Our wording of the seed's loading-required rule; tool names are the MCP ones.
_BASE_RULES = """\
You can use Agent Skills: folders of instructions, reference files and scripts for \
specific kinds of tasks. The skills you can use are listed in <available_skills> below.

Rules:
1. Before you follow a skill's instructions or use any of its files or scripts, load it \
with the skills_load tool (skills.load in the Agent Skills runtime protocol). Loading \
returns the skill's SKILL.md instructions; do not guess them from the description.
2. Pick skills by their description and load only the ones the task needs (at most \
{max_active} at a time); load with mode "add" to keep skills already loaded.
3. Read a loaded skill's references and assets with skills_read and run its scripts with \
skills_run_script, giving paths relative to the skill folder (references/guide.md, \
scripts/build.py). With several skills loaded, name one in the "skill" argument; without \
it the most recently loaded skill is used. On a connection of MCP 2026-07-28, where \
nothing stays loaded between requests, always name the skill there.
4. When loaded skills' instructions conflict, the most recently loaded skill wins. Unload \
skills you no longer need with skills_unload.
"""


@dataclass(frozen=True)
class AvailableSkills:
    """A rendered ``<available_skills>`` block and the skills the budget left out."""

    xml: str
    included: tuple[str, ...]
    cut: tuple[str, ...]
    budget: int | None

    def cut_warning(self) -> str | None:
        """A one-line warning naming the cut skills, or ``None`` when nothing was cut."""
        if not self.cut:
            return None
        return (
            f"<available_skills> is limited to {self.budget} characters: left out "
            f"{len(self.cut)} skill(s): {', '.join(self.cut)}"
        )


def xml_text(value: str) -> str:
    """Escape ``value`` for XML element content or a double-quoted attribute."""
    value = _XML_INVALID.sub("", value)
    return (
        value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def skill_element(record: SkillRecord, *, include_location: bool = True) -> str:
    """One ``<skill>`` element, newline-terminated."""
    lines = [
        "<skill>",
        f"<name>{xml_text(record.name)}</name>",
        f"<description>{xml_text(record.description)}</description>",
    ]
    if include_location:
        lines.append(f"<location>{xml_text(str(record.location))}</location>")
    lines.append("</skill>")
    return "\n".join(lines) + "\n"


def render_available_skills(
    records: Iterable[SkillRecord],
    *,
    include_location: bool = True,
    budget: int | None = DEFAULT_BUDGET,
) -> AvailableSkills:
    """Render the block within ``budget`` characters (``None`` or 0: no limit).

    The block keeps the longest prefix of ``records`` that fits; every later skill is cut,
    so the order of the roots decides what an agent sees when space runs out.
    """
    limit = budget or None
    size = len(_OPEN) + len(_CLOSE)
    parts: list[str] = []
    included: list[str] = []
    cut: list[str] = []
    for record in records:
        element = skill_element(record, include_location=include_location)
        if cut or (limit is not None and size + len(element) > limit):
            cut.append(record.name)
            continue
        parts.append(element)
        included.append(record.name)
        size += len(element)
    return AvailableSkills(_OPEN + "".join(parts) + _CLOSE, tuple(included), tuple(cut), limit)


def render_active_skills(bodies: Sequence[tuple[str, str]]) -> str:
    """``<active_skills>`` with one ``<skill name="...">`` per (name, SKILL.md body)."""
    parts = ["<active_skills>\n"]
    for name, body in bodies:
        text = body.lstrip("\n").rstrip() + "\n"
        parts.append(f'<skill name="{xml_text(name)}">\n{text}</skill>\n')
    parts.append("</active_skills>")
    return "".join(parts)


def server_instructions(available: AvailableSkills, *, max_active: int) -> str:
    """The MCP server's ``instructions``: the base rules, then ``<available_skills>``."""
    return _BASE_RULES.format(max_active=max_active) + "\n" + available.xml + "\n"


def available_skills_from_roots(
    roots: Sequence[str | Path],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    include_location: bool = True,
    budget: int | None = DEFAULT_BUDGET,
) -> tuple[AvailableSkills, list[str]]:
    """Discover ``roots`` and render their block; also return every warning as a line."""
    registry = discover_skills(roots, max_depth=max_depth)
    available = render_available_skills(registry, include_location=include_location, budget=budget)
    warnings = [str(warning) for warning in registry.warnings]
    cut = available.cut_warning()
    if cut:
        warnings.append(cut)
    return available, warnings

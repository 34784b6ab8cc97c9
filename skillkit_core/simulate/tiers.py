"""What a host loads of a SKILL.md folder at each level of progressive disclosure.

- tier 1, at start-up: the skill's ``<available_skills>`` entry (rendered by the runtime's
  own renderer, so it is exactly what ``skillkit serve`` and ``skillkit prompt`` give);
- tier 2, when the skill is activated: the SKILL.md body;
- tier 3, on demand: the folder's other files (scripts, references, assets).

Token counts are the manifest module's estimate (characters / 4), as the linter uses.
Tier 1 also says what share of each host's listing limit the skill takes
(:func:`listing_shares`): Claude Code's and Codex's budgets for their whole skill listings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillkit_core.simulate.errors import SimulationError


@dataclass(frozen=True)
class ResourceFile:
    """A tier-3 file: its path in the folder, its size and (for text) a token estimate."""

    path: str
    size: int
    tokens: int | None
    """``None`` for binary, unreadable or very large files (not read into context)."""

    def to_data(self) -> dict[str, Any]:
        return {"path": self.path, "bytes": self.size, "tokens": self.tokens}


@dataclass(frozen=True)
class ListingShare:
    """How much of one host's listing limit the skill's entry takes.

    ``measured`` says what is counted (``name + description + when_to_use`` for Claude
    Code, the listing line for Codex), ``unit`` in what (``characters`` or ``bytes``)."""

    host: str
    measured: str
    used: int
    limit: int
    unit: str = "characters"

    @property
    def percent(self) -> float:
        """``used`` as a percentage of ``limit``, to one decimal."""
        return round(100 * self.used / self.limit, 1)

    def to_data(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "measured": self.measured,
            "used": self.used,
            "limit": self.limit,
            "unit": self.unit,
            "percent": self.percent,
        }


def listing_shares(
    name: str, description: str, when_to_use: str | None, folder_name: str
) -> list[ListingShare]:
    """The skill's share of each host's skill-listing budget (when the context window is
    not known).

    Claude Code lists every skill's name with its description and ``when_to_use``, the
    two cut at ``LISTING_CHARS_MAX`` together, within ``CLAUDE_CODE_LISTING_BUDGET``
    characters for all skills. Codex writes each skill as one line (:func:`codex_line`)
    and counts the UTF-8 bytes of all of them against ``CODEX_LISTING_BUDGET``.
    """
    from skillkit_core.manifest.spec import (
        CLAUDE_CODE_LISTING_BUDGET,
        CODEX_LISTING_BUDGET,
        LISTING_CHARS_MAX,
        listed_text,
    )

    listed = min(len(listed_text(description, when_to_use)), LISTING_CHARS_MAX)
    measured = "name + description + when_to_use" if when_to_use else "name + description"
    codex_bytes = len(codex_line(name, description, folder_name).encode("utf-8"))
    return [
        ListingShare("claude-code", measured, len(name) + listed, CLAUDE_CODE_LISTING_BUDGET),
        ListingShare("codex", "listing line", codex_bytes, CODEX_LISTING_BUDGET, "bytes"),
    ]


def codex_line(name: str, description: str, folder_name: str) -> str:
    """The skill's line in Codex's listing: name and description made one line each (runs
    of white space one space), the description cut at ``CODEX_DESCRIPTION_SHOWN``
    characters with ``...``, and the file as a path from its skills root (here the skill
    is taken to sit in the first root of the project, ``r1``: ``r0`` is Codex's own)."""
    from skillkit_core.manifest.spec import CODEX_DESCRIPTION_SHOWN

    shown = " ".join(description.split())
    if len(shown) > CODEX_DESCRIPTION_SHOWN:
        shown = shown[: CODEX_DESCRIPTION_SHOWN - 3] + "..."
    return f"- {' '.join(name.split())}: {shown} (file: r1/{folder_name}/SKILL.md)\n"


@dataclass
class TierView:
    """The three disclosure tiers of one skill folder."""

    folder: str
    name: str | None
    description: str | None
    listing: str | None
    """The ``<available_skills>`` block with this skill alone; ``None`` when a host would
    skip the skill (``listing_note`` says why)."""
    listing_tokens: int
    listing_note: str | None
    body: str
    body_tokens: int
    body_lines: int
    resources: list[ResourceFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    shares: list[ListingShare] = field(default_factory=list)
    """The skill's share of each host's listing limit (none when no host lists it)."""

    @property
    def resource_tokens(self) -> int:
        return sum(r.tokens or 0 for r in self.resources)

    def to_data(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "name": self.name,
            "description": self.description,
            "problems": self.problems,
            "tier1": {
                "availableSkills": self.listing,
                "tokens": self.listing_tokens,
                "note": self.listing_note,
                "hosts": [share.to_data() for share in self.shares],
            },
            "tier2": {"body": self.body, "tokens": self.body_tokens, "lines": self.body_lines},
            "tier3": {
                "files": [r.to_data() for r in self.resources],
                "tokens": self.resource_tokens,
            },
        }


def tier_view(folder: str | Path, text: str | None = None) -> TierView:
    """The tiers of the skill in ``folder`` (a folder holding a SKILL.md); with ``text``,
    of the folder as it would be with that SKILL.md text (an editor's unsaved buffer)."""
    from skillkit_core.manifest.folder import SkillFolder
    from skillkit_core.manifest.parse import find_skill_md, parse_skill_md, read_skill_md
    from skillkit_core.manifest.spec import estimate_tokens

    root = Path(folder)
    if not root.is_dir():
        raise SimulationError(f"{root} is not a folder")
    manifest = find_skill_md(root)
    if manifest is None and text is not None:
        manifest = root / "SKILL.md"  # an editor's buffer not saved yet
    if manifest is None:
        raise SimulationError(f"{root} has no SKILL.md, so it is not a skill folder")
    parsed = read_skill_md(root) if text is None else parse_skill_md(text, str(manifest))
    listing, note, name, description = _listing(root, parsed)
    shares = _shares(SkillFolder(root, parsed), name, description)
    return TierView(
        folder=str(root),
        name=name,
        description=description,
        listing=listing,
        listing_tokens=estimate_tokens(listing) if listing else 0,
        listing_note=note,
        body=parsed.body,
        body_tokens=estimate_tokens(parsed.body),
        body_lines=len(parsed.body.splitlines()),
        resources=_resources(root, parsed.path),
        problems=[p.message for p in parsed.problems],
        shares=shares,
    )


def _shares(folder: Any, name: str | None, description: str | None) -> list[ListingShare]:
    """The listing shares, also of a skill skillkit's runtime would not list (a host
    reads it its own way: Codex lists a description over 1,024 characters, cut)."""
    name = name if name is not None else folder.text_value("name") or folder.folder_name
    if description is None:
        description = folder.text_value("description")
    if not isinstance(description, str) or not description.strip():
        return []
    return listing_shares(name, description, folder.text_value("when_to_use"), folder.folder_name)


def _listing(root: Path, parsed: Any) -> tuple[str | None, str | None, str | None, str | None]:
    """``(xml, why it is missing, name, description)`` through the runtime's registry."""
    from skillkit_core.runtime.prompt import render_available_skills
    from skillkit_core.runtime.registry import SkillRecord, read_record

    record = read_record(root, root, parsed)
    if not isinstance(record, SkillRecord):
        note = f"skillkit serve and skillkit prompt would not list this skill: {record.message}"
        return None, note, None, None
    xml = render_available_skills([record], budget=None).xml
    return xml, None, record.name, record.description


def _resources(root: Path, skill_md: str | None) -> list[ResourceFile]:
    from skillkit_core.manifest.folder import SkillFolder
    from skillkit_core.manifest.spec import estimate_tokens

    folder = SkillFolder(root)
    manifest = Path(skill_md).name if skill_md else None
    found = []
    for file in folder.files:
        if file.relative == manifest:
            continue
        text = folder.read_text(file)
        tokens = estimate_tokens(text) if text is not None else None
        found.append(ResourceFile(file.relative, file.size, tokens))
    return found

"""Settings of one runtime server, as ``skillkit serve`` options set them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from skillkit_core.runtime.prompt import DEFAULT_BUDGET
from skillkit_core.runtime.reading import DEFAULT_MAX_READ
from skillkit_core.runtime.registry import DEFAULT_MAX_DEPTH
from skillkit_core.runtime.scripts import DEFAULT_MAX_CONCURRENT_SCRIPTS, ScriptLimits
from skillkit_core.runtime.session import DEFAULT_MAX_ACTIVE
from skillkit_core.runtime.skills_extension import DEFAULT_PAGE_SIZE


@dataclass(frozen=True)
class RuntimeConfig:
    """Where skills come from and the limits every session of the server runs under.

    ``budget`` is the character limit of ``<available_skills>`` (``None``: unlimited);
    ``include_location`` puts each SKILL.md path in it (off for tool-only agents);
    ``max_concurrent_scripts`` caps the scripts one session runs at the same time;
    ``page_size`` is the number of skills per ``skills/list`` page (and of entries per
    ``resources/list`` and ``resources/directory/read`` page).
    """

    roots: tuple[Path, ...]
    max_depth: int = DEFAULT_MAX_DEPTH
    max_active: int = DEFAULT_MAX_ACTIVE
    limits: ScriptLimits = field(default_factory=ScriptLimits)
    max_concurrent_scripts: int = DEFAULT_MAX_CONCURRENT_SCRIPTS
    max_read: int = DEFAULT_MAX_READ
    include_location: bool = True
    budget: int | None = DEFAULT_BUDGET
    page_size: int = DEFAULT_PAGE_SIZE

"""The name a misspelt one was most likely meant to be (for "did you mean" hints).

Its own small module: the SKILL.md rules ask it too, and reaching it through the syntax
index's package (:mod:`skillkit_core.source`) would load all of that package first.
"""

from __future__ import annotations

from collections.abc import Iterable


def closest_name(name: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The candidate ``name`` was most likely meant to be (None when nothing is at least
    ``cutoff`` alike, by difflib's ratio)."""
    import difflib

    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=cutoff)
    return matches[0] if matches else None

"""The build pipeline: a skill written in Python → a distributable Agent Skills folder.

``build_skill(BuildOptions(entry, out_dir, ...))`` runs it; see :mod:`.pipeline`.
Names load lazily: importing this package costs nothing until a build runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["STEPS", "BuildOptions", "BuildResult", "build_skill"]

if TYPE_CHECKING:  # pragma: no cover
    from skillkit_core.build.pipeline import STEPS, BuildOptions, BuildResult, build_skill


def __getattr__(name: str) -> Any:
    if name in __all__:
        from skillkit_core.build import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'skillkit_core.build' has no attribute {name!r}")

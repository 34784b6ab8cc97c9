"""The linter: ``check_skill`` for built definitions, and the rules in ``rules/``.

This package is imported by light modules (the engine and the source index use its
``diagnostic`` types), so it imports nothing itself; the workflow linter is loaded on the
first call.
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False

if TYPE_CHECKING:
    from pathlib import Path

    from skillkit_core.definitions import AnyDefinition
    from skillkit_core.lint.diagnostic import LintDiagnostic
    from skillkit_core.source.model import SourceIndex

__all__ = ["check_skill"]


def check_skill(
    definition: AnyDefinition,
    root_dir: str | Path,
    *,
    source: SourceIndex | str | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
) -> list[LintDiagnostic]:
    """Lint a built skill (workflow, composite or reference) and return its findings.

    ``root_dir`` is the skill project's folder (its ``references/`` are checked).
    ``source`` is the text of the file that defines the skill, or its syntax index; by
    default the file named by ``definition.source_file`` is read. With a source, every
    diagnostic carries a range and ``# skillkit: ignore[rule]`` comments are honoured.
    ``select``/``ignore`` take rule ids or glob patterns. A composite's sub-skills are
    linted too, their messages prefixed with ``[subskill:<name>]``.
    """
    from skillkit_core.lint.workflow import lint_definition

    return lint_definition(
        definition, root_dir, source=source, select=select, ignore=ignore
    ).diagnostics

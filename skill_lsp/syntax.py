"""The syntax layer's findings for a Python document: the core's structural checks on the
version's source index (no code runs)."""

from __future__ import annotations

from typing import Any

from skillkit_core.lint.diagnostic import LintDiagnostic


def structural_findings(snapshot: Any) -> list[LintDiagnostic]:
    """Unknown, duplicate, unreachable and badly named steps of this version."""
    from skillkit_core.source.diagnostics import structural_diagnostics

    index = snapshot.index
    if index.too_large:
        return []
    return structural_diagnostics(index, file=None)

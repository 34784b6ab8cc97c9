"""Shared helpers for the workflow lint tests: fixture paths and compact findings."""

from __future__ import annotations

from pathlib import Path

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.load_worker import check_file

FIXTURES = Path(__file__).parent / "fixtures"


SYNTAX_ERROR = """\
from skillkit_core import skill, terminal

broken = (
    skill(name="broken", entry="start", description="Bad syntax.")
    .step("start", prompt="Start.", next=terminal
    .build()
)
"""
"""A module that does not compile (written at test time: ruff must not see it)."""


def findings(diagnostics: list[LintDiagnostic]) -> list[tuple[str, str, int | None]]:
    """``(rule, severity, 1-based line)`` of each diagnostic, in report order."""
    return [
        (d.rule, d.severity, d.range.line + 1 if d.range is not None else None) for d in diagnostics
    ]


def check_fixture(name: str) -> list[LintDiagnostic]:
    """Lint a fixture module in this process (it is our own, trusted code)."""
    return check_file(FIXTURES / name).diagnostics


def only(diagnostics: list[LintDiagnostic], rule: str) -> list[LintDiagnostic]:
    """The diagnostics of one rule."""
    return [d for d in diagnostics if d.rule == rule]

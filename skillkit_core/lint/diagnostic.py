"""The diagnostic value every lint rule returns, and the positions and fixes it carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class SourceRange:
    """A span in a text file: 0-based lines, 0-based columns counted in code points.

    Faces convert columns to what their client wants (UTF-16 for VS Code, bytes for
    Neovim, 1-based for humans); the core never does.
    """

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class TextEdit:
    """Replace ``range`` of ``file`` (or of the diagnostic's file) with ``new_text``."""

    range: SourceRange
    new_text: str
    file: str | None = None


@dataclass(frozen=True)
class Fix:
    """A safe, mechanical fix for one diagnostic."""

    title: str
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True)
class LintDiagnostic:
    """One finding: which rule, how bad, what and where, and an optional fix."""

    rule: str
    severity: Severity
    message: str
    step: str | None = None
    file: str | None = None
    range: SourceRange | None = None
    fix: Fix | None = None

"""Helpers for SKILL.md lint tests: build skill folders, run the check, summarise."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from skillkit_core.lint.check_folder import check_folder
from skillkit_core.lint.diagnostic import LintDiagnostic

DESCRIPTION = "Extract text from PDF files. Use when the user sends a PDF."


def skill_md(
    name: str = "pdf-tools", extra: str = "", body: str = "# PDF tools\n\nUse it.\n"
) -> str:
    """A SKILL.md with ``name``, the standard description, ``extra`` frontmatter lines."""
    return f"---\nname: {name}\ndescription: {DESCRIPTION}\n{extra}---\n{body}"


def make_skill(
    parent: Path,
    folder: str = "pdf-tools",
    files: Mapping[str, str | bytes] | None = None,
    executable: tuple[str, ...] = (),
) -> Path:
    """Create ``parent/folder`` holding ``files`` (default: a valid SKILL.md)."""
    root = parent / folder
    root.mkdir(parents=True, exist_ok=True)
    for relative, content in (files if files is not None else {"SKILL.md": skill_md()}).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
        os.chmod(path, 0o755 if relative in executable else 0o644)
    return root


def summary(diagnostics: list[LintDiagnostic]) -> list[tuple[str, str, int | None, str]]:
    """(rule, severity, 1-based line or None, file name) of each diagnostic."""
    return [
        (
            d.rule,
            d.severity,
            d.range.line + 1 if d.range else None,
            Path(d.file).name if d.file else "",
        )
        for d in diagnostics
    ]


def check(root: Path) -> list[tuple[str, str, int | None, str]]:
    """Summarised diagnostics of the folder at ``root``."""
    return summary(check_folder(root).diagnostics)

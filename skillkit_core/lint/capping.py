"""How many findings a report shows: at most :data:`MAX_PER_RULE` of one rule in one file,
each message at most :data:`MAX_MESSAGE` characters long, and how many were left out.

Every output format of ``skillkit check`` shows :func:`shown`'s findings, so a file with
thousands of findings (a line of thousands of broken links) prints a report of bounded
size.
"""

from __future__ import annotations

from collections.abc import Iterable

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.named_tuple import NamedTuple
from skillkit_core.safe_text import shorten

# Findings of one rule shown per file; the rest are counted ("… and N more").
MAX_PER_RULE = 50
# Characters of a message shown (a message may quote a link target as long as its line).
MAX_MESSAGE = 500


class Capped(NamedTuple):
    """Findings of ``rule`` in ``file`` left out beyond :data:`MAX_PER_RULE`."""

    file: str | None
    rule: str
    more: int


def shown(diagnostics: Iterable[LintDiagnostic]) -> tuple[list[LintDiagnostic], list[Capped]]:
    """The findings to show, at most :data:`MAX_PER_RULE` per rule and file (their
    messages cut at :data:`MAX_MESSAGE`), and how many of each rule were left out."""
    counts: dict[tuple[str | None, str], int] = {}
    kept: list[LintDiagnostic] = []
    for diagnostic in diagnostics:
        key = (diagnostic.file, diagnostic.rule)
        seen = counts[key] = counts.get(key, 0) + 1
        if seen <= MAX_PER_RULE:
            if len(diagnostic.message) > MAX_MESSAGE:
                diagnostic = diagnostic._replace(message=shorten(diagnostic.message, MAX_MESSAGE))
            kept.append(diagnostic)
    capped = [
        Capped(file, rule, count - MAX_PER_RULE)
        for (file, rule), count in counts.items()
        if count > MAX_PER_RULE
    ]
    return kept, capped

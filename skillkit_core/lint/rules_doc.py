"""``skillkit rules`` and ``skillkit explain RULE``: the registry shown to people."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from skillkit_core.lint.registry import RULES, get_rule
from skillkit_core.lint.rule import Rule

if TYPE_CHECKING:
    from rich.console import Console

_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def rule_json(rule: Rule) -> dict[str, object]:
    """A rule's documentation as a JSON-ready mapping."""
    return {
        "id": rule.id,
        "severity": rule.severity,
        "target": rule.target,
        "spec": rule.spec,
        "fixable": rule.fixable,
        "suggests": rule.suggest is not None,
        "summary": rule.summary,
        "rationale": rule.rationale,
        "bad": rule.bad,
        "good": rule.good,
    }


def rules_json() -> str:
    """Every rule as a JSON list."""
    return json.dumps([rule_json(rule) for rule in RULES], indent=2, ensure_ascii=False)


def render_rules(console: Console) -> None:
    """A table of every rule: id, severity, what it checks, fixable, summary."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{len(RULES)} lint rules")
    for column in ("rule", "severity", "checks", "fix", "summary"):
        table.add_column(column)
    for rule in RULES:
        checks = "SKILL.md (spec)" if rule.spec else "SKILL.md"
        if rule.target == "workflow":
            checks = "Python skill"
        table.add_row(
            rule.id,
            Text(rule.severity, style=_STYLES[rule.severity]),
            checks,
            "yes" if rule.fixable else "",
            rule.summary,
        )
    console.print(table)


def _checks(rule: Rule) -> str:
    if rule.target == "workflow":
        return "Python skill definitions"
    return "SKILL.md (Agent Skills spec)" if rule.spec else "SKILL.md (beyond the spec)"


def _suppression(rule: Rule) -> str:
    if rule.target == "workflow":
        where = f"`# skillkit: ignore[{rule.id}]` on the line, or on the line of its step"
    else:
        where = f"`<!-- skillkit: ignore[{rule.id}] -->` on the line before it in SKILL.md"
    return (
        f"Silence one finding with {where}; every finding with `--ignore {rule.id}` or "
        f'`ignore = ["{rule.id}"]` under `[tool.skillkit]` in pyproject.toml.'
    )


def rule_markdown(rule: Rule) -> str:
    """A rule's documentation page in Markdown: the text of the docs site's rule page,
    of the language server's ``codeDescription`` link and of ``skillkit explain``."""
    fence = "python" if rule.target == "workflow" else "yaml"
    fix = "`skillkit check --fix` applies a safe fix" if rule.fixable else "none (fix by hand)"
    if rule.suggest is not None:
        fix += (
            "; editors offer fixes to choose from that may change what the skill means, "
            "which `--fix` never applies"
            if rule.fixable
            else " — editors offer fixes to choose from; `--fix` never applies them, as "
            "each changes what the skill means"
        )
    parts = [
        f"# {rule.id}",
        f"**Severity:** {rule.severity} · **Checks:** {_checks(rule)} · **Fix:** {fix}",
        rule.summary,
        f"## Why\n\n{rule.rationale}",
        f"## Bad\n\n```{fence}\n{rule.bad.rstrip()}\n```",
        f"## Good\n\n```{fence}\n{rule.good.rstrip()}\n```",
        f"## Silencing it\n\n{_suppression(rule)}",
    ]
    return "\n\n".join(parts) + "\n"


def render_explanation(rule_id: str, console: Console, *, markdown: bool = False) -> None:
    """Print one rule's page: rendered on a terminal, else (or with ``markdown``) its
    Markdown source, which reads well as plain text and is never cropped to a width.
    Raises ``UnknownRuleError`` for unknown ids."""
    text = rule_markdown(get_rule(rule_id))
    if markdown or not console.is_terminal:
        console.out(text, end="", highlight=False)
        return
    from rich.markdown import Markdown

    console.print(Markdown(text, code_theme="ansi_dark"))

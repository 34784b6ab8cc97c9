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


def render_explanation(rule_id: str, console: Console) -> None:
    """Print one rule's documentation; raises ``UnknownRuleError`` for unknown ids."""
    from rich.syntax import Syntax
    from rich.text import Text

    rule = get_rule(rule_id)
    title = Text(rule.id, style="bold")
    title.append(f"  ({rule.severity}", style=_STYLES[rule.severity])
    scope = "Agent Skills spec" if rule.spec else "beyond the spec"
    if rule.target == "workflow":
        scope = "Python skill definitions"
    title.append(f", {scope}{', fixable' if rule.fixable else ''})")
    console.print(title)
    console.print(rule.summary)
    console.print()
    console.print(rule.rationale)
    for label, example in (("Bad", rule.bad), ("Good", rule.good)):
        console.print()
        console.print(Text(f"{label}:", style="bold"))
        lexer = "python" if rule.target == "workflow" else "yaml"
        console.print(Syntax(example, lexer, theme="ansi_dark", background_color="default"))

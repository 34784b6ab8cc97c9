"""Pages generated at build time (mkdocs-gen-files): one page per lint rule from the rule
registry, the rules index, one page per host from the host inventory and the hosts
index, the command line reference from the typer app, and the changelog. Nothing
generated is committed, so the site can never drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

import mkdocs_gen_files

from skillkit_core.lint.registry import RULES
from skillkit_core.lint.rules_doc import rule_markdown

ROOT = Path(__file__).resolve().parent.parent


def write(path: str, text: str, source: Path | None = None) -> None:
    with mkdocs_gen_files.open(path, "w") as page:
        page.write(text)
    if source is not None:
        mkdocs_gen_files.set_edit_path(path, source.relative_to(ROOT))


def rule_pages() -> None:
    rows = []
    for rule in RULES:
        write(f"rules/{rule.id}.md", rule_markdown(rule))
        checks = "Python skill" if rule.target == "workflow" else "SKILL.md"
        if rule.spec:
            checks += " (spec)"
        fix = "yes" if rule.fixable else ""
        rows.append(
            f"| [{rule.id}]({rule.id}.md) | {rule.severity} | {checks} | {fix} | "
            f"{_cell(rule.summary)} |"
        )
    write(
        "rules/index.md",
        "\n".join(
            [
                "# Lint rules",
                "",
                f"`skillkit check` and the language server report {len(RULES)} rules. "
                "Each page below is also what `skillkit explain RULE` prints and where an "
                "editor's link on a diagnostic leads.",
                "",
                "| Rule | Severity | Checks | Fix | Summary |",
                "| --- | --- | --- | --- | --- |",
                *rows,
                "",
            ]
        ),
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def cli_page() -> None:
    import typer
    from typer.cli import get_docs_for_click
    from typer.main import get_command

    from skillkit_core.cli import app

    command = get_command(app)
    text = get_docs_for_click(
        obj=command, ctx=typer.Context(command), name="skillkit", title="Command line"
    )
    write("reference/cli.md", _escape_tags(text))


_CODE = re.compile(r"(`[^`]*`)")


def _escape_tags(markdown: str) -> str:
    """Help texts mention XML tags (``<available_skills>``): outside code they would be
    read as HTML and vanish, so escape them there."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            parts = _CODE.split(line)
            line = "".join(
                p if p.startswith("`") else p.replace("<", "&lt;").replace(">", "&gt;")
                for p in parts
            )
        lines.append(line)
    return "\n".join(lines) + "\n"


def host_pages() -> None:
    from skillkit_core.hosts_doc import pages

    source = ROOT / "skillkit_core" / "hosts_data.py"
    for path, text in pages().items():
        write(path, text, source)


def changelog_page() -> None:
    source = ROOT / "CHANGELOG.md"
    write("changelog.md", source.read_text(encoding="utf-8"), source)


rule_pages()
host_pages()
cli_page()
changelog_page()

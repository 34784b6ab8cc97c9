"""The ``skillkit`` command. Thin: each command parses options, calls one core function,
and hands the result to a formatter."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(
    name="skillkit",
    help="Lint, preview, simulate, build and serve agent skills.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Lint, preview, simulate, build and serve agent skills."""


@app.command()
def version() -> None:
    """Print skillkit's version."""
    from importlib.metadata import version as dist_version

    typer.echo(dist_version("pyskillkit"))


_Roots = Annotated[
    list[str], typer.Argument(metavar="ROOT", help="Skill folders, or folders holding them.")
]
_Depth = Annotated[int, typer.Option(min=0, help="How deep below each root to look for skills.")]
_NoLocation = Annotated[bool, typer.Option("--no-location", help="Omit <location> elements.")]
_Budget = Annotated[
    int, typer.Option(min=0, help="Character limit of <available_skills> (0: no limit).")
]


@app.command()
def prompt(
    roots: _Roots,
    no_location: _NoLocation = False,
    budget: _Budget = 15_000,
    depth: _Depth = 3,
) -> None:
    """Print the <available_skills> block for the skills under ROOTS."""
    from skillkit_core.errors import SkillkitError
    from skillkit_core.runtime.prompt import available_skills_from_roots

    try:
        available, warnings = available_skills_from_roots(
            roots, max_depth=depth, include_location=not no_location, budget=budget or None
        )
    except SkillkitError as error:
        typer.echo(f"error[{error.code}]: {error.message}", err=True)
        raise typer.Exit(2) from None
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(available.xml)


@app.command()
def serve(
    roots: _Roots,
    max_active: Annotated[int, typer.Option(min=1, help="Skills a session may load at once.")] = 5,
    script_timeout: Annotated[float, typer.Option(min=0.001, help="Seconds per script.")] = 60.0,
    max_output: Annotated[int, typer.Option(min=1, help="Bytes kept per output stream.")] = 1 << 20,
    depth: _Depth = 3,
    no_location: _NoLocation = False,
    budget: _Budget = 15_000,
) -> None:
    """Serve the skills under ROOTS to an agent over MCP (stdio)."""
    from pathlib import Path

    from skillkit_core.errors import SkillkitError
    from skillkit_core.runtime.config import RuntimeConfig
    from skillkit_core.runtime.mcp_server import serve as serve_runtime
    from skillkit_core.runtime.scripts import ScriptLimits

    try:
        config = RuntimeConfig(
            roots=tuple(Path(root) for root in roots),
            max_depth=depth,
            max_active=max_active,
            limits=ScriptLimits(timeout=script_timeout, max_output=max_output),
            include_location=not no_location,
            budget=budget or None,
        )
        serve_runtime(config)
    except SkillkitError as error:
        typer.echo(f"error[{error.code}]: {error.message}", err=True)
        raise typer.Exit(2) from None


_CheckPaths = Annotated[
    list[str],
    typer.Argument(metavar="PATH", help="SKILL.md folders, folders holding them, file.py[:attr]."),
]
_RuleList = Annotated[
    list[str] | None, typer.Option(metavar="RULES", help="Rule ids or patterns (repeat or a,b).")
]


@app.command()
def check(
    paths: _CheckPaths,
    output_format: Annotated[
        str, typer.Option("--format", help="text, json, sarif or github.")
    ] = "text",
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    select: _RuleList = None,
    ignore: _RuleList = None,
    fix: Annotated[bool, typer.Option("--fix", help="Apply safe fixes, then report.")] = False,
    hosts: Annotated[bool, typer.Option("--hosts", help="Show host compatibility.")] = False,
    config: Annotated[
        str | None, typer.Option(help="pyproject.toml to read [tool.skillkit] from.")
    ] = None,
) -> None:
    """Lint skills: exit 0 when clean, 1 on errors (or warnings with --strict), 2 on misuse."""
    from skillkit_core.lint.check_command import execute

    code = execute(
        paths,
        output_format=output_format,
        strict=strict,
        select=select,
        ignore=ignore,
        fix=fix,
        hosts=hosts,
        config=config,
    )
    raise typer.Exit(code)


@app.command()
def rules(
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """List every lint rule."""
    from skillkit_core.lint import rules_doc

    if output_format == "json":
        typer.echo(rules_doc.rules_json())
        return
    from rich.console import Console

    rules_doc.render_rules(Console(highlight=False, soft_wrap=True))


@app.command()
def explain(rule: Annotated[str, typer.Argument(metavar="RULE")]) -> None:
    """Explain one lint rule: why it exists, a bad and a good example."""
    from rich.console import Console

    from skillkit_core.errors import SkillkitError
    from skillkit_core.lint import rules_doc

    try:
        rules_doc.render_explanation(rule, Console(highlight=False, soft_wrap=True))
    except SkillkitError as error:
        typer.echo(f"error[{error.code}]: {error.message}", err=True)
        raise typer.Exit(2) from None


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def run(
    ctx: typer.Context,
    entry: Annotated[
        str | None, typer.Argument(metavar="ENTRY", help="path/to/skill.py[:attr]")
    ] = None,
) -> None:
    """Run a skill without building it: ENTRY then scripts/run's arguments, untouched."""
    from skillkit_core.protocol import run_entry

    raise typer.Exit(run_entry(entry, list(ctx.args)))


def main() -> None:
    """Console-script entry point."""
    import sys

    if sys.argv[1:2] == ["run"]:
        # The agent protocol's arguments pass through exactly as given (no option parsing).
        from skillkit_core.protocol import run_entry

        rest = sys.argv[2:]
        sys.exit(run_entry(rest[0] if rest else None, rest[1:]))

    # `skillkit check` skips typer: importing it costs more than checking 200 skills.
    # Help still goes through typer, so `skillkit check --help` looks like every command.
    words = sys.argv[1:]
    if words[:1] == ["check"] and not {"-h", "--help"} & set(words):
        from skillkit_core.lint.check_command import main as check_main

        sys.exit(check_main(words[1:]))
    app()


if __name__ == "__main__":
    main()

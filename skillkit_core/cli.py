"""The ``skillkit`` command. Thin: each command parses options, calls one core function,
and hands the result to a formatter."""

from __future__ import annotations

from typing import Annotated, Any

import typer

app = typer.Typer(
    name="skillkit",
    help="Lint, preview, simulate, build and serve agent skills.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _say_error(error: Any) -> None:
    """``error[code]: message`` on stderr, control characters escaped: the message may
    quote a skill's own exception, whose escape sequences would reach the terminal."""
    from skillkit_core.safe_text import escape_controls

    typer.echo(f"error[{error.code}]: {escape_controls(error.message)}", err=True)


def _refuse_empty(paths: list[str], what: str) -> None:
    """Exit 2 when a path argument is empty: ``Path("")`` is the current folder, which
    nobody means by an empty argument (an unset shell variable, a bad quote)."""
    if "" in paths:
        typer.echo(f"error[usage]: {what} is empty: give a path", err=True)
        raise typer.Exit(2)


def _print_version(asked: bool) -> None:
    if asked:
        version()
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print skillkit's version and exit.",
        ),
    ] = False,
) -> None:
    """Lint, preview, simulate, build and serve agent skills."""


@app.command()
def version() -> None:
    """Print skillkit's version."""
    from importlib.metadata import version as dist_version

    typer.echo(dist_version("pyskillkit"))


_Roots = Annotated[
    list[str], typer.Argument(metavar="ROOT", help="Skill folders, or folders holding them.")
]
_Depth = Annotated[
    int,
    typer.Option(
        min=0, help="How deep below each root, and below each skill (nested ones), to look."
    ),
]
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
    from skillkit_core.safe_text import escape_controls

    _refuse_empty(roots, "ROOT")

    try:
        available, warnings = available_skills_from_roots(
            roots, max_depth=depth, include_location=not no_location, budget=budget or None
        )
    except SkillkitError as error:
        _say_error(error)
        raise typer.Exit(2) from None
    for warning in warnings:  # they name folders, which may hold any character
        typer.echo(f"warning: {escape_controls(str(warning))}", err=True)
    typer.echo(available.xml)


@app.command()
def serve(
    roots: _Roots,
    max_active: Annotated[int, typer.Option(min=1, help="Skills a session may load at once.")] = 5,
    script_timeout: Annotated[float, typer.Option(min=0.001, help="Seconds per script.")] = 60.0,
    max_output: Annotated[int, typer.Option(min=1, help="Bytes kept per output stream.")] = 1 << 20,
    script_cpu: Annotated[
        int | None,
        typer.Option(
            min=0,
            show_default=False,
            help="CPU seconds per script process (default: the timeout; 0: no limit).",
        ),
    ] = None,
    script_memory: Annotated[
        int, typer.Option(min=0, help="MiB of address space per script process (0: no limit).")
    ] = 2048,
    script_processes: Annotated[
        int, typer.Option(min=0, help="Processes a script may run at once (0: no limit).")
    ] = 64,
    max_concurrent_scripts: Annotated[
        int, typer.Option(min=1, help="Scripts a session may run at the same time.")
    ] = 4,
    depth: _Depth = 3,
    no_location: _NoLocation = False,
    budget: _Budget = 15_000,
    page_size: Annotated[
        int,
        typer.Option(
            min=1,
            help="Entries per page of skills/list, resources/list and resources/directory/read.",
        ),
    ] = 50,
) -> None:
    """Serve the skills under ROOTS to an agent over MCP (stdio)."""
    from pathlib import Path

    from skillkit_core.errors import SkillkitError
    from skillkit_core.runtime.config import RuntimeConfig
    from skillkit_core.runtime.mcp_server import serve as serve_runtime
    from skillkit_core.runtime.scripts import ScriptLimits

    _refuse_empty(roots, "ROOT")

    try:
        config = RuntimeConfig(
            roots=tuple(Path(root) for root in roots),
            max_depth=depth,
            max_active=max_active,
            limits=ScriptLimits.from_options(
                timeout=script_timeout,
                max_output=max_output,
                cpu_seconds=script_cpu,
                memory_mib=script_memory,
                processes=script_processes,
            ),
            max_concurrent_scripts=max_concurrent_scripts,
            include_location=not no_location,
            budget=budget or None,
            page_size=page_size,
        )
        serve_runtime(config)
    except SkillkitError as error:
        _say_error(error)
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
        str | None, typer.Option(help="pyproject.toml to read \\[tool.skillkit] from.")
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Check every folder, reading and storing no results in the user's cache "
            "(also SKILLKIT_NO_CACHE=1).",
        ),
    ] = False,
) -> None:
    """Lint skills: exit 0 when clean, 1 on errors (or warnings with --strict), 2 on misuse,
    3 when a path holds no skill."""
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
        no_cache=no_cache,
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
def explain(
    rule: Annotated[str, typer.Argument(metavar="RULE")],
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the page's Markdown source.")
    ] = False,
) -> None:
    """Explain one lint rule: why it exists, a bad and a good example (the text of its
    page in the docs)."""
    from rich.console import Console

    from skillkit_core.errors import SkillkitError
    from skillkit_core.lint import rules_doc

    try:
        console = Console(highlight=False, soft_wrap=True)
        rules_doc.render_explanation(rule, console, markdown=markdown)
    except SkillkitError as error:
        _say_error(error)
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
    from skillkit_core.protocol.runner import run_entry
    from skillkit_core.streams import claim_stdout

    raise typer.Exit(run_entry(entry, list(ctx.args), stdout=claim_stdout()))


_Entry = Annotated[str, typer.Argument(metavar="ENTRY", help="path/to/skill.py[:attr]")]
_Params = Annotated[str | None, typer.Option(help="Params as JSON (default: an example).")]
_Host = Annotated[str, typer.Option(help="Host id, e.g. claude-code, codex, generic.")]
_Tools = Annotated[str | None, typer.Option(help="Tools the agent reports, comma-separated.")]
_Subagent = Annotated[bool, typer.Option("--subagent", help="The caller is a subagent.")]
_MdJson = Annotated[str, typer.Option("--format", help="md or json.")]


def _emit(make_output: Any, *, command: str, entry: str | None, whole: bool = True) -> None:
    """Run one of the simulate package's commands and print what it returns. The skill's
    code runs in it (its module, prompt functions, actions), in a kept child with the
    check's time limit, on the whole command or (``whole`` false) on loading the module
    (:mod:`skillkit_core.simulate.contained`): what that code prints goes to stderr, never
    into the output (a JSON preview, an image)."""
    from skillkit_core.errors import SkillkitError
    from skillkit_core.simulate.contained import run_contained
    from skillkit_core.streams import claim_stdout

    if entry is not None:
        _refuse_empty([entry], "ENTRY")
    out = claim_stdout()
    try:
        result = run_contained(make_output, command=command, entry=entry, whole=whole)
    except SkillkitError as error:
        _say_error(error)
        raise typer.Exit(2) from None
    if out is not None:  # None: started without stdout
        try:
            if isinstance(result.content, bytes):
                out.flush()
                out.buffer.write(result.content)
            else:
                out.write(result.content)
            out.flush()
        except OSError as error:  # the reader went away, a full disk
            from skillkit_core.streams import cannot_write, send_to_null

            send_to_null(out)
            if isinstance(error, BrokenPipeError):
                raise  # the console script stops quietly
            typer.echo(f"error[output]: {cannot_write(error)}", err=True)
            raise typer.Exit(1) from None
    raise typer.Exit(result.exit_code)


@app.command()
def preview(
    target: Annotated[
        str, typer.Argument(metavar="ENTRY|FOLDER", help="skill.py[:attr], or a SKILL.md folder.")
    ],
    params: _Params = None,
    host: _Host = "generic",
    tools: _Tools = None,
    subagent: _Subagent = False,
    step: Annotated[str | None, typer.Option(help="Show only this step.")] = None,
    output_format: _MdJson = "md",
) -> None:
    """Show what an agent on a host sees: preamble, prompts, schemas, transitions
    (for a SKILL.md folder: what each disclosure tier loads)."""
    from skillkit_core.simulate.commands import preview_command

    _emit(
        lambda: preview_command(
            target,
            params=params,
            host=host,
            tools=tools,
            subagent=subagent,
            step=step,
            output_format=output_format,
        ),
        command="preview",
        entry=target,
    )


@app.command()
def simulate(
    entry: _Entry,
    params: _Params = None,
    host: _Host = "generic",
    tools: _Tools = None,
    subagent: _Subagent = False,
    responses: Annotated[
        str | None, typer.Option(help="Responses per step: a .json or .py file (mock_model map).")
    ] = None,
    path: Annotated[str | None, typer.Option(help="Steps to follow, comma-separated.")] = None,
    choose: Annotated[
        list[str] | None, typer.Option(help="step=value or step.field=value (repeatable).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generated responses.")] = 0,
    all_paths: Annotated[
        bool,
        typer.Option(
            "--all-paths",
            help="Explore distinct paths (each value of the closed fields routing reads); "
            "report what was not explored, and coverage.",
        ),
    ] = False,
    max_paths: Annotated[int | None, typer.Option(min=1, help="Bound for --all-paths.")] = None,
    run_actions: Annotated[
        bool, typer.Option("--run-actions", help="Run actions for real (default: generated).")
    ] = False,
    output_format: _MdJson = "md",
) -> None:
    """Run a skill on the real engine with fixture or generated responses; exit 1 when a
    run ends in an error."""
    from skillkit_core.simulate.commands import simulate_command

    _emit(
        lambda: simulate_command(
            entry,
            params=params,
            host=host,
            tools=tools,
            subagent=subagent,
            responses=responses,
            path=path,
            choose=choose or (),
            seed=seed,
            all_paths=all_paths,
            max_paths=max_paths,
            run_actions=run_actions,
            output_format=output_format,
        ),
        command="simulate",
        entry=entry,
        whole=False,  # exploring paths, or actions run for real, may take their time
    )


@app.command()
def graph(
    entry: _Entry,
    output_format: Annotated[
        str, typer.Option("--format", help="mermaid, dot, svg or png (svg/png need Graphviz).")
    ] = "mermaid",
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Write to this file, not stdout.")
    ] = None,
) -> None:
    """Draw the workflow: steps, branch conditions, loop guards, sub-skills, topics."""
    from skillkit_core.simulate.commands import graph_command, written_to

    _emit(
        lambda: written_to(graph_command(entry, output_format=output_format), output, entry),
        command="graph",
        entry=entry,
    )


@app.command(
    "mcp-verify",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def mcp_verify(
    ctx: typer.Context,
    output_format: Annotated[
        str, typer.Option("--format", help="text or json.", show_default=True)
    ] = "text",
    no_lint: Annotated[bool, typer.Option("--no-lint", help="Skip linting the skills.")] = False,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds the server may take to answer a request.")
    ] = 30.0,
) -> None:
    """Check an MCP server's skills as SEP-2640 tells hosts to: COMMAND… after --.

    Starts the server on stdio, lists every skills/list page, reads every file, verifies
    digests and frontmatter, compares skills/get, and lints each skill. Exit 1 when a host
    must not load something.
    """
    import asyncio

    from skillkit_core.runtime.verify import check_server, report_json, report_text

    command = list(ctx.args)
    if not command or output_format not in ("text", "json") or not timeout > 0:
        typer.echo(
            "usage: skillkit mcp-verify [--format text|json] [--no-lint] [--timeout SECONDS] "
            "-- COMMAND [ARGS…]",
            err=True,
        )
        raise typer.Exit(2)
    try:
        result = asyncio.run(check_server(command, lint=not no_lint, timeout=timeout))
    except Exception as error:  # a server that cannot be started or talked to at all
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]  # the task group's one failure says what happened
        typer.echo(
            f"error[mcp]: cannot check {command[0]}: {type(error).__name__}: {error}", err=True
        )
        raise typer.Exit(2) from None
    typer.echo(report_json(result) if output_format == "json" else report_text(result))
    raise typer.Exit(0 if result.ok else 1)


@app.command()
def lsp() -> None:
    """Start the language server on stdio (what editors run; same as python -m skill_lsp)."""
    from skill_lsp.server import main as serve_lsp

    serve_lsp()


@app.command()
def build(
    entry: Annotated[str, typer.Argument(metavar="ENTRY", help="path/to/skill.py[:attr]")],
    out: Annotated[
        str, typer.Option("--out", "-o", help="Output folder; name it after the skill.")
    ],
    mode: Annotated[
        str, typer.Option(help="pyz (one file, any Python >= 3.11) or binary (PyInstaller).")
    ] = "pyz",
    protocol: Annotated[
        str, typer.Option(help="session or stateless: how SKILL.md tells agents to call it.")
    ] = "session",
    targets: Annotated[
        str | None,
        typer.Option(help="Platforms, comma-separated (default linux-x64,darwin-arm64)."),
    ] = None,
    single: Annotated[
        bool, typer.Option("--single", help="This machine and this Python only (dev builds).")
    ] = False,
    python: Annotated[
        str | None, typer.Option(help="CPython versions for native code (default 3.11-3.14).")
    ] = None,
) -> None:
    """Build a distributable Agent Skills folder: SKILL.md, scripts/run, bin/, references/."""
    from pathlib import Path

    from rich.console import Console

    from skillkit_core.build.isolated import build_isolated
    from skillkit_core.build.pipeline import BuildOptions
    from skillkit_core.build.report import StepProgress, print_summary
    from skillkit_core.errors import SkillkitError

    _refuse_empty([entry], "ENTRY")
    _refuse_empty([out], "--out")
    console = Console(highlight=False, stderr=True)
    options = BuildOptions(
        entry,
        Path(out),
        mode=mode,
        protocol=protocol,
        targets=(targets,) if targets else None,
        single=single,
        pythons=(python,) if python else None,
    )
    _stop_cleanly_on_termination()
    try:
        with StepProgress(console) as progress:
            result = build_isolated(options, progress)
    except SkillkitError as error:
        _say_error(error)
        raise typer.Exit(1) from None
    print_summary(result, Console(highlight=False))


def _stop_cleanly_on_termination() -> None:
    """SIGTERM and SIGHUP end the command as ^C does, through its clean-up: a build
    stopped by ``kill`` left its scratch folder beside the output, which the next
    ``skillkit check`` of that folder linted as a skill."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stop)


def _one_line_summaries() -> None:
    """Give each command the first paragraph of its docstring as one line for the command
    list: typer (0.29, rich markup) keeps the docstring's line breaks there, so a summary
    wrapped at 100 columns in the source was broken in the middle on every terminal."""
    for info in app.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if info.short_help is None and doc:
            info.short_help = " ".join(doc.split("\n\n")[0].split())


def _flags_without_a_type() -> None:
    """Show no type beside a flag in help: typer (0.29) shows ``--strict <bool>``, which
    reads as an option that takes a value (``--strict true`` then checks a path 'true')."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_one_line_summaries()
_flags_without_a_type()


if __name__ == "__main__":
    from skillkit_core.entry import main

    main()

"""The ``skillkit`` command. Thin: each command parses options, calls one core function,
and hands the result to a formatter."""

from __future__ import annotations

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


def main() -> None:
    """Console-script entry point."""
    app()

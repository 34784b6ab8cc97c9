"""How ``skillkit build`` shows itself in a terminal: live step progress and a summary.

Presentation only (rich); the pipeline reports through a plain callback and knows nothing
of this module.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any

from skillkit_core.build.pipeline import BuildResult


class StepProgress:
    """A ``progress(kind, text)`` callback that shows a spinner for the running step and
    a ticked line, with its duration, for each finished one."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self._status: Any = None
        self._step: str | None = None
        self._started = 0.0

    def __enter__(self) -> StepProgress:
        self._status = self.console.status("Starting", spinner="dots")
        self._status.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._finish(ok=kind is None)
        if self._status is not None:
            self._status.__exit__(kind, error, trace)

    def __call__(self, kind: str, text: str) -> None:
        if kind == "step":
            self._finish(ok=True)
            self._step, self._started = text, time.perf_counter()
            self._show(text)
        elif kind == "detail" and self._step is not None:
            self._show(f"{self._step}: {text}")

    def _show(self, text: str) -> None:
        if self._status is not None:
            self._status.update(text)

    def _finish(self, *, ok: bool) -> None:
        if self._step is None:
            return
        seconds = time.perf_counter() - self._started
        mark = "[green]✓[/]" if ok else "[red]✗[/]"
        self.console.print(f"{mark} {self._step} [dim]({seconds:.1f} s)[/]")
        self._step = None


def print_summary(result: BuildResult, console: Any) -> None:
    """Files written with their sizes, platforms, time, then every warning."""
    from rich.markup import escape
    from rich.table import Table

    # Paths and messages are never folded by rich (a narrow table's title broke the path
    # mid-word): the terminal wraps them, and a copied path stays whole.
    console.print(f"Built {result.skill} → {result.out_dir}", markup=False, soft_wrap=True)
    table = Table()
    table.add_column("File")
    table.add_column("Size", justify="right")
    for name, size in summary_rows(result.files):
        table.add_row(name, human_size(size))
    table.add_row("[bold]total[/]", f"[bold]{human_size(sum(s for _, s in result.files))}[/]")
    console.print(table)
    if result.native:
        shown = ", ".join(sorted(result.native))
        console.print(f"Native code for: {shown}")
    targets = ", ".join(result.targets)
    console.print(f"Mode {result.mode}, targets {targets}; {result.seconds:.1f} s")
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)


def summary_rows(files: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Files with their sizes; a binary build's program folder (hundreds of files)
    becomes one ``bin/<name>-<os>-<arch>/ (N files)`` row."""
    rows: dict[str, tuple[int, int]] = {}
    for name, size in files:
        parts = name.split("/")
        key = f"{parts[0]}/{parts[1]}/" if parts[0] == "bin" and len(parts) > 2 else name
        count, total = rows.get(key, (0, 0))
        rows[key] = (count + 1, total + size)
    return [
        (f"{key} ({count} files)" if key.endswith("/") else key, total)
        for key, (count, total) in rows.items()
    ]


def human_size(size: int) -> str:
    """``1536`` → ``1.5 KB``."""
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024 or unit == "MB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover - loop always returns

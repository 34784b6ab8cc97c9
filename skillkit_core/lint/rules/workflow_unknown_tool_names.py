"""unknown-tool-names: tool guards name tools some known host actually has (a name in the
host inventory, current or older: an agent on an older host version reports the older
name)."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.hosts import KNOWN_TOOL_NAMES
from skillkit_core.lint.diagnostic import Fix, LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, replacement_fix
from skillkit_core.source.diagnostics import closest_name


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    for guard in ctx.tool_guards():
        if guard.tool is None or guard.tool in KNOWN_TOOL_NAMES:
            continue
        steps = [name for name, _ in ctx.owned(guard.owners)]
        hint = closest_name(guard.tool, KNOWN_TOOL_NAMES)
        message = f"'{guard.tool}' is not a tool of any known host, so this check is never true" + (
            f"; did you mean '{hint}'?" if hint else ""
        )
        yield ctx.diagnostic(RULE, message, step=steps[0] if steps else None, range=guard.inner)


def _fix(ctx: WorkflowContext, diagnostic: LintDiagnostic) -> Fix | None:
    if diagnostic.range is None:
        return None
    name = ctx.text_at(diagnostic.range)
    hint = closest_name(name, KNOWN_TOOL_NAMES) if name else None
    if hint is None or hint == name:
        return None
    return replacement_fix(f"Change '{name}' to '{hint}'", diagnostic.range, hint)


RULE = Rule(
    id="unknown-tool-names",
    severity="warning",
    summary="A tools_available check names a tool no known host has.",
    rationale=(
        "Guards such as 'X' in ctx.host.tools_available select host-specific prose. A name "
        "that no known host (Claude Code, Codex, OpenCode, Gemini CLI, Cline, Roo Code, ...) "
        "reports is usually a typo or a wrong case, and the guarded branch never runs. The "
        "known names are the ones read in each host's source or documentation (see the "
        "hosts pages)."
    ),
    bad='if "AskUserQuestions" in ctx.host.tools_available: ...',
    good='if "AskUserQuestion" in ctx.host.tools_available: ...',
    check=_check,
    target="workflow",
    fix=_fix,
)

"""no-host-tool-names: prompts say what to do; the preamble says which tool does it.

The names are the host inventory's (``skillkit_core/hosts_data.py``): every model-facing
name read in a host's source or documentation, current or older.

What counts as naming a tool, so that ordinary prose and code never trip the rule (the
TypeScript SDK's version fires on ``act.ask_user(question=...)`` and ``act.plan(...)``,
because it searches the whole function text for words such as "question" and "plan"):

- only string literals are read, never identifiers, keyword names or attributes;
- a compound tool name (``AskUserQuestion``, ``apply_patch``, ``write-todos``) counts
  wherever it stands as a whole word, except as an XML tag name (``<ask-user>``);
- a tool name that is also an everyday word (``Read``, ``Bash``, ``plan``, ``question``)
  counts only where the text treats it as a tool: in backticks or followed by "tool";
- a mention inside code guarded by ``"X" in ctx.host.tools_available`` (an if-body, the
  true branch of a conditional expression, the rest of an ``and``, or the code after an
  ``if "X" not in ...: return``) is allowed for that tool X.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from skillkit_core.hosts import KNOWN_TOOL_NAMES, hosts_with_tool
from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.python_source import CallableSource, code_names
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import (
    WorkflowContext,
    prompt_texts,
)

_COMPOUND = re.compile(r"[_-]|[a-z][A-Z]")
_GUARD_ATTRIBUTE = "tools_available"


@dataclass(frozen=True)
class Mention:
    """A tool name found in a text, at ``start``..``end``."""

    tool: str
    start: int
    end: int


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    # Longest first; by name among equals, so that the pattern's text is the same in
    # every process (a set's order is not), which the pattern cache needs to find it.
    names = sorted(KNOWN_TOOL_NAMES, key=lambda name: (-len(name), name))
    compound = "|".join(re.escape(n) for n in names if _COMPOUND.search(n))
    plain = "|".join(re.escape(n) for n in names if not _COMPOUND.search(n))
    return (
        re.compile(rf"(?<![\w<>/-])({compound})(?![\w-])"),
        re.compile(rf"`({plain})`|(?<![\w-])({plain})(?=\s+tools?\b)"),
    )


def tool_mentions(text: str) -> list[Mention]:
    """Every place ``text`` names a known host tool (see the module docstring)."""
    compound, plain = _patterns()
    found = [Mention(m.group(1), m.start(1), m.end(1)) for m in compound.finditer(text)]
    for match in plain.finditer(text):
        group = 1 if match.group(1) is not None else 2
        found.append(Mention(match.group(group), match.start(group), match.end(group)))
    found.sort(key=lambda mention: mention.start)
    return found


def _hosts_of(tool: str) -> str:
    names = [
        f"{host.name}'s older name for {host.renamed[tool]}" if tool in host.renamed else host.name
        for host in hosts_with_tool(tool)
    ]
    return ", ".join(names[:3]) + (" and others" if len(names) > 3 else "")


def _advice(tool: str) -> str:
    from skillkit_core.primitives.registry import PRIMITIVES

    spec = next((spec for spec in PRIMITIVES if tool in spec.tools), None)
    if spec is not None:
        return (
            f"Use act.{spec.kind}(...) instead: the preamble maps <{spec.tag}> to each host's tool"
        )
    return (
        "Describe the work instead, or guard the mention with "
        f'`if "{tool}" in ctx.host.tools_available:`'
    )


def _message(step: str, tool: str) -> str:
    return (
        f"step '{step}': the prompt names the host tool '{tool}' ({_hosts_of(tool)}); "
        f"other hosts name their tools differently. {_advice(tool)}"
    )


# ---------------------------------------------------------------- the check


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    for step in ctx.steps.values():
        if step.prompt is None:
            continue
        if callable(step.prompt):
            yield from _callable_prompt(ctx, step.name, step.prompt)
        else:
            yield from _static_prompt(ctx, step.name, step.prompt)


def _prompt_range(ctx: WorkflowContext, step: str) -> SourceRange | None:
    argument = ctx.step_argument(step, "prompt")
    return argument.value_range if argument is not None else ctx.step_range(step)


def _static_prompt(ctx: WorkflowContext, step: str, prompt: Any) -> Iterator[LintDiagnostic]:
    seen: set[str] = set()
    within = _prompt_range(ctx, step)
    for text in prompt_texts(prompt):
        for mention in tool_mentions(text):
            if mention.tool in seen:
                continue
            seen.add(mention.tool)
            where = ctx.find_text(mention.tool, within) or within
            yield ctx.diagnostic(RULE, _message(step, mention.tool), step=step, range=where)


def _callable_prompt(ctx: WorkflowContext, step: str, fn: Any) -> Iterator[LintDiagnostic]:
    source = ctx.callable_source(fn)
    if source is None:
        yield from _compiled_prompt(ctx, step, fn)
        return
    seen: set[str] = set()
    for literal, guarded in _literals(source.node):
        if not isinstance(literal.value, str):
            continue
        for mention in tool_mentions(literal.value):
            if mention.tool in guarded or mention.tool in seen:
                continue
            seen.add(mention.tool)
            where = _within_literal(ctx, source, literal, mention.tool)
            yield ctx.diagnostic(
                RULE, _message(step, mention.tool), step=step, range=where, file=source.file
            )


def _compiled_prompt(ctx: WorkflowContext, step: str, fn: Any) -> Iterator[LintDiagnostic]:
    """Without the source: read the string constants of the compiled code. A constant
    that is exactly a tool name in code that consults tools_available is taken for the
    guard, and mentions of that tool are allowed."""
    from skillkit_core.engine.graph import callable_strings

    strings = callable_strings(fn)
    guarded = set()
    if _GUARD_ATTRIBUTE in code_names(fn):
        guarded = {s for s in strings if s in KNOWN_TOOL_NAMES}
    seen: set[str] = set()
    for text in sorted(strings):
        if text in guarded:
            continue
        for mention in tool_mentions(text):
            if mention.tool not in guarded and mention.tool not in seen:
                seen.add(mention.tool)
                yield ctx.diagnostic(
                    RULE, _message(step, mention.tool), step=step, range=_prompt_range(ctx, step)
                )


def _within_literal(
    ctx: WorkflowContext, source: CallableSource, literal: ast.AST, tool: str
) -> SourceRange | None:
    whole = ctx.files.ast_range(source.file, literal)
    if whole is None:
        return None
    text = ctx.files.text_at(source.file, whole)
    offset = text.find(tool) if text is not None else -1
    if offset < 0:
        return whole
    before = text[:offset]  # type: ignore[index]
    line = whole.line + before.count("\n")
    column = (whole.column + offset) if "\n" not in before else len(before.rsplit("\n", 1)[1])
    return SourceRange(line, column, line, column + len(tool))


# ---------------------------------------------------------------- guarded literals


def _literals(node: ast.AST) -> Iterator[tuple[ast.Constant, frozenset[str]]]:
    """Each string literal in ``node`` with the tools whose guard encloses it
    (docstrings and the guards' own tool names are skipped)."""
    yield from _visit(node, frozenset())


def _visit(node: ast.AST, guarded: frozenset[str]) -> Iterator[tuple[ast.Constant, frozenset[str]]]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        for decorator in node.decorator_list:
            yield from _visit(decorator, guarded)
        yield from _block(_without_docstring(node.body), guarded)
    elif isinstance(node, ast.Lambda):
        yield from _visit(node.body, guarded)
    elif isinstance(node, ast.If | ast.While):
        yield from _visit(node.test, guarded)
        yield from _block(node.body, guarded | _guard_tools(node.test))
        yield from _block(node.orelse, guarded)
    elif isinstance(node, ast.IfExp):
        yield from _visit(node.test, guarded)
        yield from _visit(node.body, guarded | _guard_tools(node.test))
        yield from _visit(node.orelse, guarded)
    elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        so_far = guarded
        for value in node.values:
            yield from _visit(value, so_far)
            so_far = so_far | _guard_tools(value)
    elif _is_guard(node):
        return  # the guard's own literal names the tool on purpose
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            yield node, guarded
    else:
        for child in ast.iter_child_nodes(node):
            yield from _visit(child, guarded)


def _block(statements: list[ast.stmt], guarded: frozenset[str]) -> Iterator[Any]:
    """Statements in order; after ``if "X" not in tools: return/raise`` X is guarded."""
    for statement in statements:
        yield from _visit(statement, guarded)
        if isinstance(statement, ast.If) and _leaves(statement.body):
            guarded = guarded | _absent_tools(statement.test)


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return body[1:]
    return body


def _leaves(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return | ast.Raise | ast.Continue | ast.Break)


def _is_tools_available(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == _GUARD_ATTRIBUTE) or (
        isinstance(node, ast.Name) and node.id == _GUARD_ATTRIBUTE
    )


def _comparison(node: ast.AST) -> tuple[str, type] | None:
    """``(tool, In or NotIn)`` for ``"X" in / not in ....tools_available``."""
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and _is_tools_available(node.comparators[0])
    ):
        return node.left.value, type(node.ops[0])
    return None


def _method_guard(node: ast.AST) -> str | None:
    """The tool of ``tools_available.count("X")`` / ``.index("X")``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("count", "index")
        and _is_tools_available(node.func.value)
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _is_guard(node: ast.AST) -> bool:
    return _comparison(node) is not None or _method_guard(node) is not None


def _guard_tools(test: ast.AST) -> frozenset[str]:
    """Tools that are surely available when ``test`` is true."""
    comparison = _comparison(test)
    if comparison is not None:
        return frozenset({comparison[0]}) if comparison[1] is ast.In else frozenset()
    tool = _method_guard(test)
    if tool is not None:
        return frozenset({tool})
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return frozenset().union(*(_guard_tools(value) for value in test.values))
    return frozenset()


def _absent_tools(test: ast.AST) -> frozenset[str]:
    """Tools that are surely available when ``test`` is false."""
    comparison = _comparison(test)
    if comparison is not None and comparison[1] is ast.NotIn:
        return frozenset({comparison[0]})
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _guard_tools(test.operand)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return frozenset().union(*(_absent_tools(value) for value in test.values))
    return frozenset()


RULE = Rule(
    id="no-host-tool-names",
    severity="error",
    summary="A prompt names a host's tool (AskUserQuestion, apply_patch, TodoWrite, ...).",
    rationale=(
        "A skill runs on many hosts and each names its tools differently. Prompts describe "
        "the work and use act.* primitives; the preamble tells each agent which of its "
        "tools serves which tag. Where a step truly needs one host's tool, guard the "
        'mention with `if "Tool" in ctx.host.tools_available:`. Only string literals and '
        "prompt text are read, so act.ask_user(question=...) or act.plan(...) never count."
    ),
    bad='.step("pick", prompt="Use AskUserQuestion to ask which region to deploy to.", ...)',
    good=(
        '.step("pick", prompt=act.ask_user(question="Which region?", options=[...]), ...)\n'
        "# or, when only one host's tool will do:\n"
        '.step("pick", prompt=lambda ctx: "Use TodoWrite to track the work."\n'
        '      if "TodoWrite" in ctx.host.tools_available else "Track the work in a list.", ...)'
    ),
    check=_check,
    target="workflow",
)

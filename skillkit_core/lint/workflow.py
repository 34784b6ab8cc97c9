"""The workflow linter: what a workflow rule sees, and the driver that runs the rules.

A rule with ``target="workflow"`` receives a :class:`WorkflowContext`: the built
definition (possibly from a lenient build, with ``problems``), its graph, the project
folder, and — when the file that defines the skill can be read — that file's syntax
index (exact ranges of steps, step-naming strings, ``act.*`` calls, tool guards) and its
Python syntax tree (string literals inside callables). :func:`lint_definition` runs every
enabled rule, drops findings hidden by ``# skillkit: ignore[rule]`` comments, and lints a
composite's sub-skills with ``[subskill:<name>]`` prefixes.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.lint.python_source import (
    CallableSource,
    SourceFiles,
    code_of,
    file_key,
    string_constants,
)

if TYPE_CHECKING:
    from skillkit_core.definitions import AnyDefinition, SkillDefinition, StepDefinition
    from skillkit_core.engine.graph import SkillGraph
    from skillkit_core.lint.diagnostic import Severity
    from skillkit_core.lint.rule import Rule
    from skillkit_core.source.model import (
        ActCall,
        Argument,
        ChainInfo,
        Owner,
        SourceIndex,
        StepInfo,
        StepRef,
        Target,
        ToolGuard,
    )


# ---------------------------------------------------------------- reports


@dataclass(frozen=True)
class WorkflowReport:
    """What linting one definition found: kept diagnostics and how many were hidden."""

    diagnostics: list[LintDiagnostic]
    suppressed: int = 0


# ---------------------------------------------------------------- the context


class WorkflowContext:
    """Everything a workflow rule reads about one definition.

    ``source`` and ``chain`` are None when the defining file cannot be read or the skill
    cannot be matched to a ``skill(...)`` chain in it; rules then report without ranges.
    """

    def __init__(
        self,
        definition: AnyDefinition,
        root_dir: str | Path,
        files: SourceFiles,
        *,
        parent: WorkflowContext | None = None,
    ) -> None:
        self.definition = definition
        self.root_dir = Path(root_dir)
        self.files = files
        self.parent = parent
        self.file: str | None = definition.source_file
        self.source: SourceIndex | None = files.index(self.file)
        self.chain: ChainInfo | None = _find_chain(self.source, definition)

    # -- the definition --------------------------------------------------------------

    @property
    def skill(self) -> SkillDefinition | None:
        """The workflow definition, or None for a reference skill."""
        return self.definition if self.definition.kind == "skill" else None  # type: ignore[return-value]

    @property
    def steps(self) -> Mapping[str, StepDefinition]:
        """The steps (empty for a reference skill)."""
        return self.skill.steps if self.skill is not None else {}

    @cached_property
    def graph(self) -> SkillGraph:
        """The step graph (only for workflow skills)."""
        from skillkit_core.engine.graph_source import analyze_source

        assert self.skill is not None, "a reference skill has no step graph"
        return analyze_source(self._sharpened())

    def _sharpened(self) -> SkillDefinition:
        """The definition with ``next`` callables' targets read from the source.

        The graph takes every string constant of a ``next`` callable that names a step
        for a possible target, so ``lambda ctx: "a" if ctx.store.steps["b"].ok else "c"``
        seems to lead to ``b``. Where the source shows that a name is only looked up in
        the store (and never returned), that edge is dropped.
        """
        from skillkit_core.definitions import Branch
        from skillkit_core.engine.graph import callable_strings

        skill = self.skill
        assert skill is not None
        if self.source is None or self.chain is None:
            return skill
        lookups: dict[str, set[str]] = {}
        returns: dict[str, set[str]] = {}
        for ref in self.refs(("store-subscript", "store-get", "store-all", "store-ran")):
            for step, slot in self.owned(ref.owners):
                if slot == "next":
                    lookups.setdefault(step, set()).add(ref.name)
        for ref in self.refs(("next-return",)):
            for step, _ in self.owned(ref.owners):
                returns.setdefault(step, set()).add(ref.name)
        changed: dict[str, StepDefinition] = {}
        for name, step in skill.steps.items():
            if name not in lookups or not callable(step.next) or step.is_terminal:
                continue
            only_read = lookups[name] - returns.get(name, set())
            targets = {
                s
                for s in callable_strings(step.next)
                if s in skill.steps or s == "self" or s.startswith(("subskill:", "topic:"))
            }
            kept = sorted(targets - only_read)
            if len(kept) == len(targets):
                continue
            branches = tuple(Branch(target) for target in kept)
            changed[name] = replace(step, next=branches or _unreadable_next)
        if not changed:
            return skill
        from types import MappingProxyType

        return replace(skill, steps=MappingProxyType({**skill.steps, **changed}))

    @property
    def owns_references(self) -> bool:
        """False for a sub-skill that shares its composite's ``references/`` folder (the
        composite checks those files, with every sub-skill's mentions in view)."""
        if self.parent is None:
            return True
        return file_key(str(self.root_dir)) != file_key(str(self.parent.root_dir))

    @property
    def references_dir(self) -> Path:
        return self.root_dir / "references"

    def sub_contexts(self) -> list[tuple[str, WorkflowContext]]:
        """One context per registered sub-skill (first registration of each name)."""
        skill = self.skill
        if skill is None or self.parent is not None:
            return []
        found: dict[str, WorkflowContext] = {}
        for sub in skill.subskills:
            if sub.name in found:
                continue
            source_file = sub.definition.source_file
            root = Path(source_file).parent if source_file else self.root_dir
            found[sub.name] = WorkflowContext(sub.definition, root, self.files, parent=self)
        return list(found.items())

    # -- positions -------------------------------------------------------------------

    @cached_property
    def chain_ids(self) -> frozenset[int]:
        """This skill's chain and the module chains of this file it registers."""
        if self.chain is None:
            return frozenset()
        ids = {self.chain.index}
        ids.update(r.module_chain for r in self.chain.registrations if r.module_chain is not None)
        return frozenset(ids)

    def step_info(self, name: str) -> StepInfo | None:
        """The first ``.step(name, ...)`` of this skill in the source."""
        if self.source is None or self.chain is None:
            return None
        order = [self.chain.index, *sorted(self.chain_ids - {self.chain.index})]
        for chain in order:
            for index in self.source.chains[chain].steps:
                info = self.source.steps[index]
                if info.name == name:
                    return info
        return None

    def step_infos(self, name: str) -> list[StepInfo]:
        """Every ``.step(name, ...)`` of this skill (duplicates included), in order."""
        if self.source is None or self.chain is None:
            return []
        return [
            self.source.steps[i]
            for chain in sorted(self.chain_ids)
            for i in self.source.chains[chain].steps
            if self.source.steps[i].name == name
        ]

    @property
    def chain_range(self) -> SourceRange | None:
        """The ``skill(...)`` call, where skill-wide findings are shown."""
        if self.chain is None:
            return None
        name = self.chain.name
        return name.range if name is not None else self.chain.range

    def step_range(self, name: str | None) -> SourceRange | None:
        """The step's name string (else its call, else the skill's call)."""
        info = self.step_info(name) if name is not None else None
        if info is None:
            return self.chain_range
        return info.name_string.range if info.name_string is not None else info.method_range

    def step_argument(self, name: str, argument: str) -> Argument | None:
        """The ``argument=`` of a step's call."""
        info = self.step_info(name)
        if info is None:
            return None
        return next((a for a in info.arguments if a.name == argument), None)

    def chain_argument(self, argument: str) -> Argument | None:
        """The ``argument=`` of the ``skill(...)``/``reference(...)`` call."""
        if self.chain is None:
            return None
        return next((a for a in self.chain.arguments if a.name == argument), None)

    def step_value_range(self, name: str, argument: str) -> SourceRange | None:
        """Where the value of a step's ``argument=`` is written (None when unknown)."""
        found = self.step_argument(name, argument)
        return found.value_range if found is not None else None

    def chain_value_range(self, argument: str) -> SourceRange | None:
        """Where the value of the skill call's ``argument=`` is written (None when unknown)."""
        found = self.chain_argument(argument)
        return found.value_range if found is not None else None

    def owned(self, owners: Iterable[Owner]) -> list[tuple[str, str]]:
        """``(step name, slot)`` for each owner that is a step of this skill."""
        found = []
        if self.source is None:
            return found
        for owner in owners:
            if owner.chain in self.chain_ids and owner.step is not None:
                name = self.source.steps[owner.step].name
                if name is not None and name in self.steps:
                    found.append((name, owner.slot))
        return found

    def belongs(self, chain: int | None, owners: Iterable[Owner]) -> bool:
        """Whether something written at ``chain`` with ``owners`` is part of this skill."""
        if chain in self.chain_ids:
            return True
        return any(owner.chain in self.chain_ids for owner in owners)

    def refs(self, roles: Iterable[str]) -> list[StepRef]:
        """Step-naming strings of this skill with one of ``roles``."""
        if self.source is None or self.chain is None:
            return []
        wanted = set(roles)
        return [r for r in self.source.refs if r.role in wanted and self.belongs(r.chain, r.owners)]

    def tool_guards(self) -> list[ToolGuard]:
        """``"X" in ctx.host.tools_available`` checks that this skill's steps run."""
        if self.source is None or self.chain is None:
            return []
        lone = sum(1 for c in self.source.chains if c.kind == "skill") == 1
        return [
            g
            for g in self.source.tool_guards
            if self.belongs(None, g.owners) or (lone and not g.owners)
        ]

    def act_calls(self, step: str) -> list[ActCall]:
        """``act.*(...)`` calls written in the step's prompt (directly or in a helper)."""
        if self.source is None:
            return []
        return [
            call
            for call in self.source.act_calls
            if any(name == step and slot == "prompt" for name, slot in self.owned(call.owners))
        ]

    def text_at(self, where: SourceRange, file: str | None = None) -> str | None:
        """The source text a range covers."""
        return self.files.text_at(file or self.file, where)

    def find_text(self, needle: str, within: SourceRange | None) -> SourceRange | None:
        """The first occurrence of ``needle`` inside ``within`` in this skill's file."""
        if within is None or not needle:
            return None
        lines = self.files.lines(self.file)
        for line in range(within.line, min(within.end_line, len(lines) - 1) + 1):
            text = lines[line]
            start = within.column if line == within.line else 0
            end = within.end_column if line == within.end_line else len(text)
            column = text.find(needle, start, end)
            if column >= 0:
                return SourceRange(line, column, line, column + len(needle))
        return None

    # -- callables -------------------------------------------------------------------

    def callable_source(self, fn: Any) -> CallableSource | None:
        """The syntax-tree node of a lambda or ``def`` (None when it cannot be found)."""
        code = code_of(fn)
        if code is None or not code.co_filename or code.co_filename.startswith("<"):
            return None
        file = code.co_filename
        if self.file is not None and file_key(file) == file_key(self.file):
            file = self.file
        candidates = self.files.functions_at(file, code.co_firstlineno)
        if code.co_name == "<lambda>":
            candidates = [n for n in candidates if isinstance(n, ast.Lambda)]
        else:
            candidates = [
                n
                for n in candidates
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == code.co_name
            ]
        if len(candidates) > 1:
            from skillkit_core.engine.graph import callable_strings

            strings = callable_strings(fn)
            matching = [n for n in candidates if string_constants(n) == strings]
            candidates = matching or candidates
        return CallableSource(file, candidates[0]) if candidates else None

    # -- reporting -------------------------------------------------------------------

    def diagnostic(
        self,
        rule: Rule,
        message: str,
        *,
        step: str | None = None,
        range: SourceRange | None = None,
        file: str | None = None,
        fix: Fix | None = None,
        severity: Severity | None = None,
    ) -> LintDiagnostic:
        """A diagnostic of ``rule`` placed at ``range`` (default: the step, else the skill)."""
        if range is None and file is None:
            range = self.step_range(step)
        return rule.diagnostic(
            message,
            range=range,
            file=file or self.file,
            step=step,
            fix=fix,
            severity=severity,
        )


def _unreadable_next(ctx: Any) -> Any:
    """Stands in for a ``next`` callable whose targets the source does not show."""
    return ctx


def _find_chain(source: SourceIndex | None, definition: AnyDefinition) -> ChainInfo | None:
    if source is None:
        return None
    chains = [c for c in source.chains if c.kind == definition.kind]
    named = [c for c in chains if c.name is not None and c.name.value == definition.name]
    if named:
        built = [c for c in named if c.built]
        return (built or named)[0]
    unnamed = [c for c in chains if c.name is None or c.name.value is None]
    if len(chains) == 1 or len(unnamed) == 1:
        return (unnamed or chains)[0]
    return None


def unknown_target(ctx: WorkflowContext, target: str) -> UnknownTarget | None:
    """What a transition target fails to name, when it names no step, registered
    sub-skill (``subskill:x``) or topic (``topic:x``); None when it names one."""
    from skillkit_core.definitions import SUBSKILL_PREFIX, TOPIC_PREFIX
    from skillkit_core.source.model import Target

    skill = ctx.skill
    assert skill is not None
    if target.startswith(SUBSKILL_PREFIX):
        name, names = target[len(SUBSKILL_PREFIX) :], [s.name for s in skill.subskills]
        return None if name in names else UnknownTarget(Target.SUBSKILL, name, names)
    if target.startswith(TOPIC_PREFIX):
        name, names = target[len(TOPIC_PREFIX) :], [t.name for t in skill.topics]
        return None if name in names else UnknownTarget(Target.TOPIC, name, names)
    return None if target in ctx.steps else UnknownTarget(Target.STEP, target, list(ctx.steps))


@dataclass(frozen=True)
class UnknownTarget:
    """A target that names nothing: the ``kind`` of thing it should name, its ``name``
    without a ``subskill:``/``topic:`` prefix, and the names it could have meant."""

    kind: Target
    name: str
    candidates: list[str]


# ---------------------------------------------------------------- fixes and hints


def replacement_fix(title: str, where: SourceRange, new_text: str) -> Fix:
    """A fix that replaces one range."""
    return Fix(title, (TextEdit(where, new_text),))


def add_arguments_fix(
    ctx: WorkflowContext, step: str, arguments: Sequence[str], title: str
) -> Fix | None:
    """A fix that appends keyword ``arguments`` (``"name=value"``) to a step's call,
    following the call's layout (one per line when the call spans several lines)."""
    info = ctx.step_info(step)
    if info is None or not info.arguments:
        return None
    last = info.arguments[-1].range
    at = SourceRange(last.end_line, last.end_column, last.end_line, last.end_column)
    if last.line == info.range.line:
        return Fix(title, (TextEdit(at, "".join(f", {a}" for a in arguments)),))
    line = ctx.files.lines(ctx.file)[last.line]
    indent = line[: len(line) - len(line.lstrip())]
    return Fix(title, (TextEdit(at, "".join(f",\n{indent}{a}" for a in arguments)),))


def broken_steps(ctx: WorkflowContext) -> set[str]:
    """Steps with a literal next/branch target that is no step (unknown-step reports
    them; graph rules treat them as leading anywhere, so one typo is reported once)."""
    from skillkit_core.engine.graph import literal_targets

    return {
        name
        for name, step in ctx.steps.items()
        if any(
            role != "on_max_visits"
            and target != "self"
            and ":" not in target
            and target not in ctx.steps
            for role, target in literal_targets(step)
        )
    }


def duplicate_registrations(
    ctx: WorkflowContext, kind: str, names: Sequence[str]
) -> Iterator[tuple[str, SourceRange | None]]:
    """``(name, where)`` for every registration (``kind``: subskill or topic) that
    repeats an earlier name, placed at the repeated ``.subskill``/``.topic`` name."""
    declared = []
    if ctx.chain is not None:
        declared = list(ctx.chain.subskills if kind == "subskill" else ctx.chain.topics)
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] < 2:
            continue
        matching = [d for d in declared if d.name == name]
        where = None
        if len(matching) >= seen[name]:
            declaration = matching[seen[name] - 1]
            string = declaration.name_string
            where = string.range if string is not None else declaration.range
        yield name, where


def string_literal(value: str) -> str:
    """``value`` as a Python string literal in double quotes."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


# ---------------------------------------------------------------- references


def reference_files(ctx: WorkflowContext) -> list[tuple[str, Path]]:
    """``(path relative to references/, path)`` of every file in the skill's
    ``references/`` folder, sorted (hidden files and folders skipped)."""
    root = ctx.references_dir
    if not ctx.owns_references or not root.is_dir():
        return []
    found = []
    for current, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = Path(current) / name
            found.append((path.relative_to(root).as_posix(), path))
    return found


WHOLE_FILE = SourceRange(0, 0, 0, 0)
"""The range of findings about a whole file (its start)."""


# ---------------------------------------------------------------- prompts


def prompt_texts(prompt: Any) -> list[str]:
    """The prose of a static prompt: strings, system text, primitive texts (not views,
    which are data shown verbatim; not callables, which are read from source)."""
    from skillkit_core.prompts.segments import ActSegment, SystemSegment

    if prompt is None or callable(prompt):
        return []
    if isinstance(prompt, str):
        return [prompt]
    if isinstance(prompt, SystemSegment):
        return [prompt.text]
    if isinstance(prompt, ActSegment):
        return list(_strings_in(prompt.primitive))
    if isinstance(prompt, list | tuple):
        return [text for piece in prompt for text in prompt_texts(piece)]
    content = getattr(prompt, "content", None)
    return [content] if isinstance(content, str) else []


def _strings_in(value: Any, depth: int = 0) -> Iterator[str]:
    from dataclasses import fields, is_dataclass

    if depth > 6:
        return
    if isinstance(value, str):
        yield value
    elif is_dataclass(value) and not isinstance(value, type):
        for item in fields(value):
            yield from _strings_in(getattr(value, item.name), depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings_in(item, depth + 1)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings_in(item, depth + 1)


def step_callables(step: StepDefinition) -> list[tuple[str, Callable[..., Any]]]:
    """``(slot, callable)`` for every callback of a step."""
    from skillkit_core.definitions import Terminal

    found: list[tuple[str, Callable[..., Any]]] = []
    if callable(step.prompt):
        found.append(("prompt", step.prompt))
    if callable(step.next) and not isinstance(step.next, Terminal):
        found.append(("next", step.next))
    if isinstance(step.next, tuple):
        found.extend(("next", b.when) for b in step.next if b.when is not None)
    if step.save is not None:
        found.append(("save", step.save))
    if step.action is not None:
        run = step.action.run
        found.append(("action", run.run if hasattr(run, "run") else run))
        if step.action.map_input is not None:
            found.append(("action", step.action.map_input))
    return found


# ---------------------------------------------------------------- the driver


def lint_definition(
    definition: AnyDefinition,
    root_dir: str | Path,
    *,
    source: SourceIndex | str | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    files: SourceFiles | None = None,
) -> WorkflowReport:
    """Run every enabled workflow rule on ``definition`` (and a composite's sub-skills)."""
    from skillkit_core.lint.config import LintConfig
    from skillkit_core.lint.registry import rules_for

    files = files or SourceFiles()
    if source is not None and definition.source_file is not None:
        _provide(files, definition.source_file, source)
    config = LintConfig(select=tuple(select or ()), ignore=tuple(ignore or ()))
    rules = [rule for rule in rules_for("workflow") if config.enabled(rule.id)]
    context = WorkflowContext(definition, root_dir, files)
    return _lint(context, rules)


def _provide(files: SourceFiles, file: str, source: SourceIndex | str) -> None:
    if isinstance(source, str):
        files.provide(file, source)
    else:
        files.provide(file, source.text, source)


def _lint(context: WorkflowContext, rules: Sequence[Rule]) -> WorkflowReport:
    found: list[LintDiagnostic] = []
    for rule in rules:
        found.extend(_run(rule, context))
    kept = [d for d in found if not _suppressed(context, d)]
    suppressed = len(found) - len(kept)
    for name, sub in context.sub_contexts():
        report = _lint(sub, rules)
        kept.extend(_prefixed(d, name) for d in report.diagnostics)
        suppressed += report.suppressed
    kept = list(dict.fromkeys(kept))
    kept.sort(key=_order)
    return WorkflowReport(kept, suppressed)


def _run(rule: Rule, context: WorkflowContext) -> list[LintDiagnostic]:
    # A rule must never take the whole check down: its crash becomes a finding that
    # names it, and every other rule still reports.
    try:
        return rule.run(context)
    except Exception as error:
        return [
            context.diagnostic(
                rule,
                f"internal error in rule {rule.id}: {type(error).__name__}: {error}",
                severity="error",
            )
        ]


def _suppressed(context: WorkflowContext, diagnostic: LintDiagnostic) -> bool:
    if diagnostic.file is None:
        return False
    markers = context.files.suppressions(diagnostic.file)
    line = diagnostic.range.line if diagnostic.range is not None else None
    if markers.suppresses(diagnostic.rule, line):
        return True
    if diagnostic.step is None or context.file is None:
        return False
    # A marker on the step's call (its first line or its name) covers the whole step.
    markers = context.files.suppressions(context.file)
    info = context.step_info(diagnostic.step)
    if info is None:
        return False
    lines = {info.range.line}
    if info.name_string is not None:
        lines.add(info.name_string.range.line)
    return any(markers.suppresses(diagnostic.rule, line) for line in lines)


def _prefixed(diagnostic: LintDiagnostic, subskill: str) -> LintDiagnostic:
    step = f"{subskill}/{diagnostic.step}" if diagnostic.step else None
    return diagnostic._replace(message=f"[subskill:{subskill}] {diagnostic.message}", step=step)


def _order(diagnostic: LintDiagnostic) -> tuple[Any, ...]:
    where = diagnostic.range
    position = (where.line, where.column) if where else (-1, -1)
    return (diagnostic.file or "", position, diagnostic.rule, diagnostic.message)

"""orphan-references: every file in references/ is used by some prompt or topic."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import (
    WHOLE_FILE,
    WorkflowContext,
    prompt_texts,
    reference_files,
    step_callables,
)

# refs.load( followed by anything but a plain string literal: the name is computed, so
# any file may be loaded and "unused" cannot be told.
_DYNAMIC_LOAD = re.compile(r"""refs\s*\.\s*load\s*\(\s*(?![rRuU]?["'])""")
_FSTRING_LOAD = re.compile(r"""refs\s*\.\s*load\s*\(\s*[fF][rR]?["'][^"']*\{""")


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    files = reference_files(ctx)
    if not files:
        return
    contexts = [ctx, *(sub for _, sub in ctx.sub_contexts())]
    # references/ belongs to the folder, not to one module: every Python module there
    # (other skills, sub-skills and topics kept in modules of their own) may load a file.
    modules = {*(c.file for c in contexts if c.file), *_folder_modules(ctx.root_dir)}
    sources = [ctx.files.text(module) for module in sorted(modules)]
    if any(text is not None and _loads_by_computed_name(text) for text in sources):
        return
    corpus = "\n".join([*_mentions(contexts), *(text for text in sources if text)])
    for relative, path in files:
        if re.search(rf"(?<![\w.\-]){re.escape(relative)}(?![\w\-])", corpus):
            continue
        # The same words from every skill module of the folder, so a check of the
        # folder reports the file once.
        yield RULE.diagnostic(
            f"references/{relative} is not mentioned by any prompt, topic or Python "
            "module of the skill's folder; load it from a step (ctx.refs.load(...)) or "
            "remove it",
            file=str(path),
            range=WHOLE_FILE,
        )


# Folders that hold no module of the skill itself.
_NOT_SKILL_CODE = frozenset({"references", "__pycache__", "node_modules", "venv"})
_MAX_MODULES = 500


def _folder_modules(root: Any) -> list[str]:
    """The Python files under the skill's folder (hidden and tool folders skipped), at
    most :data:`_MAX_MODULES` of them."""
    found: list[str] = []
    for current, folders, names in os.walk(root):
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and f not in _NOT_SKILL_CODE
        )
        found += (os.path.join(current, n) for n in sorted(names) if n.endswith(".py"))
        if len(found) >= _MAX_MODULES:
            return found[:_MAX_MODULES]
    return found


def _loads_by_computed_name(text: str) -> bool:
    return bool(_DYNAMIC_LOAD.search(text) or _FSTRING_LOAD.search(text))


def _mentions(contexts: list[WorkflowContext]) -> Iterator[str]:
    """Every string the skills' prompts, topics and callbacks hold."""
    from skillkit_core.engine.graph import callable_strings

    for ctx in contexts:
        definition: Any = ctx.definition
        meta = definition.meta
        for value in (getattr(definition, "system", None), meta.skill_md):
            yield from _texts(value, callable_strings)
        for topic in definition.topics:
            yield from _texts(topic.content, callable_strings)
        for step in ctx.steps.values():
            yield from prompt_texts(step.prompt)
            for _, fn in step_callables(step):
                yield from callable_strings(fn)


def _texts(value: Any, strings: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif callable(value):
        yield from strings(value)


RULE = Rule(
    id="orphan-references",
    severity="warning",
    summary="A file in references/ that no prompt, topic or module of the folder mentions.",
    rationale=(
        "Files in references/ ship with the skill. One that nothing loads or names is "
        "dead content (often left behind by a renamed topic) and misleads readers of the "
        "skill folder. Every Python module of the folder counts (sub-skills and topics "
        "often live in modules of their own). A folder whose code loads references by "
        "computed names is not checked."
    ),
    bad=(
        "references/auth.md, references/old-auth.md\n"
        'topic("auth", label="Auth", content=lambda ctx: ctx.refs.load("auth.md"))'
    ),
    good=(
        "references/auth.md\n"
        'topic("auth", label="Auth", content=lambda ctx: ctx.refs.load("auth.md"))'
    ),
    check=_check,
    target="workflow",
)

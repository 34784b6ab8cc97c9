"""orphan-references: every file in references/ is used by some prompt or topic."""

from __future__ import annotations

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
    sources = [ctx.files.text(c.file) for c in contexts]
    if any(text is not None and _loads_by_computed_name(text) for text in sources):
        return
    corpus = "\n".join([*_mentions(contexts), *(text for text in sources if text)])
    for relative, path in files:
        if re.search(rf"(?<![\w.\-]){re.escape(relative)}(?![\w\-])", corpus):
            continue
        yield RULE.diagnostic(
            f"references/{relative} is not mentioned by any prompt, topic or the skill's "
            "code; load it from a step (ctx.refs.load(...)) or remove it",
            file=str(path),
            range=WHOLE_FILE,
        )


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
    summary="A file in references/ that no prompt, topic or skill code mentions.",
    rationale=(
        "Files in references/ ship with the skill. One that nothing loads or names is "
        "dead content (often left behind by a renamed topic) and misleads readers of the "
        "skill folder. A skill that loads references by computed names is not checked."
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

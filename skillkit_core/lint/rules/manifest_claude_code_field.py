"""claude-code-field: Claude Code's extension keys have the types and values it accepts.

How Claude Code reads them is from its own code (2.1.332, the readers of a skill's
frontmatter in its bundled source, checked 2026-11-29): a switch takes a boolean, or a
string or number that reads as one (``yes``, ``on``, ``1``, ``"false"``, any case);
``effort`` a level in any case, or an integer; ``shell`` a value in any case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.parse import FieldSpan
from skillkit_core.manifest.spec import CONTEXT_VALUES, EFFORT_LEVELS, SHELL_VALUES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    # A validator returns a message when the value is wrong, else None.
    Validator = Callable[[Any, FieldSpan], str | None]


def _text(value: Any, span: FieldSpan) -> str | None:
    if span.kind == "scalar" and (isinstance(value, str) or span.scalar):
        return None
    return "must be a string"


def _text_or_list(value: Any, span: FieldSpan) -> str | None:
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return None
        return "must be a list of strings"
    if span.kind == "scalar" and span.scalar:
        return None
    return "must be a string or a list of strings"


def _boolean(value: Any, span: FieldSpan) -> str | None:
    from skillkit_core.manifest.claude_code_loader import switch_value

    if switch_value(value) is not None:
        return None
    written = repr(value) if isinstance(value, str) else (span.scalar or "that value")
    return f"must be true or false (yes/no, on/off and 1/0 work too), not {written}"


def _one_of(choices: tuple[str, ...], *, integer: bool = False) -> Validator:
    """A value among ``choices`` in any case (spaces around it ignored); with
    ``integer``, a whole number too."""

    def validate(value: Any, span: FieldSpan) -> str | None:
        if isinstance(value, str) and value.strip().lower() in choices:
            return None
        if integer and isinstance(value, int | str) and _is_integer(value):
            return None
        also = " or an integer" if integer else ""
        return f"must be {' or '.join(repr(c) for c in choices)}{also}"

    return validate


def _is_integer(value: int | str) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or value.strip().lstrip("+-").isdigit()


def _mapping(value: Any, span: FieldSpan) -> str | None:
    return None if isinstance(value, dict) else "must be a mapping of hook events"


def _non_empty_text(value: Any, span: FieldSpan) -> str | None:
    if isinstance(value, str) and value.strip():
        return None
    return "must be a model name such as sonnet, opus, haiku or inherit"


VALIDATORS: dict[str, Validator] = {
    "when_to_use": _text,
    "argument-hint": _text_or_list,
    "arguments": _text_or_list,
    "disable-model-invocation": _boolean,
    "user-invocable": _boolean,
    "allowed-tools": _text_or_list,
    "disallowed-tools": _text_or_list,
    "disallowedTools": _text_or_list,
    "model": _non_empty_text,
    "effort": _one_of(EFFORT_LEVELS, integer=True),
    "context": _one_of(CONTEXT_VALUES),
    "agent": _text,
    "hooks": _mapping,
    "paths": _text_or_list,
    "shell": _one_of(SHELL_VALUES),
}


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for key, validate in VALIDATORS.items():
        span = folder.span(key)
        if span is None or key not in folder.frontmatter:
            continue
        problem = validate(folder.frontmatter[key], span)
        if problem is not None:
            yield RULE.diagnostic(
                f"'{key}' {problem}",
                range=span.key_range if span.style == "empty" else span.value_range,
                file=folder.skill_md,
            )


RULE = Rule(
    id="claude-code-field",
    severity="error",
    summary="A Claude Code frontmatter key has a value Claude Code does not accept.",
    rationale=(
        "Claude Code reads context (only 'fork'), effort levels, boolean switches, paths "
        "and arguments with fixed types; other values are ignored or break the skill."
    ),
    bad="context: isolated\nuser-invocable: maybe\neffort: extreme",
    good="context: fork\nuser-invocable: false\neffort: high",
    check=_check,
    target="manifest",
)

"""``act.survey``: several multiple-choice questions asked together.

Hosts' question tools take at most four questions per call, so a longer survey renders
as several ``<survey>`` blocks of up to four questions each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from skillkit_core.hosts import tag_candidates
from skillkit_core.primitives.ask_user import Option, parse_options, render_option
from skillkit_core.primitives.base import (
    PrimitiveConfig,
    PrimitiveSpec,
    fail,
    fields_of,
    open_tag,
    require_bool,
    require_header,
    require_list,
    require_text,
)

WHERE = "act.survey"
QUESTIONS_PER_BLOCK = 4


@dataclass(frozen=True)
class SurveyQuestion:
    """One question of a survey, with 2–4 options like a structured ``ask_user``."""

    question: str
    options: tuple[Option, ...]
    header: str | None = None
    multi_select: bool = False


@dataclass(frozen=True)
class SurveyConfig(PrimitiveConfig):
    """A validated ``survey`` directive."""

    questions: tuple[SurveyQuestion, ...]
    kind: ClassVar[str] = "survey"


def _parse_question(where: str, item: Any) -> SurveyQuestion:
    raw = fields_of(
        where, item, SurveyQuestion, ("question", "options"), ("header", "multi_select")
    )
    multi = raw["multi_select"] if raw["multi_select"] is not None else False
    return SurveyQuestion(
        question=require_text(where, "question", raw["question"]),
        options=parse_options(where, raw["options"]),
        header=require_header(where, raw["header"]),
        multi_select=require_bool(where, "multi_select", multi),
    )


def create(questions: Sequence[Any]) -> SurveyConfig:
    """Validate author input: at least one question."""
    items = require_list(WHERE, "questions", questions)
    if not items:
        raise fail(WHERE, "a survey needs at least one question")
    return SurveyConfig(
        questions=tuple(
            _parse_question(f"{WHERE}, question {i + 1}", it) for i, it in enumerate(items)
        )
    )


def _render_question(question: SurveyQuestion) -> str:
    attrs = [
        ("header", question.header),
        ("text", question.question),
        ("multi-select", "true" if question.multi_select else None),
    ]
    return "\n".join(
        [open_tag("question", attrs), *map(render_option, question.options), "</question>"]
    )


def render(config: SurveyConfig, *, skill_name: str | None = None) -> str:
    """One ``<survey>`` block per four questions, separated by a blank line."""
    questions = config.questions
    blocks = []
    for start in range(0, len(questions), QUESTIONS_PER_BLOCK):
        chunk = questions[start : start + QUESTIONS_PER_BLOCK]
        blocks.append("\n".join(["<survey>", *map(_render_question, chunk), "</survey>"]))
    return "\n\n".join(blocks)


PRIMITIVE = PrimitiveSpec(
    kind="survey",
    tag="survey",
    tools=tag_candidates("survey"),
    config_type=SurveyConfig,
    render=render,
    usage_with_tool=(
        "Ask all `<question>` children through the tool, in one call where it allows, "
        "with options handled as for `<ask-user>`; report every answer."
    ),
    usage_without_tool=(
        "Put all `<question>` children to the user in one message, each with its options "
        "numbered, and report every answer."
    ),
)

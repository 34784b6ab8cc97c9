"""``act.ask_user``: a structured choice (2–4 options) or an open question."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from skillkit_core.hosts import tag_candidates
from skillkit_core.primitives.base import (
    MAX_OPTIONS,
    MIN_OPTIONS,
    PrimitiveConfig,
    PrimitiveSpec,
    fail,
    fields_of,
    open_tag,
    optional_text,
    require_bool,
    require_choice,
    require_header,
    require_list,
    require_text,
    xml_text,
)

WHERE = "act.ask_user"
QUESTION_TYPES = ("structured", "open")


@dataclass(frozen=True)
class Option:
    """One choice: ``value`` is what the step's response carries, ``label`` what the
    user sees; ``description`` and ``preview`` (e.g. a code sample) are optional."""

    value: str
    label: str
    description: str | None = None
    preview: str | None = None


@dataclass(frozen=True)
class AskUserConfig(PrimitiveConfig):
    """A validated ``ask_user`` directive."""

    type: Literal["structured", "open"]
    question: str
    options: tuple[Option, ...] = ()
    header: str | None = None
    multi_select: bool = False
    kind: ClassVar[str] = "ask_user"


def parse_options(where: str, options: Any) -> tuple[Option, ...]:
    """Validate a list of 2–4 options with distinct values (shared with ``survey``)."""
    items = require_list(where, "options", options)
    if not MIN_OPTIONS <= len(items) <= MAX_OPTIONS:
        raise fail(
            where,
            f"a structured question needs {MIN_OPTIONS} to {MAX_OPTIONS} options, got {len(items)}",
        )
    parsed = tuple(_parse_option(f"{where}, option {i + 1}", item) for i, item in enumerate(items))
    values = [option.value for option in parsed]
    duplicates = sorted({value for value in values if values.count(value) > 1})
    if duplicates:
        raise fail(where, f"option values must be distinct, repeated: {duplicates}")
    return parsed


def _parse_option(where: str, item: Any) -> Option:
    raw = fields_of(where, item, Option, ("value", "label"), ("description", "preview"))
    return Option(
        value=require_text(where, "value", raw["value"]),
        label=require_text(where, "label", raw["label"]),
        description=optional_text(where, "description", raw["description"]),
        preview=optional_text(where, "preview", raw["preview"]),
    )


def create(
    *,
    question: str,
    type: str | None = None,
    options: Sequence[Any] | None = None,
    header: str | None = None,
    multi_select: bool = False,
) -> AskUserConfig:
    """Validate author input; ``type`` defaults to structured when options are given."""
    if type is None:
        type = "structured" if options is not None else "open"
    kind = require_choice(WHERE, "type", type, QUESTION_TYPES)
    text = require_text(WHERE, "question", question)
    multi = require_bool(WHERE, "multi_select", multi_select)
    if kind == "open":
        if options is not None:
            raise fail(WHERE, "an open question takes no options (use type='structured')")
        if header is not None or multi:
            raise fail(WHERE, "header and multi_select apply to structured questions only")
        return AskUserConfig(type="open", question=text)
    if options is None:
        raise fail(WHERE, "a structured question needs options")
    return AskUserConfig(
        type="structured",
        question=text,
        options=parse_options(WHERE, options),
        header=require_header(WHERE, header),
        multi_select=multi,
    )


def render_option(option: Option) -> str:
    """``<option value label>description[<preview>…</preview>]</option>``."""
    body = xml_text(option.description or "")
    if option.preview is not None:
        body += f"<preview>{xml_text(option.preview)}</preview>"
    tag = open_tag("option", [("value", option.value), ("label", option.label)])
    return f"{tag}{body}</option>"


def render(config: AskUserConfig, *, skill_name: str | None = None) -> str:
    """The ``<ask-user>`` tag."""
    if config.type == "open":
        return open_tag("ask-user", [("type", "open"), ("question", config.question)], empty=True)
    attrs = [
        ("type", "structured"),
        ("header", config.header),
        ("question", config.question),
        ("multi-select", "true" if config.multi_select else None),
    ]
    lines = [open_tag("ask-user", attrs), *map(render_option, config.options), "</ask-user>"]
    return "\n".join(lines)


PRIMITIVE = PrimitiveSpec(
    kind="ask_user",
    tag="ask-user",
    tools=tag_candidates("ask-user"),
    config_type=AskUserConfig,
    render=render,
    usage_with_tool=(
        "Ask the question with the tool, offering each `<option>` (label, description, "
        'preview) as a choice; several may be picked when `multi-select="true"`. '
        'For `type="open"` let the user answer freely. '
        "Report the chosen `value`(s) exactly as written."
    ),
    usage_without_tool=(
        "Ask in chat: show the `<option>` children as a numbered list (label, then "
        "description) and accept a number or a name; several when "
        '`multi-select="true"`. For `type="open"` simply ask the question. '
        "Report the chosen `value`(s) exactly as written."
    ),
)

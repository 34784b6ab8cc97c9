"""Prompt assembly: resolve a step's ``prompt`` value, normalise it to pieces, wrap each
piece in its tag in author order, and join them with blank lines.

- ``str`` (or a ``Fragment``) → ``<prompt>\\n…\\n</prompt>``
- ``system(...)`` → ``<system>…</system>``
- ``act.*(...)`` → the primitive's tag (via the registry)
- ``view(...)`` → ``<rendered>\\n…\\n</rendered>`` or ``<rendered name="…">``

Prose in ``<prompt>``, ``<system>`` and ``<rendered>`` is the author's and passes through
unchanged (markdown, code and ``<`` included), except that it cannot open or close one of
these three tags: the ``<`` of such a tag in prose is written ``&lt;`` (:func:`neutralized`).
Prose often carries data (an earlier answer, a file, a web page), and a ``</prompt>`` and
``<system>`` in it would otherwise turn that data into standing directives. Primitive tags
escape everything.
"""

from __future__ import annotations

from typing import Any

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.prompts.fragments import Fragment
from skillkit_core.prompts.segments import ActSegment, SystemSegment, ViewSegment

_PIECE_TYPES = "a string, system(...), act.*(...), view(...) or a fragment"


def render_prompt(value: Any, ctx: Any, *, skill_name: str) -> str:
    """Render a step's ``prompt`` config to the text the agent receives.

    ``value`` is a string, a piece, a list/tuple of pieces, or a callable taking
    ``ctx`` and returning one of those. ``None`` and empty strings inside a list are
    skipped, so conditional pieces read naturally.
    """
    resolved = resolve_prompt_value(value, ctx)
    return assemble_pieces(normalize_pieces(resolved), skill_name=skill_name)


def resolve_prompt_value(value: Any, ctx: Any) -> Any:
    """Call a prompt callable with ``ctx``; anything else is returned as is."""
    if callable(value) and not isinstance(value, type):
        result = value(ctx)
        if result is None:
            raise SkillDefinitionError(
                "the prompt function returned None (is a `return` missing?); "
                f"it must return {_PIECE_TYPES}, or a list of them"
            )
        if callable(result) and not isinstance(result, type):
            raise SkillDefinitionError(
                "the prompt function returned another function; "
                f"it must return {_PIECE_TYPES}, or a list of them"
            )
        return result
    return value


def normalize_pieces(value: Any) -> list[Any]:
    """A single piece becomes a one-element list; lists and tuples are copied."""
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def assemble_pieces(pieces: list[Any], *, skill_name: str | None) -> str:
    """Wrap each piece in its tag (author order) and join them with blank lines."""
    rendered = (render_piece(piece, skill_name=skill_name) for piece in pieces)
    return "\n\n".join(text for text in rendered if text)


def render_piece(piece: Any, *, skill_name: str | None) -> str:
    """One piece in its tag; an empty string for pieces that contribute nothing."""
    if piece is None:
        return ""
    if isinstance(piece, Fragment):
        piece = piece.content
    if isinstance(piece, str):
        text = neutralized(_trim_blank_lines(piece))
        return f"<prompt>\n{text}\n</prompt>" if text else ""
    if isinstance(piece, SystemSegment):
        text = neutralized(piece.text.strip())
        return f"<system>{text}</system>" if text else ""
    if isinstance(piece, ActSegment):
        # Imported here: the registry imports primitives, which import this package.
        from skillkit_core.primitives.registry import render_primitive

        return render_primitive(piece.primitive, skill_name=skill_name)
    if isinstance(piece, ViewSegment):
        return _render_view(piece)
    raise SkillDefinitionError(
        f"unsupported prompt piece of type {type(piece).__name__} ({piece!r:.60}); "
        f"a piece is {_PIECE_TYPES}"
    )


def neutralized(prose: str) -> str:
    """``prose`` with the ``<`` of every ``<prompt``, ``<system`` or ``<rendered`` tag
    (opening or closing, any case) written ``&lt;``, so that it stays inside its own tag."""
    if "<" not in prose:
        return prose
    global _prose_tag
    if _prose_tag is None:
        import re

        _prose_tag = re.compile(r"<(?=\s*/?\s*(?:prompt|system|rendered)\b)", re.IGNORECASE)
    return _prose_tag.sub("&lt;", prose)


_prose_tag: Any = None


def _render_view(piece: ViewSegment) -> str:
    content = neutralized(_trim_blank_lines(piece.content))
    if not content:
        # An empty view (e.g. render.table([])) shows nothing rather than an empty block.
        return ""
    if piece.name is None:
        return f"<rendered>\n{content}\n</rendered>"
    from skillkit_core.primitives.base import xml_attr

    return f'<rendered name="{xml_attr(piece.name)}">\n{content}\n</rendered>'


def _trim_blank_lines(text: str) -> str:
    """Drop blank lines at both ends and trailing space, keeping inner layout."""
    lines = text.rstrip().split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)

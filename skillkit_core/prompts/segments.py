"""Prompt pieces other than plain strings: system, act and view segments.

A step's prompt is assembled from pieces in author order (see ``assemble.py``). These
are small frozen values, so a definition that holds them stays inspectable data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, overload

from skillkit_core.errors import SkillDefinitionError

if TYPE_CHECKING:
    from skillkit_core.primitives.base import PrimitiveConfig


@dataclass(frozen=True)
class SystemSegment:
    """Standing directives (persona, tone) rendered as ``<system>…</system>``."""

    text: str
    kind: ClassVar[str] = "system"

    def __str__(self) -> str:
        # Lets a system segment be embedded in an f-string as its text.
        return self.text


@dataclass(frozen=True)
class ActSegment:
    """A primitive directive (``act.*``) rendered as the primitive's XML tag."""

    primitive: PrimitiveConfig
    kind: ClassVar[str] = "act"


@dataclass(frozen=True)
class ViewSegment:
    """Pre-rendered content shown verbatim, as ``<rendered>`` (optionally named)."""

    content: str
    name: str | None = None
    kind: ClassVar[str] = "view"

    def __str__(self) -> str:
        return self.content


PromptSegment = SystemSegment | ActSegment | ViewSegment


def system(text: object) -> SystemSegment:
    """A system segment: persona or frame for the model, rendered as ``<system>``.

    Accepts a string (an f-string may embed fragments, which contribute their content)
    or a ``Fragment``.
    """
    if isinstance(text, SystemSegment):
        return text
    if not isinstance(text, str):
        text = _text_of(text, "system()")
    return SystemSegment(text=text)


@overload
def view(content: object, /) -> ViewSegment: ...
@overload
def view(name: str, content: object, /) -> ViewSegment: ...


def view(*args: Any) -> ViewSegment:
    """Wrap pre-rendered content to be shown verbatim: ``view(content)`` or
    ``view(name, content)`` (the name lets the prompt refer to one of several views)."""
    if len(args) == 1:
        name, content = None, args[0]
    elif len(args) == 2:
        name, content = args
        if not isinstance(name, str) or not name.strip():
            raise SkillDefinitionError(
                f"view(name, content): the name must be a non-empty string, got {name!r}"
            )
    else:
        raise SkillDefinitionError(
            f"view() takes (content) or (name, content), got {len(args)} arguments"
        )
    return ViewSegment(content=_text_of(content, "view()"), name=name)


def _text_of(value: object, where: str) -> str:
    """The text of a string or fragment-like value; anything else is an author error."""
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)
    if isinstance(content, str) and hasattr(value, "name"):
        return content
    raise SkillDefinitionError(
        f"{where} expects a string, got {type(value).__name__} ({value!r:.60})"
    )

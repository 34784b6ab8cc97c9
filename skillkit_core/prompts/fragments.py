"""Named prose snippets (``fragment``) and the dedenting ``prompt()`` helper."""

from __future__ import annotations

from dataclasses import dataclass

from skillkit_core.errors import SkillDefinitionError


@dataclass(frozen=True)
class Fragment:
    """An immutable, named piece of prose reused across prompts.

    ``str(fragment)`` and f-string interpolation give its content, so fragments compose
    with ordinary string building.
    """

    name: str
    content: str

    def __str__(self) -> str:
        return self.content

    def __format__(self, spec: str) -> str:
        return format(self.content, spec)


def fragment(name: str, content: str) -> Fragment:
    """Create a fragment; ``content`` is trimmed of surrounding whitespace."""
    if not isinstance(name, str) or not name.strip():
        raise SkillDefinitionError(f"fragment(): name must be a non-empty string, got {name!r}")
    if isinstance(content, Fragment):
        content = content.content
    if not isinstance(content, str):
        raise SkillDefinitionError(
            f"fragment({name!r}): content must be a string, got {type(content).__name__}"
        )
    return Fragment(name=name, content=content.strip())


def prompt(text: str | Fragment) -> str:
    """Dedent a block of prompt prose written inline in code.

    Leading and trailing blank lines are dropped and the indentation shared by all
    non-blank lines is removed, so a triple-quoted block can follow the code's indent.
    Fragments interpolated into an f-string contribute their content.
    """
    if isinstance(text, Fragment):
        text = text.content
    if not isinstance(text, str):
        raise SkillDefinitionError(f"prompt() expects a string, got {type(text).__name__}")
    return dedent_block(text)


def dedent_block(text: str) -> str:
    """Strip leading/trailing blank lines and the common indentation of the rest."""
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    indents = [line[: len(line) - len(line.lstrip())] for line in lines if line.strip()]
    width = _common_prefix_length(indents)
    return "\n".join(line[width:] if line.strip() else "" for line in lines)


def _common_prefix_length(strings: list[str]) -> int:
    """Length of the prefix all ``strings`` share (0 for none)."""
    if not strings:
        return 0
    shortest, longest = min(strings), max(strings)
    # The lexicographic extremes bound every other string's shared prefix.
    for i, char in enumerate(shortest):
        if char != longest[i]:
            return i
    return len(shortest)

"""Where a text names skills: ``/name`` invocations, paths through a skill's folder, and
plain mentions ("hand it to the release-notes skill").

The language server uses this to treat skills as symbols across a workspace (definition,
references, rename). The scan is one regular expression over the text, built from the
names being looked for, so a workspace of hundreds of skills costs one pass per file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from skillkit_core.lint.diagnostic import SourceRange

SLASH = "slash"  # /name, as a user types it to invoke the skill
PATH = "path"  # a path through the skill's folder: ../name/SKILL.md, name/references/x.md
WORD = "word"  # the name in prose or code: "the release-notes skill"

# Lines as editors count them (str.splitlines also breaks at form feeds and others).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# URLs are left alone: https://example.com/pdf-tools names a page, not the skill.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+")
# What may stand before a ``/name`` that is an invocation rather than a path.
_BEFORE_SLASH = frozenset(" \t`'\"([{<*_>")


class NameMention(NamedTuple):
    """One place naming skill ``name``: ``range`` covers the name only (not its ``/``)."""

    name: str
    range: SourceRange
    kind: str


@lru_cache(maxsize=16)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, so that "pdf-tools-extra" is not found as "pdf-tools"; by name among
    # equals, so that the same names make the same pattern text (the pattern cache's key).
    ordered = sorted(names, key=lambda name: (-len(name), name))
    alternatives = "|".join(re.escape(name) for name in ordered)
    # A name is whole when no name character touches it; a following ".md" or ".py" makes
    # it a file name (pdf-tools.md), a preceding "." an extension or a host (x.pdf-tools).
    return re.compile(rf"(?<![\w.\-])(?:{alternatives})(?![\w\-]|\.\w)")


def find_skill_names(
    text: str, names: Iterable[str], *, plain_words: bool | None = None
) -> list[NameMention]:
    """Every place in ``text`` naming one of ``names``, in text order.

    A name written after a ``/`` that starts a word is a :data:`SLASH` invocation; one
    inside a path (after or before another ``/``) is a :data:`PATH`; anything else is a
    :data:`WORD`. Plain words are found only for names holding a hyphen or a digit
    (``release-notes``, ``pdf2txt``), unless ``plain_words`` says otherwise: a one-word
    name like ``review`` is an ordinary word in prose, and renaming the skill must not
    rewrite every "review" of the workspace. Names inside URLs are skipped.
    """
    wanted = tuple(sorted({name for name in names if name}))
    if not wanted or not text:
        return []
    pattern = _pattern(wanted)
    found: list[NameMention] = []
    for number, line in enumerate(_LINE_BREAK.split(text)):
        if not any(name in line for name in wanted):
            continue
        urls = [(m.start(), m.end()) for m in _URL.finditer(line)] if "://" in line else []
        for match in pattern.finditer(line):
            start, end = match.start(), match.end()
            if any(a <= start < b for a, b in urls):
                continue
            name = match.group(0)
            kind = _kind(line, start, end)
            if kind == WORD and not _distinctive(name, plain_words):
                continue
            found.append(NameMention(name, SourceRange(number, start, number, end), kind))
    return found


def _kind(line: str, start: int, end: int) -> str:
    after_slash = start > 0 and line[start - 1] == "/"
    if after_slash and (start == 1 or line[start - 2] in _BEFORE_SLASH):
        return SLASH
    if after_slash or line[end : end + 1] in ("/", "\\"):
        return PATH
    return WORD


def _distinctive(name: str, plain_words: bool | None) -> bool:
    if plain_words is not None:
        return plain_words
    return "-" in name or any(char.isdigit() for char in name)


class Misspelt(NamedTuple):
    """A ``/name`` invocation naming no skill, and the skill it most likely means."""

    written: str
    range: SourceRange  # the name only, not its "/"
    meant: str


# A /name invocation as a user types it: after a line start or a character that may
# stand before one, not followed by more of a path, a plugin's ":command" or a file
# extension.
_INVOCATION = re.compile(r"/([a-z0-9][a-z0-9\-]*)(?![\w\-/:]|\.\w)")
# How alike (difflib's ratio) a name must be to a skill's to be called a misspelling of
# it: "/pdf-tool" for pdf-tools is, "/tmp" or "/help" for any skill is not.
MISSPELT_CUTOFF = 0.8


def find_misspelt_invocations(text: str, names: Iterable[str]) -> list[Misspelt]:
    """Every ``/name`` in ``text`` that names none of ``names`` but is very close to one
    of them (a typo of an invocation: the host would not find the skill). URLs are
    skipped; paths (``/usr/bin``) are not invocations."""
    from skillkit_core.lint.closest import closest_name

    known = sorted({name for name in names if name})
    if not known or "/" not in text:
        return []
    found: list[Misspelt] = []
    for number, line in enumerate(_LINE_BREAK.split(text)):
        if "/" not in line:
            continue
        urls = [(m.start(), m.end()) for m in _URL.finditer(line)] if "://" in line else []
        for match in _INVOCATION.finditer(line):
            start = match.start()
            if start > 0 and line[start - 1] not in _BEFORE_SLASH:
                continue
            if any(a <= start < b for a, b in urls):
                continue
            written = match.group(1)
            if written in known:
                continue
            meant = closest_name(written, known, MISSPELT_CUTOFF)
            if meant is not None:
                where = SourceRange(number, match.start(1), number, match.end(1))
                found.append(Misspelt(written, where, meant))
    return found

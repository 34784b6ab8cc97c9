"""Turning link targets and file mentions of a SKILL.md into paths inside the skill."""

from __future__ import annotations

import re
from functools import lru_cache

from skillkit_core.named_tuple import NamedTuple

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_ROOT_PREFIX = re.compile(r"^(?:\{baseDir\}|\$\{?CLAUDE_SKILL_DIR\}?)/")
_QUERY_OR_FRAGMENT = re.compile(r"[#?]")
# A slash command of a plugin's skill (``/plugin:skill``): a command, not a path.
_SLASH_COMMAND = re.compile(r"/[A-Za-z0-9][\w.\-]*:[\w.\-:]+")


class LocalTarget(NamedTuple):
    """A link target that names a file: ``path`` as written, minus fragment and prefixes.

    ``absolute`` marks targets starting at the file-system root (``/x``, ``C:\\x``);
    ``from_root`` marks targets written relative to the skill root (``{baseDir}/x``).
    """

    path: str
    absolute: bool = False
    from_root: bool = False


def local_target(target: str) -> LocalTarget | None:
    """The file a link target points at, or ``None`` for URLs, anchors, placeholders and
    slash commands (``/plugin:skill``).

    Several rules ask for each link's target: answers for targets of ordinary length are
    kept (they are values; a long one is not worth keeping alive)."""
    if len(target) > 300:
        return _local_target(target)
    return _kept_local_target(target)


def _local_target(target: str) -> LocalTarget | None:
    target = target.strip()
    if not target or target.startswith(("#", "?")):
        return None
    from_root = bool(_ROOT_PREFIX.match(target))
    if from_root:
        target = _ROOT_PREFIX.sub("", target)
    if len(target) > 2 and target[1] == ":" and target[2] in "\\/":
        return LocalTarget(target, absolute=True)
    if _SCHEME.match(target) or "{" in target or "<" in target:
        return None
    path = destination_path(_QUERY_OR_FRAGMENT.split(target, maxsplit=1)[0])
    if not path:
        return None
    if path.startswith(("/", "\\", "~")):
        if _SLASH_COMMAND.fullmatch(path):
            return None
        return LocalTarget(path, absolute=True)
    return LocalTarget(path, from_root=from_root)


_kept_local_target = lru_cache(maxsize=1024)(_local_target)

# What a bare link destination cannot hold (CommonMark 6.3: no spaces or controls, and
# parentheses only balanced): written as percent-escapes, which _local_target reads back.
_NOT_IN_A_DESTINATION = {" ": "%20", "\t": "%09", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"}


def link_destination(path: str) -> str:
    """``path`` as a bare Markdown link destination that names it (``my notes.md`` is
    ``my%20notes.md``)."""
    return "".join(_NOT_IN_A_DESTINATION.get(char, char) for char in path)


def destination_path(destination: str) -> str:
    """The path a link destination's percent-escapes spell (the inverse, for a part of
    one being typed)."""
    if "%" not in destination:  # urllib.parse (and the ipaddress it imports) else
        return destination
    from urllib.parse import unquote

    return unquote(destination)


def mention_path(mention: str) -> str:
    """A file mention with its ``{baseDir}/``, ``${CLAUDE_SKILL_DIR}/`` or ``./`` dropped."""
    mention = _ROOT_PREFIX.sub("", mention)
    return mention[2:] if mention.startswith("./") else mention

"""Paths as the text ``pathlib`` would write, without importing ``pathlib``.

Importing pathlib costs about 3 ms (it brings ``urllib.parse`` and ``ipaddress``), a tenth
of what ``skillkit check`` takes on one skill folder, which otherwise only needs path
strings. These functions give exactly what ``str(PurePath(...))``, ``.name``, ``.parent``
and ``/`` give (diagnostics name files the way they always have): a path already in the
form pathlib writes (no ``//``, ``.`` parts or trailing ``/``; most are) is answered
with string operations, any other is handed to pathlib itself, and so is every path on a
system whose separator is not ``/``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import PurePath

_POSIX = os.sep == "/" and os.altsep is None


def pure(text: str) -> str:
    """``str(PurePath(text))``: ``./a//b/`` becomes ``a/b``."""
    while text.startswith("./"):
        text = text[2:].lstrip("/")
    if _POSIX and _written_as_pathlib_would(text):
        return text
    return str(_pure_path(text))


def name(text: str) -> str:
    """``PurePath(text).name``: the last part, ``""`` for ``.`` and ``/``."""
    text = pure(text)
    if text == "." or not text.strip("/"):
        return ""
    return text.rpartition("/")[2] if _POSIX else _pure_path(text).name


def parent(text: str) -> str:
    """``str(PurePath(text).parent)``."""
    text = pure(text)
    if not _POSIX:
        return str(_pure_path(text).parent)
    anchor = _anchor(text)
    rest = text[len(anchor) :]
    if "/" not in rest:
        return anchor or "."
    return anchor + rest.rpartition("/")[0]


def join(base: str, relative: str) -> str:
    """``str(PurePath(base) / relative)`` for a ``relative`` path."""
    base, relative = pure(base), pure(relative)
    if not _POSIX or relative.startswith("/"):
        return str(_pure_path(base) / relative)
    if base == ".":
        return relative
    if relative == ".":
        return base
    return f"{base}{relative}" if base.endswith("/") else f"{base}/{relative}"


def sort_key(text: str) -> object:
    """A key that orders paths as pathlib orders them (by parts: ``a/b`` before
    ``a-b``), for paths that start alike (as those of one walk do: pathlib 3.11 and
    3.12 order an anchor against a relative path differently)."""
    return text.split("/") if _POSIX else _pure_path(text)


def _anchor(text: str) -> str:
    """The root a path starts with: ``/``, or ``//`` (which POSIX lets mean something
    else, so pathlib keeps it), or none."""
    if text.startswith("//") and not text.startswith("///"):
        return "//"
    return "/" if text.startswith("/") else ""


def _written_as_pathlib_would(text: str) -> bool:
    if not text or text == ".":
        return bool(text)
    body = text[len(_anchor(text)) :]
    if not body:
        return True
    return not (
        body.startswith("/")
        or body.endswith("/")
        or "//" in body
        or body == "."
        or body.startswith("./")
        or body.endswith("/.")
        or "/./" in body
    )


def _pure_path(text: str) -> PurePath:
    from pathlib import PurePath

    return PurePath(text)

"""skillkit's folder in the user's cache: one answer for every part that keeps files there.

It is ``$SKILLKIT_CACHE_DIR`` when that is set (skillkit's whole cache: a sandbox, a CI
job or a test session points it at a folder of its own), else ``skillkit`` in the
platform's per-user cache folder (:func:`platform_cache_home`). Below it live:

- ``wheels``: native wheels a build fetched for other platforms
  (:mod:`skillkit_core.build.wheels`);
- ``bundles``: the unpacked files of built skills (``_skillkit_boot.py`` holds its own copy
  of this rule, since it runs before any of skillkit can be imported; a test keeps the two
  equal);
- ``check``: ``skillkit check``'s results and compiled patterns
  (:mod:`skillkit_core.lint.result_cache`), which the language server shares;
- ``rules`` and ``editor``: the language server's rule pages and the previews its commands
  write.

Only ``os`` and ``sys`` are imported: ``skillkit check`` asks on its hot path.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "SKILLKIT_CACHE_DIR"


def cache_root() -> str:
    """``$SKILLKIT_CACHE_DIR``, else ``skillkit`` in :func:`platform_cache_home`."""
    configured = os.environ.get(VARIABLE)
    if configured:
        return configured
    return os.path.join(platform_cache_home(), "skillkit")


def cache_folder(name: str) -> str:
    """The folder ``name`` in :func:`cache_root` (not created)."""
    return os.path.join(cache_root(), name)


def platform_cache_home() -> str:
    """The per-user cache folder: ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on
    Windows, else ``$XDG_CACHE_HOME`` when it is an absolute path and ``~/.cache``
    otherwise (the XDG Base Directory specification has a relative value ignored)."""
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches")
    if sys.platform == "win32":
        return os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    configured = os.environ.get("XDG_CACHE_HOME", "")
    return configured if os.path.isabs(configured) else os.path.join(home, ".cache")

"""Plugins: folders that hosts install whole, skills and all.

Claude Code, Codex and Cursor install a plugin by copying its folder (the one holding
``.claude-plugin/plugin.json``, ``.codex-plugin/plugin.json`` or
``.cursor-plugin/plugin.json``) into their plugin cache, and Gemini CLI an extension's
folder (the one holding ``gemini-extension.json``): a file anywhere in that folder
travels with each of its skills, a file outside it does not (Claude Code's plugin docs:
paths that leave the plugin root do not work once it is installed).
"""

from __future__ import annotations

import os
from collections.abc import Callable

PLUGIN_MANIFESTS = (
    ".claude-plugin/plugin.json",
    ".codex-plugin/plugin.json",
    ".cursor-plugin/plugin.json",
    "gemini-extension.json",
)


Exists = Callable[[str], bool]
"""How a path outside the skill folder is looked up (``SkillFolder.outside_exists``, whose
answers the result cache of ``check`` asks again)."""


def plugin_root(skill_folder: str, exists: Exists = os.path.exists) -> str | None:
    """The absolute path of the nearest folder above ``skill_folder`` that is a plugin
    (:data:`PLUGIN_MANIFESTS`), or ``None``."""
    folder = os.path.abspath(skill_folder)
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
        if any(exists(os.path.join(folder, name)) for name in PLUGIN_MANIFESTS):
            return folder

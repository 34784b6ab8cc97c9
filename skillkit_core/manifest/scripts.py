"""What the SKILL.md script rules know about interpreters, extensions and shebangs."""

from __future__ import annotations

import re

# extension -> (language family, shebang to add when missing)
EXTENSIONS: dict[str, tuple[str, str | None]] = {
    ".py": ("python", "#!/usr/bin/env python3"),
    ".sh": ("shell", "#!/usr/bin/env bash"),
    ".bash": ("shell", "#!/usr/bin/env bash"),
    ".zsh": ("shell", "#!/usr/bin/env zsh"),
    ".js": ("javascript", "#!/usr/bin/env node"),
    ".mjs": ("javascript", "#!/usr/bin/env node"),
    ".cjs": ("javascript", "#!/usr/bin/env node"),
    ".ts": ("typescript", None),
    ".rb": ("ruby", "#!/usr/bin/env ruby"),
    ".pl": ("perl", "#!/usr/bin/env perl"),
    ".php": ("php", "#!/usr/bin/env php"),
    ".lua": ("lua", "#!/usr/bin/env lua"),
    ".r": ("r", "#!/usr/bin/env Rscript"),
}

_INTERPRETERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"python[\d.]*|pypy[\d.]*|uv|pipx"), "python"),
    (re.compile(r"(ba|z|da|k|mk|fi)?sh"), "shell"),
    (re.compile(r"node(js)?"), "javascript"),
    (re.compile(r"deno|bun|tsx|ts-node"), "typescript"),
    (re.compile(r"ruby"), "ruby"),
    (re.compile(r"perl[\d.]*"), "perl"),
    (re.compile(r"php[\d.]*"), "php"),
    (re.compile(r"lua[\d.]*|luajit"), "lua"),
    (re.compile(r"Rscript"), "r"),
)
# Families that can also run a file of another family's extension.
_ALSO_RUNS = {"typescript": {"javascript"}, "javascript": {"typescript"}}


def extension_family(name: str) -> str | None:
    """The language family a file name's extension implies, if known."""
    dot = name.rfind(".")
    if dot <= 0:
        return None
    entry = EXTENSIONS.get(name[dot:].lower())
    return entry[0] if entry else None


def default_shebang(name: str) -> str | None:
    """The shebang line to add to ``name`` when it has none (``None``: no safe choice)."""
    dot = name.rfind(".")
    entry = EXTENSIONS.get(name[dot:].lower()) if dot > 0 else None
    return entry[1] if entry else None


def interpreter(first_line: str) -> str | None:
    """The interpreter a shebang line names (``env`` and its flags skipped)."""
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].split()
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    rest = words[1:]
    if program == "env":
        rest = [w for w in rest if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        program = rest[0].rsplit("/", 1)[-1]
    return program


def interpreter_family(program: str) -> str | None:
    """The language family of an interpreter program name, if known."""
    for pattern, family in _INTERPRETERS:
        if pattern.fullmatch(program):
            return family
    return None


def compatible(interpreter_kind: str, extension_kind: str) -> bool:
    """True when an interpreter of one family can run a file of the other family."""
    return interpreter_kind == extension_kind or extension_kind in _ALSO_RUNS.get(
        interpreter_kind, set()
    )

"""What the SKILL.md script rules know about interpreters, extensions and shebangs."""

from __future__ import annotations

import re
from bisect import bisect_left

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


# Programs that run a script named after them (``python x.py``, ``uv run x.py``,
# ``node server.cjs``): a script started that way needs no ``#!`` line.
_RUNNERS = (
    r"python[\d.]*|py|pypy[\d.]*|uv[ \t]+run|uvx|pipx[ \t]+run|poetry[ \t]+run[ \t]+python[\d.]*"
    r"|node(?:js)?|deno(?:[ \t]+run)?|bun(?:[ \t]+run)?|tsx|ts-node|npx[ \t]+(?:tsx|ts-node)"
    r"|(?:ba|z|da|k)?sh|source|ruby|perl|php|Rscript|lua|luajit|pwsh|powershell"
)
_PEP_723 = re.compile(r"^# /// script\s*$", re.MULTILINE)
_TEST_NAME = re.compile(r"test_.+\.py|.+_test\.py|.+\.(?:test|spec)\.[cm]?[jt]sx?", re.I)
_BROWSER = re.compile(r"\b(?:window|document)\.\w|\bdocument\.querySelector|\bDOMContentLoaded")
_PY_MAIN = re.compile(r"""^if\s+__name__\s*==\s*["']__main__["']""", re.MULTILINE)


def is_test_file(name: str) -> bool:
    """A test module (``test_x.py``, ``x_test.py``, ``x.test.js``): a test runner runs it."""
    return _TEST_NAME.fullmatch(name) is not None


def is_browser_script(name: str, text: str) -> bool:
    """JavaScript written for a web page (it uses ``window`` or ``document`` and never
    reads its command line): a browser loads it, no shell runs it."""
    family = extension_family(name)
    if family not in ("javascript", "typescript"):
        return False
    return _BROWSER.search(text) is not None and "process.argv" not in text


def is_pep_723(text: str) -> bool:
    """A Python script with inline metadata (``# /// script``), run by ``uv run``."""
    return _PEP_723.search(text) is not None


def script_shebang(name: str, text: str) -> str | None:
    """The ``#!`` line to give a script that has none: ``uv run --script`` for a PEP 723
    script (its dependencies are declared inline), else the usual one for its extension
    (``None``: no safe choice)."""
    if extension_family(name) == "python" and is_pep_723(text):
        return "#!/usr/bin/env -S uv run --script"
    return default_shebang(name)


def states_interpreter(name: str, texts: list[str]) -> bool:
    """Whether one of ``texts`` (SKILL.md, the skill's other markdown and scripts) runs
    the script named ``name`` through its interpreter: ``python scripts/x.py``, ``uv run
    x.py``, ``node "$DIR/server.cjs"`` (options between the two allowed)."""
    return any(_run_by_runner(text, name) for text in texts if name in text)


# A runner, its options (with a value) and the start of the word naming the script: what
# comes before the script's name in ``python -u scripts/x.py``. Compiled on first use
# (``re`` keeps it): most folders never name a script.
_RUNNER_AND_OPTIONS = (
    rf"(?:{_RUNNERS})"  # the program
    r"(?:[ \t]+-{1,2}[\w\-]+(?:[= ][^\s\-][^\s;|&]*)?)*"  # its options, with a value
    r"[ \t]+[\"']?[^\s\"'`;|&]*?"
)
# Where a runner starts (zero-width, so starts inside another runner's words count).
_RUNNER_START = rf"(?<![\w.\-/])(?=(?:{_RUNNERS}))"
_NAME_CHAR = r"[\w.\-]"


def _run_by_runner(text: str, name: str) -> bool:
    """Whether a runner in ``text`` is followed, on its line, by ``name`` standing alone
    (not part of a longer name): one fixed pattern tried from each runner start to each
    place of the name, where a pattern holding the name would be compiled per name."""
    name_char, runner = re.compile(_NAME_CHAR), re.compile(_RUNNER_AND_OPTIONS)
    starts: list[int] | None = None
    place = text.find(name)
    while place >= 0:
        end = place + len(name)
        alone = not (place and name_char.match(text, place - 1)) and not name_char.match(text, end)
        if alone:
            if starts is None:
                starts = [match.start() for match in re.finditer(_RUNNER_START, text)]
            line_start = text.rfind("\n", 0, place) + 1
            for start in starts[bisect_left(starts, line_start) : bisect_left(starts, place)]:
                if runner.fullmatch(text, start, place):
                    return True
        place = text.find(name, place + 1)
    return False


def only_imported(name: str, text: str, others: list[str]) -> bool:
    """Whether the script ``name`` is a module other scripts import and nothing runs
    directly: another script imports, requires or sources it, and it has no entry point
    of its own (Python's ``if __name__ == "__main__":``; a JavaScript
    ``require.main === module``)."""
    family = extension_family(name)
    plain_stem = name.rsplit(".", 1)[0]
    others = [other for other in others if plain_stem in other]  # each pattern names it
    if not others:
        return False
    stem = re.escape(plain_stem)
    if family == "python":
        if _PY_MAIN.search(text):
            return False
        uses = rf"^\s*(?:from\s+(?:\.|scripts\.)?{stem}\s+import\b|import\s+(?:scripts\.)?{stem}\b)"
    elif family in ("javascript", "typescript"):
        if "require.main" in text or "import.meta.main" in text:
            return False
        uses = (
            rf"""(?:require\(\s*|\bfrom\s+|\bimport\s*\(?\s*)["']\.{{1,2}}/(?:[\w.\-]+/)*"""
            rf"""{stem}(?:\.[cm]?[jt]s)?["']"""
        )
    elif family == "shell":
        uses = rf"(?:^|[\s;&|])(?:source|\.)\s+[\"']?[^\s\"']*?(?<![\w.\-]){re.escape(name)}\b"
    else:
        return False
    pattern = re.compile(uses, re.MULTILINE)
    return any(pattern.search(other) for other in others)

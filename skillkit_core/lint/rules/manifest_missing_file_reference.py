"""missing-file-reference: paths under scripts/, references/ or assets/ that SKILL.md names
as the skill's own (in prose, inline code or shell code blocks) exist.

Globs and brace lists are expanded against the folder (``references/agents-*-rules.md``
exists when one file matches; ``scripts/extract.{sh,ps1}`` when both do). Not the
skill's own, so not checked: paths in code that is clearly the user's (a fenced block in
a language other than a shell: HCL, YAML, JavaScript, a markdown template), paths in an
illustrative list ("e.g.", "for example", "such as"), paths the line places at the
repository, project or plugin root, a file whose content the code block right after it
shows (a heading or a line ending in ':' naming it), and folder-like words in prose
(``assets/code``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.links import mention_path
from skillkit_core.manifest.markdown import Mention
from skillkit_core.named_tuple import NamedTuple

# Fenced blocks whose paths are commands an agent runs in the skill (no info string
# counts as one too); any other language is code of the user's project.
_SHELL_FENCES = frozenset(
    {"bash", "sh", "shell", "zsh", "fish", "console", "shell-session", "sh-session"}
    | {"powershell", "ps1", "pwsh", "ps", "cmd", "bat", "batch", "terminal", "text"}
)
# What introduces an illustrative list ("Examples:", "e.g."); "the example script" is no
# label, it may name the skill's own file.
_EXAMPLE = r"(?i)\b(?:e\.g\.|for example|for instance|such as|examples?\s*:)"
_ELSEWHERE = (
    r"(?i)\b(?:(?:repository|repo|project|plugin|workspace) root|root of (?:the|your) "
    r"(?:repository|repo|project|plugin|workspace)|your (?:project|repository|repo))\b"
)
_GLOB = re.compile(r"[*?\[]")
_BRACES = re.compile(r"\{([^{}]*)\}")
_MAX_ALTERNATIVES = 64


def _alternatives(path: str) -> list[str]:
    """``path`` with each ``{a,b}`` expanded (``a{1,2}{x,y}``: four paths), at most
    :data:`_MAX_ALTERNATIVES` of them."""
    found = [path]
    while (match := _BRACES.search(found[0])) is not None:
        options = match.group(1).split(",")
        found = [
            f"{item[: match.start()]}{option}{item[match.end() :]}"
            for item in found
            for option in options
        ][:_MAX_ALTERNATIVES]
    return found


def _exists(folder: SkillFolder, path: str) -> bool:
    relative = folder.inside(path)
    if relative is None:
        return True  # outside the folder: not this rule's business
    if _GLOB.search(relative):
        return folder.matches(relative)
    # A file there that cannot be read (a FIFO, a link loop) is reported as unreadable.
    return folder.has_path(relative) or relative in folder.unreadable


def _fence_language(info: str) -> str:
    word = info.split(maxsplit=1)[0] if info.strip() else ""
    return word.strip("{}.").split(",", 1)[0].lower()


def _shows_file(folder: SkillFolder, line: int) -> bool:
    """The line titles a code block that follows it (a heading, or a line ending in ':'
    before a fence): the path it names is the file that block shows."""
    text = folder.lines[line].strip()
    if not (text.startswith("#") or text.endswith(":")):
        return False
    for following in folder.lines[line + 1 : line + 3]:
        if following.strip():
            return following.lstrip().startswith(("```", "~~~"))
    return False


def _label_above(folder: SkillFolder, line: int) -> bool:
    """The nearest non-blank line above introduces examples ("Examples:", "Scripts to
    write, for instance:")."""
    for above in range(line - 1, max(folder.parsed.body_start_line, line - 3) - 1, -1):
        text = folder.lines[above].strip()
        if text:
            return text.endswith(":") and re.search(_EXAMPLE, text) is not None
    return False


class _LineFacts(NamedTuple):
    """What one body line says about the paths on it, read once per line (a line of
    30,000 mentions would otherwise be searched 30,000 times)."""

    example_end: int | None  # where its first "e.g.", "for example", "Examples:" ends
    elsewhere: bool  # it speaks of the repository / project root
    introduced: bool  # an "Examples:" label above it, or it titles a code block


def _line_facts(folder: SkillFolder, line: int) -> _LineFacts:
    text = folder.lines[line]
    # Every alternative of _EXAMPLE ends in a literal character, so a match inside the
    # text before a mention is a match of the whole line that ends there.
    example = re.search(_EXAMPLE, text)
    return _LineFacts(
        example.end() if example else None,
        re.search(_ELSEWHERE, text) is not None,
        _label_above(folder, line) or _shows_file(folder, line),
    )


def _the_users(folder: SkillFolder, mention: Mention, facts: dict[int, _LineFacts]) -> bool:
    """Whether ``mention`` names a path that is not the skill's own (see the module)."""
    if mention.fence is not None and _fence_language(mention.fence) not in ("", *_SHELL_FENCES):
        return True
    line = mention.range.line
    known = facts.get(line)
    if known is None:
        known = facts[line] = _line_facts(folder, line)
    if known.example_end is not None and known.example_end <= mention.range.column:
        return True
    if known.elsewhere or (mention.fence is None and known.introduced):
        return True
    last = mention.path.rsplit("/", 1)[-1]
    return mention.fence is None and not mention.inline and "." not in last


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    facts: dict[int, _LineFacts] = {}
    for mention in folder.body_scan.mentions:
        path = mention_path(mention.path)
        alternatives = _alternatives(path)
        missing = [alt for alt in alternatives if not _exists(folder, alt)]
        if not missing or _the_users(folder, mention, facts):
            continue
        if len(alternatives) > 1:
            verb = "does" if len(missing) == 1 else "do"
            what = f"{', '.join(missing)} {verb} not exist"
        else:
            what = "matches nothing" if _GLOB.search(path) else "does not exist"
        yield RULE.diagnostic(
            f"'{path}' is named here but {what} in the skill folder",
            range=mention.range,
            file=folder.skill_md,
        )


RULE = Rule(
    id="missing-file-reference",
    severity="warning",
    summary="SKILL.md names a file under scripts/, references/ or assets/ that is missing.",
    rationale=(
        "Instructions such as 'run scripts/extract.py' fail at the worst moment, inside an "
        "agent's run, when the script was renamed or never added. Globs and brace lists "
        "are expanded against the folder; paths that belong to the user's project (in "
        "HCL, YAML, JavaScript or other non-shell code blocks, in 'e.g.' lists, at the "
        "repository root, or a file the next code block shows) are not the skill's and "
        "are not reported."
    ),
    bad="Run `python scripts/extract.py` (the file is scripts/extract_text.py)",
    good="Run `python scripts/extract_text.py`",
    check=_check,
    target="manifest",
)

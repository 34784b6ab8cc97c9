"""argument-in-code: Claude Code substitutes ``$1``/``$ARGUMENTS`` inside code blocks too.

When Claude Code loads a skill (``/name`` or its Skill tool) it rewrites the whole body
before the agent reads it, code blocks included: ``$ARGUMENTS`` becomes the argument text
as typed, ``$ARGUMENTS[N]`` and ``$N`` the word at index N of it (from 0), a declared
``$name`` its word (empty when not given). An index with no word is left as written in
recent versions (2.1.251 and 2.1.273, per anthropics/claude-code#94709 and
melodic-software/claude-code-plugins#3540) and became empty in older ones (2.1.118,
anthropics/claude-code#52226). An awk program's ``$1``, a shell function's ``$1`` or a
shell variable named like an argument is then mangled once the skill gets enough words.
Braced forms (``${1}``, awk's ``$(1)``, ``${name}``) are left alone, and so is a
placeholder after a backslash (``\\$1``: Claude Code's escape).

A skill that takes no arguments (no ``arguments`` or ``argument-hint``, no ``$ARGUMENTS``
anywhere, no placeholder in its prose) means none of them for Claude Code, so every one
in its code is reported. In a skill that does take arguments, ``gh issue view $1`` may
well mean the argument: only the
code's own placeholders are reported (an awk, sed or Perl program, a replacement string,
a shell function's body, a variable the block sets itself).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.arguments import ALL, NAME, Placeholder, placeholders
from skillkit_core.manifest.folder import SkillFolder

# What Claude Code replaces is the core's placeholders() (manifest.arguments).
# A placeholder outside code: the skill takes arguments.
_PROSE_PLACEHOLDER = re.compile(r"(?<!\\)\$(?:\d+(?!\w)|ARGUMENTS)")
# Lines whose ``$N`` belongs to a program of their own, not to the skill's arguments.
_OWN_PROGRAM = re.compile(r"\b(?:g?awk|sed|perl)\b|\.replace(?:All)?\s*\(|\bre\.sub\b")
_FUNCTION = re.compile(r"^\s*(?:function\s+[\w-]+|[\w-]+\s*\(\s*\)\s*\{)")


def _takes_arguments(folder: SkillFolder) -> bool:
    if "arguments" in folder.frontmatter or "argument-hint" in folder.frontmatter:
        return True
    if "$ARGUMENTS" in folder.parsed.body:  # as undeclared-argument judges it: even in code
        return True
    scan = folder.body_scan
    for line in range(folder.parsed.body_start_line, len(folder.lines)):
        if line not in scan.code_lines and _PROSE_PLACEHOLDER.search(folder.lines[line]):
            return True
    return False


def _declared(folder: SkillFolder) -> list[str]:
    from skillkit_core.lint.rules.manifest_undeclared_argument import declared_arguments

    return [name for name in declared_arguments(folder) or [] if not name.isdigit()]


def _blocks(folder: SkillFolder) -> Iterator[list[int]]:
    """The lines of each fenced code block of the body (its opening fence first)."""
    block: list[int] = []
    code = folder.body_scan.code_lines
    for line in range(folder.parsed.body_start_line, len(folder.lines)):
        if line in code:
            block.append(line)
        elif block:
            yield block
            block = []
    if block:
        yield block


def _function_lines(texts: list[str]) -> set[int]:
    """The indexes of the lines of ``texts`` that define or lie in a shell function."""
    inside: set[int] = set()
    depth = 0
    for index, text in enumerate(texts):
        if depth > 0 or _FUNCTION.search(text):
            inside.add(index)
            depth = max(0, depth + text.count("{") - text.count("}"))
    return inside


def _sets_variable(lines: list[str], name: str) -> bool:
    """True when the block assigns shell variable ``name`` itself."""
    own = re.compile(
        rf"(?:^|[\s;&|(]){name}\+?=|\b(?:read|local|export|declare|typeset|readonly)\b"
        rf"(?:\s+-\w+)*(?:\s+\w+)*\s+{name}\b|\bfor\s+{name}\s+in\b"
    )
    return any(own.search(text) for text in lines)


def _braced(text: str, found: Placeholder, index: str | None) -> tuple[str, str]:
    """The form Claude Code leaves alone for ``found``, and who reads it so. ``$(1)`` is
    awk's only inside the single quotes of an awk program: outside them the shell reads
    it as a command substitution (``awk -v n="$1"`` passes the shell's own ``$1``)."""
    if index is None:
        return f"${{{found.written[1:]}}}", "the shell"
    if re.search(r"\bg?awk\b", text) and _in_single_quotes(text, found.start):
        return f"$({index})", "awk"
    return f"${{{index}}}", "the shell (and Perl)"


def _in_single_quotes(text: str, end: int) -> bool:
    """Whether a shell reading ``text`` is inside single quotes at column ``end``."""
    single = double = escaped = False
    for char in text[:end]:
        if escaped:
            escaped = False
        elif char == "\\" and not single:
            escaped = True
        elif char == "'" and not double:
            single = not single
        elif char == '"' and not single:
            double = not double
    return single


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok or "$" not in folder.parsed.body:
        return
    takes_arguments = _takes_arguments(folder)
    names = _declared(folder)
    for block in _blocks(folder):
        texts = [folder.lines[line] for line in block[1:]]
        if not any("$" in text for text in texts):
            continue
        in_function = _function_lines(texts)
        own_names = {name for name in [*names, "ARGUMENTS"] if _sets_variable(texts, name)}
        for offset, (line, text) in enumerate(zip(block[1:], texts, strict=True)):
            if "$" not in text:
                continue
            yield from _escapes_lost(folder, line, text)
            own_program = bool(_OWN_PROGRAM.search(text))
            for found in placeholders(text, names):
                if found.kind == NAME:
                    if found.index is None or found.name not in own_names:
                        continue
                    becomes = f"argument {found.index + 1} ('{found.name}' in 'arguments')"
                    yield _diagnostic(folder, line, text, found, becomes, None)
                    continue
                is_whole = found.kind == ALL
                if takes_arguments:
                    mine = (
                        "ARGUMENTS" in own_names
                        if is_whole
                        else own_program or offset in in_function
                    )
                    if not mine or found.written.startswith("$ARGUMENTS["):
                        continue
                becomes = (
                    "the argument text as typed"
                    if is_whole
                    else f"word {found.index + 1} of the arguments when the skill is invoked "
                    f"with {found.index + 1} or more (older versions: with nothing otherwise)"
                )
                digits = None if is_whole else found.written.strip("$ARGUMENTS[]")
                yield _diagnostic(folder, line, text, found, becomes, digits)


# A placeholder behind Claude Code's escape (one backslash).
_ESCAPED = re.compile(r"(?<!\\)\\\$(?:\d+(?!\w)|ARGUMENTS\b)")


def _escapes_lost(folder: SkillFolder, line: int, text: str) -> Iterator[LintDiagnostic]:
    """An escaped placeholder inside double quotes: Claude Code drops the backslash (its
    escape), which the shell needed there, so the shell expands what the agent runs."""
    if "\\$" not in text or '"' not in text:
        return
    for match in _ESCAPED.finditer(text):
        if _unescaped_quotes(text[: match.start()]) % 2 == 0:
            continue  # outside double quotes: the escape is Claude Code's, as meant
        written = match.group(0)
        yield RULE.diagnostic(
            f"Claude Code takes '{written}' as its escape and gives the agent "
            f"'{written[1:]}': inside these double quotes the shell needed that backslash, "
            f"and now expands '{written[1:]}' itself; single-quote that part of the command",
            range=SourceRange(line, match.start(), line, match.end()),
            file=folder.skill_md,
        )


def _unescaped_quotes(text: str) -> int:
    """How many double quotes of ``text`` a shell reads as quotes (not in '…', not \\")."""
    count, single, escaped = 0, False, False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and not single:
            escaped = True
        elif char == "'" and count % 2 == 0:
            single = not single
        elif char == '"' and not single:
            count += 1
    return count


def _diagnostic(
    folder: SkillFolder,
    line: int,
    text: str,
    found: Placeholder,
    becomes: str,
    digits: str | None,
) -> LintDiagnostic:
    written = found.written
    new, reader = _braced(text, found, digits)
    where = SourceRange(line, found.start, line, found.end)
    diagnostic = RULE.diagnostic(
        f"Claude Code replaces '{written}' in this code block with {becomes} before the "
        f"agent reads it; write '{new}' ({reader} reads it as '{written}'; Claude Code "
        "leaves it alone)",
        range=where,
        file=folder.skill_md,
    )
    # A suggestion, not a safe fix: the braced form may mean something else in the
    # block's language (a JavaScript replacement string reads only '$1').
    fix = Fix(f"Write '{new}' (Claude Code leaves it alone)", (TextEdit(where, new),))
    return diagnostic._replace(suggestions=(fix,))


RULE = Rule(
    id="argument-in-code",
    severity="warning",
    summary="A $1, $ARGUMENTS or argument name in a code block that Claude Code would substitute.",
    rationale=(
        "Claude Code substitutes $ARGUMENTS, $ARGUMENTS[N], $N (N counts from 0) and declared "
        "$name everywhere in the body of a skill it loads, code blocks included: invoked as "
        "/first-column name age, awk '{print $1}' reaches the agent as awk '{print age}' "
        "(older versions also emptied a $N with no argument). In a skill that takes no "
        "arguments every such placeholder in code is "
        "reported; in one that does, those that belong to the code itself (an awk, sed or Perl "
        "program, a replacement string, a shell function, a variable the block sets). The "
        "braced forms ${1} (shell, Perl), $(1) (awk) and ${name} are left alone."
    ),
    bad=(
        "---\nname: first-column\ndescription: Print the first column of a table. Use when "
        "asked for a column.\n---\n```bash\nawk '{print $1}' table.txt\n```"
    ),
    good=(
        "---\nname: first-column\ndescription: Print the first column of a table. Use when "
        "asked for a column.\n---\n```bash\nawk '{print $(1)}' table.txt\n```"
    ),
    check=_check,
    target="manifest",
)

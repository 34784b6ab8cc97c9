"""What Claude Code substitutes in a skill's body when it loads the skill with arguments.

Facts, as Claude Code's skills documentation states them (https://code.claude.com/docs/
en/skills, "Pass arguments to skills" and its string substitutions table; the same rules
are restated in https://claude-with-skills.vercel.app/reference/substitution-variables/):

- ``$ARGUMENTS`` is the whole argument string typed after ``/name``, as typed; when the
  body holds no ``$ARGUMENTS``, Claude Code appends ``ARGUMENTS: <value>`` instead;
- ``$ARGUMENTS[N]`` and its shorthand ``$N`` are the N-th argument, 0-based; arguments
  are split at whitespace, with shell-style quotes keeping words together;
- ``$name`` is the argument at the position of ``name`` in the frontmatter's
  ``arguments`` list (a YAML list or a space-separated string);
- a backslash keeps a placeholder as written: ``\\$1`` reaches the agent as ``$1`` (the
  documented escape, confirmed on 2.1.233 in anthropics/claude-code#78759 and on 2.1.251
  in melodic-software/claude-code-plugins#3540; 2.1.118 had none, #52226).

The patterns are those the ``argument-in-code`` rule reports (Claude Code's own:
``\\$(\\d+)(?!\\w)``, ``\\$ARGUMENTS\\[(\\d+)\\]``, ``$ARGUMENTS``, and ``\\$name(?![\\[\\w])``
for declared names).
"""

from __future__ import annotations

import re

from skillkit_core.named_tuple import NamedTuple

ALL = "all"  # $ARGUMENTS
INDEX = "index"  # $N or $ARGUMENTS[N]
NAME = "name"  # $name

_PLACEHOLDER = re.compile(
    r"(?<!\\)\$(?:ARGUMENTS\[(?P<bracket>\d+)\]|(?P<all>ARGUMENTS)(?![\w\[])"
    r"|(?P<number>\d+)(?!\w)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?![\[\w]))"
)


# Digits of an index read as written: Python refuses to convert more than 4,300 digits
# either way (sys.get_int_max_str_digits()), and an index that long names no argument
# anyone types.
MAX_INDEX_DIGITS = 4000


def argument_index(digits: str) -> int:
    """The 0-based index ``$N`` or ``$ARGUMENTS[N]`` writes as ``digits``; an index of more
    than :data:`MAX_INDEX_DIGITS` digits counts as the largest that many digits hold."""
    if len(digits) > MAX_INDEX_DIGITS:
        return 10**MAX_INDEX_DIGITS - 1
    return int(digits)


class Placeholder(NamedTuple):
    """One ``$...`` of a line: ``start``/``end`` are its columns, ``$`` included.

    ``index`` is the 0-based argument it stands for (for a ``$name``, its position in
    ``arguments``; None when the name is not declared or for ``$ARGUMENTS``)."""

    written: str
    start: int
    end: int
    kind: str
    index: int | None = None
    name: str | None = None


def placeholders(line: str, declared: list[str]) -> list[Placeholder]:
    """The placeholders of ``line``, given the names ``arguments`` declares (the
    ``undeclared-argument`` rule's ``declared_arguments``). An undeclared ``$name`` is
    kept (index None) unless it starts upper case, like ``$HOME``."""
    if "$" not in line:
        return []
    found = []
    for match in _PLACEHOLDER.finditer(line):
        start, end, written = match.start(), match.end(), match.group(0)
        if match.group("all"):
            found.append(Placeholder(written, start, end, ALL))
        elif match.group("bracket") is not None or match.group("number") is not None:
            number = argument_index(match.group("bracket") or match.group("number"))
            found.append(Placeholder(written, start, end, INDEX, number))
        else:
            name = match.group("name")
            if name in declared:
                found.append(Placeholder(written, start, end, NAME, declared.index(name), name))
            elif not name[0].isupper():
                found.append(Placeholder(written, start, end, NAME, None, name))
    return found


def placeholder_at(line: str, column: int, declared: list[str]) -> Placeholder | None:
    """The placeholder of ``line`` the column is on (its end included)."""
    return next((p for p in placeholders(line, declared) if p.start <= column <= p.end), None)

"""One exception hierarchy for the whole core.

Every error carries a machine ``code`` and a human message that names what went wrong
and where (skill, step, file). Faces translate them: the CLI into a JSON error result and
an exit code, the language server into a diagnostic, MCP into an ``isError`` result.
"""

from __future__ import annotations


class SkillkitError(Exception):
    """Base of every error the core raises on purpose."""

    code: str = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class SkillDefinitionError(SkillkitError):
    """The author's skill definition is invalid (raised by builders and ``.build()``)."""

    code = "definition"


class SkillRuntimeError(SkillkitError):
    """An author callback misbehaved while the skill ran (bad ``save``, bad ``next``...)."""

    code = "runtime"


class ParamsError(SkillkitError):
    """Skill params failed their schema."""

    code = "params"


class HistoryError(SkillkitError):
    """A history given for replay does not fit the skill."""

    code = "history"


class ReferenceLoadError(SkillkitError):
    """A reference or asset path was refused or could not be read."""

    code = "refs"


class UsageError(SkillkitError):
    """A command line or tool call was malformed."""

    code = "usage"


class UnknownToolError(UsageError):
    """A tool call names a tool the server does not have: the MCP specification lists it
    among protocol errors (``-32602``), not tool execution errors (tools, Error Handling),
    so the MCP faces answer it as one."""

    code = "unknown_tool"


class SessionError(SkillkitError):
    """A session id or session file is unknown, malformed or unsafe."""

    code = "session"


class BuildError(SkillkitError):
    """``skillkit build`` could not produce the skill folder (the previous one is kept)."""

    code = "build"


def where(skill: str | None = None, step: str | None = None) -> str:
    """Format a location prefix such as ``skill 'x', step 'y': ``."""
    parts = []
    if skill:
        parts.append(f"skill '{skill}'")
    if step:
        parts.append(f"step '{step}'")
    return (", ".join(parts) + ": ") if parts else ""

"""Errors of the Agent Skills runtime.

They extend the core hierarchy (:mod:`skillkit_core.errors`), so every face translates them
the usual way; the MCP server turns each into an ``isError`` tool result whose text starts
with the machine ``code``.
"""

from __future__ import annotations

from skillkit_core.errors import ReferenceLoadError, SessionError, SkillkitError, UsageError


class RegistryError(SkillkitError):
    """A skill root cannot be used at all (missing, not a folder, unreadable)."""

    code = "registry"


class UnknownSkillError(SessionError):
    """A tool call named a skill the registry does not have."""

    code = "unknown_skill"


class NoActiveSkillError(SessionError):
    """A read or script run came before any skill was loaded, or named an unloaded one."""

    code = "no_active_skill"


class TooManySkillsError(SessionError):
    """Loading would exceed the cap on simultaneously loaded skills."""

    code = "too_many_skills"


class TooManyRunsError(SessionError):
    """A script run would exceed the cap on scripts running at once in one session."""

    code = "too_many_runs"


class PathRefusedError(ReferenceLoadError):
    """A path given to a tool is absolute, climbs out with ``..`` or escapes via a symlink."""

    code = "path_refused"


class SkillFileError(ReferenceLoadError):
    """A contained path could not be read (missing, too large, not a regular file)."""

    code = "file"


class MissingSkillFileError(SkillFileError):
    """A contained path that does not exist (a resource not found, for MCP)."""


class ScriptError(SkillkitError):
    """A script cannot be started (no interpreter, not executable, not under scripts/)."""

    code = "script"


class ToolArgumentsError(UsageError):
    """A tool call's arguments do not match the tool's input schema."""

    code = "arguments"

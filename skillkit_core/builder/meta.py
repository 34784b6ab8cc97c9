"""Frontmatter and packaging options shared by ``skill()`` and ``reference()``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from skillkit_core.definitions import SkillMeta
from skillkit_core.errors import SkillDefinitionError, where


def caller_file(depth: int = 2) -> str | None:
    """The file of the code that called the builder (for ``references/`` beside it)."""
    import sys

    try:
        return sys._getframe(depth).f_globals.get("__file__")
    except ValueError:
        return None


def check_name(kind: str, name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise SkillDefinitionError(f"{kind}() needs name= as a non-empty string; got {name!r}")
    return name


def _strings(skill: str, field: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise SkillDefinitionError(f"{where(skill)}{field}= must be a string or a list of strings")


def _optional(skill: str, field: str, value: Any, kind: type | tuple[type, ...]) -> Any:
    if value is not None and not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise SkillDefinitionError(f"{where(skill)}{field}= must be a {names}; got {value!r}")
    return value


def make_meta(
    skill: str,
    *,
    description: str | None = None,
    version: str | None = None,
    resolve_version: bool = False,
    triggers: list[str] | tuple[str, ...] | None = None,
    argument_hint: str | None = None,
    arguments: str | list[str] | None = None,
    allowed_tools: str | list[str] | None = None,
    paths: str | list[str] | None = None,
    context: str | None = None,
    license: str | None = None,
    compatibility: str | None = None,
    agent: str | None = None,
    model: str | None = None,
    effort: str | None = None,
    disable_model_invocation: bool | None = None,
    user_invocable: bool | None = None,
    skill_md: str | Callable[[Any], str] | None = None,
    package: Mapping[str, Any] | None = None,
) -> SkillMeta:
    """Check the frontmatter options once, for both builders."""
    if version is not None and resolve_version:
        raise SkillDefinitionError(
            f"{where(skill)}version= and resolve_version=True exclude each other; "
            "give an explicit version or let the build read it from pyproject.toml"
        )
    for field, value in (
        ("description", description),
        ("version", version),
        ("argument_hint", argument_hint),
        ("context", context),
        ("license", license),
        ("compatibility", compatibility),
        ("agent", agent),
        ("model", model),
        ("effort", effort),
    ):
        _optional(skill, field, value, str)
    for field, value in (
        ("disable_model_invocation", disable_model_invocation),
        ("user_invocable", user_invocable),
    ):
        _optional(skill, field, value, bool)
    if skill_md is not None and not (isinstance(skill_md, str) or callable(skill_md)):
        raise SkillDefinitionError(f"{where(skill)}skill_md= must be a string or a callable")
    _optional(skill, "package", package, Mapping)
    return SkillMeta(
        description=description,
        version=version,
        resolve_version=bool(resolve_version),
        triggers=_strings(skill, "triggers", triggers),
        argument_hint=argument_hint,
        arguments=_strings(skill, "arguments", arguments) if arguments is not None else None,
        allowed_tools=_strings(skill, "allowed_tools", allowed_tools),
        paths=_strings(skill, "paths", paths) if paths is not None else None,
        context=context,
        license=license,
        compatibility=compatibility,
        agent=agent,
        model=model,
        effort=effort,
        disable_model_invocation=disable_model_invocation,
        user_invocable=user_invocable,
        skill_md=skill_md,
        package=dict(package) if package is not None else None,
    )

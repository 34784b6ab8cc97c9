"""``reference()``: a skill made only of on-demand topics."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from skillkit_core.builder.meta import caller_file, check_name, make_meta
from skillkit_core.builder.skill import make_topic, strict_default
from skillkit_core.definitions import ReferenceDefinition, SkillMeta, Topic
from skillkit_core.errors import SkillDefinitionError, where


class ReferenceBuilder:
    """Collects topics; ``.build()`` checks and freezes them."""

    def __init__(self, name: str, meta: SkillMeta, source_file: str | None) -> None:
        self._name = name
        self._meta = meta
        self._source_file = source_file
        self._topics: list[Topic] = []

    def topic(self, name: str, *, label: str, content: Any) -> ReferenceBuilder:
        """Add a topic; ``content`` is a string or a lazy ``ctx -> str`` (``ctx.refs``)."""
        self._topics.append(make_topic(self._name, name, label, content))
        return self

    def build(self, *, strict: bool | None = None) -> ReferenceDefinition:
        """Check and freeze the reference skill."""
        problems = []
        if not self._topics:
            problems.append(f"{where(self._name)}a reference skill needs at least one .topic(...)")
        names = [t.name for t in self._topics]
        problems.extend(
            f"{where(self._name)}topic '{n}' is registered twice"
            for n in sorted({n for n in names if names.count(n) > 1})
        )
        if problems and strict_default(strict):
            raise SkillDefinitionError("\n".join(problems))
        return ReferenceDefinition(
            name=self._name,
            topics=tuple(self._topics),
            meta=self._meta,
            source_file=self._source_file,
            problems=tuple(problems),
        )


def reference(
    *,
    name: str,
    description: str,
    version: str | None = None,
    resolve_version: bool = False,
    package: Mapping[str, Any] | None = None,
    triggers: list[str] | None = None,
    skill_md: str | Callable[[Any], str] | None = None,
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
) -> ReferenceBuilder:
    """Start a reference skill. Add ``.topic(...)`` calls and finish with ``.build()``."""
    check_name("reference", name)
    if not isinstance(description, str) or not description.strip():
        raise SkillDefinitionError(f"{where(name)}reference() needs description= as a string")
    meta = make_meta(
        name,
        description=description,
        version=version,
        resolve_version=resolve_version,
        triggers=triggers,
        argument_hint=argument_hint,
        arguments=arguments,
        allowed_tools=allowed_tools,
        paths=paths,
        context=context,
        license=license,
        compatibility=compatibility,
        agent=agent,
        model=model,
        effort=effort,
        disable_model_invocation=disable_model_invocation,
        user_invocable=user_invocable,
        skill_md=skill_md,
        package=package,
    )
    return ReferenceBuilder(name, meta, caller_file())

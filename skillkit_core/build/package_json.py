"""package.json of a built skill, and the version it carries.

Fields: ``name`` (the skill's, or ``package["name"]``), ``version``, ``description``,
``files`` and every other ``package=`` field as given. An existing package.json in the
output folder is merged, not replaced: its fields stay, the skill's ``package=`` fields
override them, and ``name``/``version`` always come from the skill.

``resolve_version=True`` reads the version from the nearest ancestor of the skill's file
that has one: ``pyproject.toml`` (``[project].version``) or ``package.json``
(``"version"``), looked for in that order in each folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import BuildError

Definition = SkillDefinition | ReferenceDefinition

DEFAULT_VERSION = "0.0.0"


def skill_version(definition: Definition, start: Path) -> str:
    """The version to publish: explicit, resolved from project files, or 0.0.0."""
    meta = definition.meta
    if meta.version:
        return meta.version
    if meta.resolve_version:
        return resolve_version(start)
    return DEFAULT_VERSION


def resolve_version(start: Path) -> str:
    """The version of the nearest project file at or above ``start`` (a file or folder)."""
    folder = start if start.is_dir() else start.parent
    for current in (folder.resolve(), *folder.resolve().parents):
        found = _pyproject_version(current / "pyproject.toml")
        if found is None:
            found = _package_json_version(current / "package.json")
        if found is not None:
            return found
    raise BuildError(
        f"resolve_version=True but no pyproject.toml with [project].version and no "
        f"package.json with a version was found at or above {folder}"
    )


def _pyproject_version(path: Path) -> str | None:
    if not path.is_file():
        return None
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise BuildError(f"cannot read {path} for resolve_version: {error}") from None
    project = data.get("project")
    if not isinstance(project, dict):
        return None
    version = project.get("version")
    if isinstance(version, str) and version.strip():
        return version.strip()
    if "version" in project.get("dynamic", ()):
        raise BuildError(
            f"{path} declares a dynamic version, which the build cannot read; give "
            "version= to the skill or a static [project].version"
        )
    return None


def _package_json_version(path: Path) -> str | None:
    if not path.is_file():
        return None
    data = _read_json(path, purpose="resolve_version")
    version = data.get("version")
    return version.strip() if isinstance(version, str) and version.strip() else None


def _read_json(path: Path, *, purpose: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BuildError(f"cannot read {path} ({purpose}): {error}") from None
    if not isinstance(data, dict):
        raise BuildError(f"{path} ({purpose}) must hold a JSON object")
    return data


def package_fields(definition: Definition, version: str, files: list[str]) -> dict[str, Any]:
    """The fields the build writes: defaults first, then the author's ``package=``."""
    package = dict(definition.meta.package or {})
    fields: dict[str, Any] = {"name": package.get("name") or definition.name, "version": version}
    description = definition.meta.description
    if description:
        fields["description"] = description.strip()
    fields["files"] = files
    for key, value in package.items():
        if key not in ("name", "version"):
            fields[key] = value
    return fields


def merged_package_json(
    definition: Definition, version: str, files: list[str], existing: Path | None
) -> str:
    """The package.json text: ``existing`` (if any) merged with the build's fields."""
    generated = package_fields(definition, version, files)
    merged: dict[str, Any] = {}
    if existing is not None and existing.is_file():
        merged.update(_read_json(existing, purpose="the existing package.json to merge with"))
    merged.update(generated)
    try:
        return json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    except (TypeError, ValueError) as error:
        raise BuildError(
            f"skill '{definition.name}': package= holds a value JSON cannot store: {error}"
        ) from None


def default_files(has_references: bool, has_assets: bool) -> list[str]:
    """What an npm package of the skill ships."""
    files = ["SKILL.md", "scripts/", "bin/"]
    if has_references:
        files.append("references/")
    if has_assets:
        files.append("assets/")
    return files

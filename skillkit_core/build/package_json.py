"""package.json of a built skill, and the version it carries.

Fields: ``name`` (the skill's, or ``package["name"]``), ``version``, ``description``,
``files`` and every other ``package=`` field as given. An existing package.json in the
output folder is merged, not replaced: its fields stay, the skill's ``package=`` fields
override them, and ``name``/``version`` always come from the skill.

``resolve_version=True`` reads the version from the nearest ancestor of the skill's file
that has one: ``pyproject.toml`` (``[project].version``) or ``package.json``
(``"version"``), looked for in that order in each folder.

npm takes a package.json only with a semantic version and a URL-friendly name
(docs.npmjs.com, package.json "name" and "version"; validate-npm-package-name): a Python
version (``1.2rc1``, ``2024.1``) is written in its semver form (:func:`npm_version`), a
name npm refuses is a warning when it is the skill's (the spec allows ``café``) and an
error when ``package=`` gave it (:func:`npm_fields`).
"""

from __future__ import annotations

import json
import re
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


_SEMVER_PART = r"(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER = re.compile(
    rf"(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)"
    rf"(?:-{_SEMVER_PART}(?:\.{_SEMVER_PART})*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_PRE_NAMES = {"a": "alpha", "b": "beta", "rc": "rc"}


def npm_version(version: str) -> str:
    """``version`` as npm takes it: itself when it is a semantic version (semver.org 2.0),
    else the semver form of a PEP 440 version (``1.2rc1`` is ``1.2.0-rc.1``, ``1.0.dev3``
    is ``1.0.0-dev.3``, ``1.0.post1`` is ``1.0.0+post.1``); a ``BuildError`` for neither."""
    if _SEMVER.fullmatch(version):
        return version
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except InvalidVersion:
        parsed = None
    if parsed is None or parsed.epoch or len(parsed.release) > 3:
        raise BuildError(
            f"version {version!r} is neither a semantic version (1.2.3) nor a Python one npm's "
            "form can carry; package.json needs one (npm refuses it otherwise): give "
            "version='1.2.3'"
        )
    release = [*parsed.release, 0, 0][:3]
    pre = [_PRE_NAMES[parsed.pre[0]], str(parsed.pre[1])] if parsed.pre else []
    pre += ["dev", str(parsed.dev)] if parsed.dev is not None else []
    build = ["post", str(parsed.post)] if parsed.post is not None else []
    build += parsed.local.split(".") if parsed.local else []
    text = ".".join(map(str, release))
    text += f"-{'.'.join(pre)}" if pre else ""
    return text + (f"+{'.'.join(build)}" if build else "")


# Node's core modules npm refuses as new package names (Node's module.builtinModules),
# those a skill name can spell.
_NODE_CORE = frozenset(
    {
        "assert",
        "buffer",
        "cluster",
        "console",
        "constants",
        "crypto",
        "dgram",
        "dns",
        "domain",
        "events",
        "fs",
        "http",
        "http2",
        "https",
        "inspector",
        "module",
        "net",
        "os",
        "path",
        "process",
        "punycode",
        "querystring",
        "readline",
        "repl",
        "stream",
        "sys",
        "timers",
        "tls",
        "tty",
        "url",
        "util",
        "v8",
        "vm",
        "wasi",
        "zlib",
    }
)
_NPM_PART = re.compile(r"[a-z0-9._-]+")


def npm_name_problem(name: str) -> str | None:
    """Why npm refuses ``name`` for a new package, or ``None`` (validate-npm-package-name:
    the reserved words and core modules, and the leading ``.`` or ``_``, are of the whole
    name: ``@org/http`` is fine)."""
    if len(name) > 214:
        return "it is longer than 214 characters"
    if name in ("node_modules", "favicon.ico") or name in _NODE_CORE:
        return "npm keeps that name (a reserved word or a Node core module)"
    if name != name.lower():
        return "it has capital letters"
    if name.startswith((".", "_")):
        return "it starts with '.' or '_'"
    scope, slash, bare = name[1:].partition("/") if name.startswith("@") else ("", "", name)
    parts = (scope, bare) if slash else (bare,)
    if not all(_NPM_PART.fullmatch(part) for part in parts) or bare.startswith("."):
        return "it may hold only URL-friendly characters (a-z, 0-9, '-', '.', '_')"
    return None


def npm_fields(definition: Definition, version: str) -> tuple[str, list[str]]:
    """The version package.json carries and warnings about what npm would refuse; a
    ``BuildError`` for a ``package=`` name npm refuses (the author chose it)."""
    warnings: list[str] = []
    written = npm_version(version)
    if written != version:
        warnings.append(
            f"package.json carries version {written}, the semantic form of {version} "
            "(npm takes no other)"
        )
    given = (definition.meta.package or {}).get("name")
    name = given or definition.name
    problem = npm_name_problem(str(name))
    if problem and given:
        raise BuildError(f"package= name {name!r} is no name npm takes: {problem}")
    if problem:
        warnings.append(
            f"npm refuses the package name {name!r} ({problem}): npm cannot install or "
            "publish this package.json; give package={'name': ...} to name it for npm"
        )
    return written, warnings


# What npm leaves out of every package whatever `files` says (docs.npmjs.com, package.json
# "files": "Some files are always ignored by default"), by name of a file or folder.
_NPM_ALWAYS_LEFT_OUT = (
    ".git", "CVS", ".svn", ".hg", ".lock-wscript", ".wafpickle-*", ".*.swp", ".DS_Store",
    "._*", "npm-debug.log", ".npmrc", "node_modules", "config.gypi", "*.orig",
    "package-lock.json",
)  # fmt: skip
_NEEDED = ("SKILL.md", "scripts", "bin")


def npm_pack_problems(folder: Path, fields: dict[str, Any]) -> list[str]:
    """What ``npm pack`` of the built ``folder``, whose package.json holds ``fields``,
    would not ship that the skill needs: a
    ``files`` list (given in ``package=``) that leaves out SKILL.md, scripts/ or bin/, a
    ``main`` or ``bin`` naming no file, and files npm always leaves out (``notes.orig``,
    a ``CVS`` folder) that the skill carries."""
    from fnmatch import fnmatchcase

    problems = []
    files = fields.get("files")
    if isinstance(files, list):
        entries = [entry.strip("/") for entry in files if isinstance(entry, str)]
        left_out = [
            needed
            for needed in _NEEDED
            if not any(e == needed or e.startswith(f"{needed}/") or "*" in e for e in entries)
        ]
        if left_out:
            problems.append(
                f"package.json files leaves out {', '.join(left_out)}: npm would not ship it, "
                "and the installed skill could not run"
            )
    named = [fields.get("main")]
    binaries = fields.get("bin")
    named += list(binaries.values()) if isinstance(binaries, dict) else [binaries]
    for path in (p for p in named if isinstance(p, str)):
        if not (folder / path).is_file():
            problems.append(f"package.json names {path}, which the built skill does not have")
    for path in sorted(folder.rglob("*")):
        if any(fnmatchcase(path.name, pattern) for pattern in _NPM_ALWAYS_LEFT_OUT):
            relative = path.relative_to(folder).as_posix()
            problems.append(f"npm leaves {relative} out of every package: rename it to ship it")
    return problems


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

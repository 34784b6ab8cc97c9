"""Native wheels for other platforms: fetched once with pip's download, kept in a cache.

A distribution with compiled code (pydantic-core, rpds-py...) cannot be copied from the
build machine to a pyz meant for another platform or Python. For each target platform and
CPython version the build takes the matching binary wheel instead: from the cache when a
fitting file is already there (no network), else with
``pip download --only-binary=:all: --platform … --python-version …``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from skillkit_core.build.targets import Target, python_tag
from skillkit_core.cache_folder import cache_root as skillkit_cache
from skillkit_core.cache_folder import make_private_folders
from skillkit_core.errors import BuildError

_WHEEL = re.compile(
    r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-(?P<build>\d[^-]*))?"
    r"-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$"
)


def cache_root(explicit: Path | None = None) -> Path:
    """The cache a build keeps downloaded wheels in (its ``wheels`` folder): ``explicit``,
    else skillkit's (:func:`skillkit_core.cache_folder.cache_root`)."""
    return Path(explicit) if explicit is not None else Path(skillkit_cache())


# The folders of the build cache: downloaded wheels, compiled bytecode, zipped members.
CACHE_FOLDERS = ("wheels", "bytecode", "zips")


def private_cache(explicit: Path | None = None) -> Path:
    """:func:`cache_root`, once it and its :data:`CACHE_FOLDERS` are made and no other
    user could change them (:func:`skillkit_core.cache_folder.own_folder`): a wheel or a
    ``.pyc`` planted there would go into every skill built, and run as whoever runs it.
    ``OSError`` (naming what is wrong) otherwise."""
    from skillkit_core.cache_folder import own_folder

    root = Path(own_folder(str(cache_root(explicit))))
    for name in CACHE_FOLDERS:
        own_folder(str(root / name))
    return root


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class WheelName:
    """The parts of a wheel's file name that say where it installs."""

    name: str
    version: str
    pythons: frozenset[str]
    abis: frozenset[str]
    platforms: frozenset[str]

    @classmethod
    def parse(cls, filename: str) -> WheelName | None:
        match = _WHEEL.match(filename)
        if match is None:
            return None
        return cls(
            canonical(match["name"]),
            match["version"],
            frozenset(match["py"].split(".")),
            frozenset(match["abi"].split(".")),
            frozenset(match["plat"].split(".")),
        )

    def fits(self, target: Target, python: str) -> bool:
        """Whether this wheel loads on ``target`` under CPython ``python``."""
        if not any(target.accepts(p) for p in self.platforms):
            return False
        tag = python_tag(python)
        if tag in self.pythons and (tag in self.abis or "abi3" in self.abis):
            return True
        if "abi3" in self.abis:
            return any(_cp_version(p) <= _cp_version(tag) for p in self.pythons if p[:2] == "cp")
        return "none" in self.abis and bool({"py3", "py2.py3"} & self.pythons)


def _cp_version(tag: str) -> int:
    digits = tag[3:]
    return int(digits) if digits.isdigit() else 0


def find_cached(folder: Path, dist: str, version: str, target: Target, python: str) -> Path | None:
    """A wheel of ``dist==version`` in ``folder`` that fits ``target`` and ``python``."""
    if not folder.is_dir():
        return None
    fitting = []
    for path in folder.glob("*.whl"):
        wheel = WheelName.parse(path.name)
        if (
            wheel is not None
            and wheel.name == canonical(dist)
            and wheel.version == version
            and wheel.fits(target, python)
        ):
            fitting.append(path)
    return min(fitting, key=lambda p: (_preference(p, target), p.name)) if fitting else None


def _preference(path: Path, target: Target) -> int:
    for index, platform_tag in enumerate(target.pip_platforms):
        if platform_tag in path.name:
            return index
    return len(target.pip_platforms)


def fetch_wheel(dist: str, version: str, target: Target, python: str, cache: Path) -> Path:
    """The wheel of ``dist==version`` for ``target`` and ``python``, downloaded into the
    cache when it is not there yet; ``BuildError`` when none exists or pip fails."""
    folder = cache / "wheels"
    cached = find_cached(folder, dist, version, target, python)
    if cached is not None:
        return cached
    make_private_folders(str(folder))
    with tempfile.TemporaryDirectory(prefix=".download-", dir=folder) as scratch:
        _pip_download(dist, version, target, python, Path(scratch))
        found = find_cached(Path(scratch), dist, version, target, python)
        if found is None:
            raise BuildError(
                f"pip found no wheel of {dist} {version} for {target.id} / CPython {python}"
            )
        destination = folder / found.name
        shutil.move(str(found), destination)
        return destination


def _pip_download(dist: str, version: str, target: Target, python: str, into: Path) -> None:
    tag = python_tag(python)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--python-version",
        python,
        "--implementation",
        "cp",
        "--abi",
        tag,
        "--abi",
        "abi3",
        "--abi",
        "none",
        "--dest",
        str(into),
    ]
    for platform_tag in target.pip_platforms:
        command += ["--platform", platform_tag]
    command.append(f"{dist}=={version}")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BuildError(f"could not run pip to fetch {dist} for {target.id}: {error}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        detail = lines[-1].strip() if lines else f"pip exited with {done.returncode}"
        if "No module named pip" in done.stderr:
            detail = "pip is not installed in this environment"
        raise BuildError(
            f"no wheel of {dist} {version} for {target.id} / CPython {python}: {detail}"
        )


def wheel_members(path: Path) -> list[tuple[str, bytes]]:
    """The files a wheel installs, as (path relative to site-packages, bytes).

    ``*.data/purelib`` and ``*.data/platlib`` land at the top like pip does; scripts,
    headers, other data and the RECORD file are left out.
    """
    members: list[tuple[str, bytes]] = []
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                name = _installed_name(info.filename)
                if name is None or info.is_dir():
                    continue
                members.append((name, archive.read(info)))
    except (OSError, zipfile.BadZipFile) as error:
        raise BuildError(f"cannot read wheel {path}: {error}") from None
    return sorted(members)


def _installed_name(name: str) -> str | None:
    parts = name.split("/")
    if any(part in ("", "..") for part in parts) or name.startswith("/"):
        return None
    if parts[0].endswith(".data"):
        if len(parts) > 2 and parts[1] in ("purelib", "platlib"):
            return "/".join(parts[2:])
        return None
    if parts[0].endswith(".dist-info") and parts[-1] in ("RECORD", "INSTALLER", "REQUESTED"):
        return None
    return name

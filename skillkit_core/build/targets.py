"""Platforms a skill can be built for, and the wheel tags each one accepts.

A target id is ``<os>-<arch>`` as ``scripts/run`` spells it (``linux-x64``,
``darwin-arm64``...). The same ids name the folders of native code inside a pyz and the
executables of a binary build, so the build and the run-time dispatch agree by
construction.
"""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass

from skillkit_core.errors import BuildError


@dataclass(frozen=True)
class Target:
    """One platform: its id, the pip ``--platform`` values for it (preferred first) and
    the wheel platform tags it can load."""

    id: str
    pip_platforms: tuple[str, ...]
    tag_prefixes: tuple[str, ...]
    tag_suffixes: tuple[str, ...]

    def accepts(self, platform_tag: str) -> bool:
        """Whether a wheel built for ``platform_tag`` loads on this target."""
        if platform_tag == "any":
            return True
        return platform_tag.startswith(self.tag_prefixes) and platform_tag.endswith(
            self.tag_suffixes
        )


# manylinux_2_17 (CentOS 7 era glibc) first so the most portable wheel wins; macOS
# platforms expand downwards in pip, so 11.0 admits every older deployment target.
TARGETS: dict[str, Target] = {
    "linux-x64": Target(
        "linux-x64",
        ("manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_28_x86_64"),
        ("manylinux",),
        ("_x86_64",),
    ),
    "linux-arm64": Target(
        "linux-arm64",
        ("manylinux_2_17_aarch64", "manylinux2014_aarch64", "manylinux_2_28_aarch64"),
        ("manylinux",),
        ("_aarch64",),
    ),
    "darwin-arm64": Target(
        "darwin-arm64", ("macosx_11_0_arm64",), ("macosx_",), ("_arm64", "_universal2")
    ),
    "darwin-x64": Target(
        "darwin-x64", ("macosx_11_0_x86_64",), ("macosx_",), ("_x86_64", "_universal2")
    ),
    "windows-x64": Target("windows-x64", ("win_amd64",), ("win_amd64",), ("",)),
}

DEFAULT_TARGETS: tuple[str, ...] = ("linux-x64", "darwin-arm64")
"""What ``skillkit build`` bundles for when ``--targets`` is not given."""

PYTHON_VERSIONS: tuple[str, ...] = ("3.11", "3.12", "3.13", "3.14")
"""CPython versions a pyz carries native code for by default (``python3`` >= 3.11)."""

_OS_NAMES = {"linux": "linux", "darwin": "darwin", "win32": "windows", "cygwin": "windows"}
_ARCH_NAMES = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def current_target_id() -> str:
    """This machine's target id, whether or not skillkit can build for it."""
    os_name = _OS_NAMES.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    return f"{os_name}-{_ARCH_NAMES.get(machine, machine)}"


def current_python() -> str:
    """This interpreter's ``major.minor``."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def parse_targets(text: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """Target ids from ``--targets`` (comma separated or repeated), checked and de-duplicated;
    ``None`` or empty gives the defaults."""
    if text is None:
        return DEFAULT_TARGETS
    items = [text] if isinstance(text, str) else list(text)
    ids = [part.strip() for item in items for part in item.split(",") if part.strip()]
    if not ids:
        return DEFAULT_TARGETS
    unknown = [t for t in ids if t not in TARGETS]
    if unknown:
        raise BuildError(
            f"unknown target {', '.join(repr(t) for t in unknown)}; "
            f"choose from {', '.join(TARGETS)}"
        )
    return tuple(dict.fromkeys(ids))


def parse_python_versions(text: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """CPython versions from ``--python`` (``3.12`` or ``3.11,3.12``), checked."""
    if text is None:
        return PYTHON_VERSIONS
    items = [text] if isinstance(text, str) else list(text)
    versions = [part.strip() for item in items for part in item.split(",") if part.strip()]
    bad = [v for v in versions if not _is_supported_python(v)]
    if bad:
        raise BuildError(
            f"unsupported Python version {', '.join(repr(v) for v in bad)}; "
            "give CPython versions 3.11 or newer such as 3.12"
        )
    return tuple(dict.fromkeys(versions)) or PYTHON_VERSIONS


def _is_supported_python(text: str) -> bool:
    major, _, minor = text.partition(".")
    return major == "3" and minor.isdigit() and int(minor) >= 11


def python_tag(version: str) -> str:
    """``"3.12"`` → ``"cp312"``."""
    return "cp" + version.replace(".", "")

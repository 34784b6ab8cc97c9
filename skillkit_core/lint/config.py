"""Lint configuration: ``[tool.skillkit]`` in pyproject.toml merged with command-line flags.

Recognised keys (others in the table belong to other commands and are left alone):

- ``select``: rule ids or glob patterns (``name-*``) to report; default every rule;
- ``ignore``: rule ids or patterns never to report;
- ``strict``: treat warnings as failures for the exit code;
- ``severity``: a table mapping rule ids to ``error``, ``warning`` or ``info``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from skillkit_core.errors import UsageError
from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    from skillkit_core.lint.diagnostic import Severity

SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

# Every way TOML can define ``[tool.skillkit]``: a header or dotted key naming
# ``tool.skillkit`` (keys may be quoted), a ``[tool]`` table holding a ``skillkit`` key, an
# inline ``tool = {...}``, or quoted keys spelled with escapes. A pyproject.toml with none
# of these cannot configure skillkit and is not parsed (loading tomllib and parsing cost
# more than checking a dozen skills).
_MAY_CONFIGURE = re.compile(
    r"""tool["']?\s*\.\s*["']?skillkit"""  # [tool.skillkit], tool."skillkit".select = …
    r"""|^\s*\[\s*["']?tool["']?\s*\]"""  # [tool] … skillkit = {…}
    r"""|^\s*["']?tool["']?\s*="""  # tool = { skillkit = {…} }
    r"|\\[uU]",  # "\u0074ool"
    re.M,
)


class ConfigError(UsageError):
    """``[tool.skillkit]`` in pyproject.toml is malformed."""

    code = "config"


class LintConfig(NamedTuple):
    """Which rules to report and how severe their findings are."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    strict: bool = False
    severity: Mapping[str, Severity] = MappingProxyType({})
    source: str | None = None

    def enabled(self, rule_id: str) -> bool:
        """True when ``rule_id`` is selected (or nothing is) and not ignored."""
        if self.select and not _matches(rule_id, self.select):
            return False
        return not _matches(rule_id, self.ignore)

    def apply(self, diagnostics: Iterable[LintDiagnostic]) -> list[LintDiagnostic]:
        """Drop disabled rules' diagnostics and apply severity overrides."""
        kept = []
        for diagnostic in diagnostics:
            if not self.enabled(diagnostic.rule):
                continue
            override = self.severity.get(diagnostic.rule)
            if override and override != diagnostic.severity:
                diagnostic = diagnostic._replace(severity=override)
            kept.append(diagnostic)
        return kept


def _matches(rule_id: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(rule_id, pattern) for pattern in patterns)


def find_pyproject(start: str | PathLike[str]) -> str | None:
    """The path of the nearest pyproject.toml in ``start`` or its parents (``start``
    resolved first)."""
    folder = os.path.realpath(start)
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_config(pyproject: str | PathLike[str] | None, *, given: bool = False) -> LintConfig:
    """Read ``[tool.skillkit]`` from ``pyproject`` (an empty config when absent). A file
    the user ``given`` (``--config``) is always parsed: one that is no TOML is an error,
    where a found pyproject.toml that cannot configure skillkit is skipped unread."""
    if pyproject is None:
        return LintConfig()
    pyproject = os.fspath(pyproject)
    try:
        with open(pyproject, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {pyproject}: {error}") from error
    if not given and not _MAY_CONFIGURE.search(text):
        return LintConfig(source=str(pyproject))
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{pyproject} is not valid TOML: {error}") from error
    table = data.get("tool", {}).get("skillkit", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.skillkit] must be a table")
    where = f"{pyproject} [tool.skillkit]"
    return LintConfig(
        select=_patterns(table.get("select", []), f"{where} select"),
        ignore=_patterns(table.get("ignore", []), f"{where} ignore"),
        strict=_boolean(table.get("strict", False), f"{where} strict"),
        severity=_severities(table.get("severity", {}), f"{where} severity"),
        source=str(pyproject),
    )


def merged(
    config: LintConfig,
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    strict: bool | None = None,
) -> LintConfig:
    """``config`` with command-line values: ``select`` replaces, ``ignore`` adds."""
    return config._replace(
        select=tuple(_split(select)) if select else config.select,
        ignore=config.ignore + tuple(_split(ignore or ())),
        strict=config.strict if strict is None else (strict or config.strict),
    )


def validate_patterns(config: LintConfig, known: Iterable[str]) -> None:
    """Raise :class:`UsageError` for a plain rule id or a pattern matching no rule."""
    from skillkit_core.lint.registry import get_rule

    known = list(known)
    for pattern in (*config.select, *config.ignore, *config.severity):
        if any(char in pattern for char in "*?["):
            if not fnmatch.filter(known, pattern):
                raise UsageError(f"the rule pattern '{pattern}' matches no rule")
        elif pattern not in known:
            get_rule(pattern)  # raises, naming the closest ids


def _split(values: Iterable[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _patterns(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where} must be a list of rule ids")
    return tuple(_split(value))


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false")
    return value


def _severities(value: Any, where: str) -> dict[str, Severity]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of rule id = severity")
    result: dict[str, Severity] = {}
    for rule_id, severity in value.items():
        if severity not in SEVERITIES:
            raise ConfigError(f"{where}.{rule_id} must be one of {', '.join(SEVERITIES)}")
        result[rule_id] = severity
    return result

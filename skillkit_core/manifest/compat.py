"""Will this SKILL.md load? One verdict per consumer, with the reasons, as data.

Consumers differ in what they accept: the strict spec validator (the reference
``skills-ref`` tool) uses a strict YAML subset and only the specification's keys;
claude.ai / API upload also restricts names to ASCII and forbids reserved words and XML
tags; Claude Code loads nearly anything, named after its folder
(:mod:`skillkit_core.manifest.claude_code_loader`); VS Code
requires ``name`` and ``description`` and ignores keys it does not know; Codex and Gemini
CLI read the file their own way (:mod:`skillkit_core.manifest.codex_loader`,
:mod:`skillkit_core.manifest.gemini_loader`, from their loaders' source), and so does
OpenCode (:mod:`skillkit_core.manifest.opencode_loader`, from its behaviour).

Verdicts are computed from the lint diagnostics of the folder plus the parsed SKILL.md,
so they never disagree with what ``skillkit check`` reports (Codex's and Gemini CLI's,
read as they read, may load a file every other consumer refuses).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import (
    ASCII_NAME,
    DESCRIPTION_MAX,
    NAME_MAX,
    SPEC_KEYS,
)
from skillkit_core.named_tuple import NamedTuple


class Consumer(NamedTuple):
    """A program that reads skill folders: ``id`` for machines, ``label`` for people."""

    id: str
    label: str


class HostVerdict(NamedTuple):
    """Whether ``consumer`` loads the skill; ``reasons`` say why not (or what it drops)."""

    consumer: Consumer
    loads: bool
    reasons: tuple[str, ...] = ()


SPEC = Consumer("spec", "strict spec validator")
CLAUDE_API = Consumer("claude-api", "claude.ai / API upload")
CLAUDE_CODE = Consumer("claude-code", "Claude Code")
VSCODE = Consumer("vscode", "VS Code")
CODEX = Consumer("codex", "Codex")
GEMINI_CLI = Consumer("gemini-cli", "Gemini CLI")
OPENCODE = Consumer("opencode", "OpenCode")
CONSUMERS: tuple[Consumer, ...] = (
    SPEC,
    CLAUDE_API,
    CLAUDE_CODE,
    VSCODE,
    CODEX,
    GEMINI_CLI,
    OPENCODE,
)

# What stops even the consumers that read the file their own way: there is none to read.
_NO_FILE = frozenset({"skill-md-missing", "skill-md-unreadable"})
# Diagnostics that stop every consumer: no file, no frontmatter, broken YAML.
_FATAL_RULES = frozenset(
    {
        "skill-md-missing",
        "frontmatter-delimiters",
        "frontmatter-invalid-yaml",
        "frontmatter-not-mapping",
    }
)
# Spec rules whose errors make the strict validator refuse the folder.
_SPEC_ERROR_RULES = frozenset(
    {
        "skill-md-unreadable",
        "frontmatter-duplicate-key",
        "required-field",
        "name-format",
        "name-folder-mismatch",
        "description-length",
        "compatibility-length",
        "metadata-string-map",
    }
)


# How the strict validator's refusals name each YAML feature.
_YAML_FEATURES = {
    "alias": "aliases (*name)",
    "anchor": "anchors (&name)",
    "flow": "flow collections ({...} or [...])",
    "tag": "tags (!tag)",
    "tab": "tabs outside quoted or block values",
}


def host_verdicts(folder: SkillFolder, diagnostics: Iterable[LintDiagnostic]) -> list[HostVerdict]:
    """One :class:`HostVerdict` per consumer in :data:`CONSUMERS` order."""
    found = [d for d in diagnostics if d.file is None or d.file == folder.skill_md]
    fatal = [d for d in found if d.rule in _FATAL_RULES and d.severity == "error"]
    if fatal:
        reasons = tuple(_reason(d) for d in fatal)
        own = {
            CLAUDE_CODE: _claude_code,
            CODEX: _codex,
            GEMINI_CLI: _gemini_cli,
            OPENCODE: _opencode,
        }
        return [
            own[consumer](folder, found)
            if consumer in own
            else HostVerdict(consumer, False, reasons)
            for consumer in CONSUMERS
        ]
    return [verdict(folder, found) for verdict in _VERDICTS]


def spec_verdict(folder: SkillFolder, diagnostics: Iterable[LintDiagnostic]) -> HostVerdict:
    """The strict spec validator's verdict alone."""
    return host_verdicts(folder, diagnostics)[0]


def _reason(diagnostic: LintDiagnostic) -> str:
    where = f"line {diagnostic.range.line + 1}: " if diagnostic.range else ""
    return f"{where}{diagnostic.message} [{diagnostic.rule}]"


def _reasons(found: list[LintDiagnostic], rules: frozenset[str]) -> list[str]:
    """The findings of ``rules`` whatever their severity (each is a refusal)."""
    return [_reason(d) for d in found if d.rule in rules]


# Why skillkit could not read a SKILL.md whole, where some hosts read it anyway: bytes that
# are not UTF-8 (read as U+FFFD), a file over skillkit's 4 MiB (its start is still
# parsed), a link leading out of the folder (not read at all).
_NOT_UTF8 = "not valid UTF-8"
_TOO_LARGE = "is larger than"
_LINKED_OUT = "outside the skill folder"


def _stops(found: list[LintDiagnostic], read_anyway: tuple[str, ...]) -> list[str]:
    """The reasons there is no SKILL.md to read, but those a host reads past."""
    return [
        _reason(d)
        for d in found
        if d.rule in _NO_FILE
        and d.severity == "error"
        and not any(part in d.message for part in read_anyway)
    ]


def _errors(found: list[LintDiagnostic], rules: frozenset[str]) -> list[str]:
    return [_reason(d) for d in found if d.rule in rules and d.severity == "error"]


def _spec(folder: SkillFolder, found: list[LintDiagnostic]) -> HostVerdict:
    reasons = _errors(found, _SPEC_ERROR_RULES)
    extra = sorted(set(folder.parsed.fields) - SPEC_KEYS)
    if extra:
        reasons.append(f"keys outside the specification: {', '.join(extra)}")
    reasons += _reasons(found, frozenset({"skill-md-bom"}))
    # strictyaml merges a ``<<`` key as PyYAML does (tried with skills-ref 0.1.1).
    kinds = sorted({f.kind for f in folder.parsed.yaml_features} - {"merge"})
    if folder.refused_tabs:
        kinds.append("tab")
    if kinds:
        named = ", ".join(_YAML_FEATURES.get(kind, kind) for kind in kinds)
        reasons.append(f"the strict YAML parser refuses {named}")
    return HostVerdict(SPEC, not reasons, tuple(reasons))


def _claude_api(folder: SkillFolder, found: list[LintDiagnostic]) -> HostVerdict:
    reasons = _errors(found, _SPEC_ERROR_RULES - {"name-folder-mismatch"})
    name = folder.text_value("name") or ""
    if name and not ASCII_NAME.fullmatch(name):
        reasons.append(f"name '{name}' must use only a-z, 0-9 and single hyphens")
    reasons += _reasons(found, frozenset({"reserved-name-word", "frontmatter-xml-tag"}))
    extra = sorted(set(folder.parsed.fields) - SPEC_KEYS)
    if extra:
        reasons.append(f"upload accepts only the specification's keys; found {', '.join(extra)}")
    return HostVerdict(CLAUDE_API, not reasons, tuple(reasons))


def _claude_code(folder: SkillFolder, found: list[LintDiagnostic]) -> HostVerdict:
    from skillkit_core.manifest.claude_code_loader import (
        claude_code_reading,
        claude_code_skips,
    )

    if any(_LINKED_OUT in d.message for d in found if d.rule in _NO_FILE):
        return HostVerdict(
            CLAUDE_CODE,
            True,
            (
                "Claude Code follows a SKILL.md linked from outside the folder and loads it "
                "whatever it holds; skillkit does not read it",
            ),
        )
    skips = _stops(found, (_NOT_UTF8, _TOO_LARGE)) or claude_code_skips(
        folder.folder_name, folder.manifest_name, folder.manifest_size
    )
    if skips:
        return HostVerdict(CLAUDE_CODE, False, tuple(skips))
    fatal = any(d.rule in _FATAL_RULES and d.severity == "error" for d in found)
    notes = claude_code_reading(folder.parsed, fatal)
    if fatal:
        return HostVerdict(CLAUDE_CODE, True, tuple(notes))
    notes += _errors(found, frozenset({"claude-code-field"}))
    if not (folder.text_value("description") or "").strip():
        notes.append(
            "no description: Claude Code describes the skill by the first line of its body"
        )
    name = folder.text_value("name")
    if name and name != folder.folder_name:
        notes.append(
            f"Claude Code names the skill after its folder ('{folder.folder_name}'); "
            f"'{name}' is only shown beside it"
        )
    notes += [_reason(d) for d in found if d.rule == "listing-too-long"]
    notes += _claude_code_listing(folder)
    return HostVerdict(CLAUDE_CODE, True, tuple(notes))


def _claude_code_listing(folder: SkillFolder) -> list[str]:
    """When Claude Code leaves a skill it loads out of the model's listing (2.1.332)."""
    from skillkit_core.manifest.claude_code_loader import switch_value

    notes = []
    if switch_value(folder.frontmatter.get("disable-model-invocation")) is True:
        notes.append("disable-model-invocation: Claude Code lists it only for /name, not the model")
    if folder.frontmatter.get("paths"):
        notes.append("paths: Claude Code lists it only once a file matching them is touched")
    return notes


def _vscode(folder: SkillFolder, found: list[LintDiagnostic]) -> HostVerdict:
    rules = {
        "skill-md-unreadable",
        "required-field",
        "name-format",
        "description-length",
        "name-folder-mismatch",
    }
    reasons = _errors(found, frozenset(rules))
    name = folder.text_value("name") or ""
    description = folder.text_value("description") or ""
    if len(name) > NAME_MAX or len(description) > DESCRIPTION_MAX:
        reasons.append("name or description over its length limit")
    return HostVerdict(VSCODE, not reasons, tuple(dict.fromkeys(reasons)))


def _codex(folder: SkillFolder, found: list[LintDiagnostic]) -> HostVerdict:
    from skillkit_core.manifest.codex_loader import codex_refusals, codex_skips

    reasons = (
        _stops(found, (_TOO_LARGE,))
        or codex_skips(folder.folder_name, folder.manifest_name, folder.manifest_is_link)
        or codex_refusals(folder.parsed, folder.folder_name)
    )
    return HostVerdict(CODEX, not reasons, tuple(reasons))


def _gemini_cli(folder: SkillFolder, found: list[LintDiagnostic]) -> HostVerdict:
    from skillkit_core.manifest.gemini_loader import gemini_refusals, gemini_skips

    # Node reads bytes that are not UTF-8 as replacement characters, and files whole.
    reasons = (
        _stops(found, (_NOT_UTF8, _TOO_LARGE))
        or gemini_skips(folder.folder_name, folder.manifest_name)
        or gemini_refusals(folder.parsed)
    )
    return HostVerdict(GEMINI_CLI, not reasons, tuple(reasons))


def _opencode(folder: SkillFolder, found: list[LintDiagnostic]) -> HostVerdict:
    from skillkit_core.manifest.opencode_loader import opencode_reading, opencode_skips

    # Its reader takes bytes that are not UTF-8 as U+FFFD, and files of any size.
    stops = _stops(found, (_NOT_UTF8, _TOO_LARGE)) or opencode_skips(folder.manifest_name)
    if stops:
        return HostVerdict(OPENCODE, False, tuple(stops))
    refusals, notes = opencode_reading(folder.parsed)
    return HostVerdict(OPENCODE, not refusals, tuple(refusals or notes))


_VERDICTS: tuple[Callable[[SkillFolder, list[LintDiagnostic]], HostVerdict], ...] = (
    _spec,
    _claude_api,
    _claude_code,
    _vscode,
    _codex,
    _gemini_cli,
    _opencode,
)

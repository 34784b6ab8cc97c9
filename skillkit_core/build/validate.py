"""Checks around a build: of the definition before bundling, of the folder after.

Before: the builder's own checks (what the Agent Skills spec will refuse, caught while
the message can still name the Python option) plus, at one call site, the linter's
error-level workflow rules. After: the generated folder goes through the project's
manifest validator, the same one ``skillkit check`` runs, so a build never ships a folder
that our own linter rejects; frontmatter keys outside the spec become a warning naming
the consumers that refuse them and those that read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import BuildError
from skillkit_core.lint.diagnostic import LintDiagnostic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skillkit_core.manifest.compat import HostVerdict

Definition = SkillDefinition | ReferenceDefinition

# Findings about the output folder's name, which is the user's -o and not the skill's.
_FOLDER_RULES = frozenset({"name-folder-mismatch"})
# Findings about keys outside the spec: summed up in one warning per build instead.
_KEY_RULES = frozenset({"non-portable-key", "unknown-key"})


def check_definition(definition: Definition, root_dir: Path) -> None:
    """Refuse a definition the build cannot turn into a valid skill folder."""
    from skillkit_core.build.skill_md import full_description
    from skillkit_core.manifest.spec import COMPATIBILITY_MAX, DESCRIPTION_MAX, name_problems

    problems = [f"{p}" for p in definition.problems]
    problems += [f"{p} (skill name '{definition.name}')" for p in name_problems(definition.name)]
    description = full_description(definition)
    if not description:
        problems.append(
            "it has no description; the Agent Skills spec requires one (agents pick skills "
            "by it): pass description= to skill()"
        )
    elif len(description) > DESCRIPTION_MAX:
        problems.append(
            f"its description with triggers appended is {len(description)} characters; the "
            f"spec allows {DESCRIPTION_MAX}"
        )
    compatibility = definition.meta.compatibility
    if compatibility and len(compatibility) > COMPATIBILITY_MAX:
        problems.append(
            f"compatibility= is {len(compatibility)} characters; the spec allows "
            f"{COMPATIBILITY_MAX}"
        )
    problems += [_describe(d) for d in run_workflow_lint(definition, root_dir)]
    if problems:
        listing = "\n".join(f"  - {p}" for p in problems)
        raise BuildError(f"skill '{definition.name}' cannot be built:\n{listing}")


def run_workflow_lint(definition: Definition, root_dir: Path) -> list[LintDiagnostic]:
    """The one place a build runs the linter's workflow rules: their error-level findings.

    Until ``skillkit_core.lint`` offers ``check_skill`` this finds nothing and the
    builder's own checks above stand alone; once it does, its errors stop the build.
    """
    import importlib

    check_skill = getattr(importlib.import_module("skillkit_core.lint"), "check_skill", None)
    if check_skill is None:
        return []
    return [d for d in check_skill(definition, root_dir) if d.severity == "error"]


def _describe(diagnostic: LintDiagnostic) -> str:
    where = f"step '{diagnostic.step}': " if diagnostic.step else ""
    return f"{where}{diagnostic.message} [{diagnostic.rule}]"


@dataclass
class FolderCheck:
    """What the manifest validator said about a built folder."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    diagnostics: list[LintDiagnostic] = field(default_factory=list)


def check_output(folder: Path, extension_keys: tuple[str, ...], skill: str) -> FolderCheck:
    """Validate the built ``folder`` of the skill named ``skill`` against the Agent Skills
    spec."""
    from skillkit_core.lint.check_folder import check_folder

    report = check_folder(folder)
    result = FolderCheck(diagnostics=list(report.diagnostics))
    for diagnostic in report.diagnostics:
        text = _located(diagnostic, folder)
        if diagnostic.rule in _FOLDER_RULES:
            result.warnings.append(
                f"{text}; name the output folder after the skill (-o …/{skill}) or the "
                "strict spec validator and VS Code refuse it"
            )
        elif diagnostic.severity == "error":
            result.errors.append(text)
        elif diagnostic.severity == "warning" and diagnostic.rule not in _KEY_RULES:
            result.warnings.append(text)
    if extension_keys:
        result.warnings.append(_extension_warning(extension_keys, report.hosts))
    return result


def _located(diagnostic: LintDiagnostic, folder: Path) -> str:
    file = Path(diagnostic.file).name if diagnostic.file else "SKILL.md"
    line = f":{diagnostic.range.line + 1}" if diagnostic.range else ""
    return f"{file}{line}: {diagnostic.message} [{diagnostic.rule}]"


def _extension_warning(keys: tuple[str, ...], hosts: list) -> str:
    # A host that refuses the folder for another reason (a folder named unlike the skill)
    # is named by that reason's own warning.
    refuse = [v.consumer.label for v in hosts if not v.loads and _refused_for(v, keys)]
    load = [v.consumer.label for v in hosts if v.loads]
    readers = [label for label in load if label == "Claude Code"]
    ignorers = [label for label in load if label != "Claude Code"]
    text = f"SKILL.md has frontmatter keys outside the Agent Skills spec ({', '.join(keys)})"
    if refuse:
        text += f": {_join(refuse)} {_verb(refuse, 'refuse')} the folder because of them"
    if readers:
        text += f"; {_join(readers)} {_verb(readers, 'read')} them"
    if ignorers:
        text += (
            f"; {_join(ignorers)} {_verb(ignorers, 'load')} the folder and "
            f"{_verb(ignorers, 'ignore')} them"
        )
    return text + ". Leave those options out of skill() for a fully portable skill."


def _refused_for(verdict: HostVerdict, keys: tuple[str, ...]) -> bool:
    return any(key in reason for reason in verdict.reasons for key in keys)


def _verb(names: list[str], verb: str) -> str:
    """``verb`` agreeing with ``names`` (one host: "reads"; several: "read")."""
    return f"{verb}s" if len(names) == 1 else verb


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

"""SKILL.md in the editor: the core's manifest rules on the unsaved text, and what the
frontmatter keys mean (for hover and completion).

The rules read the rest of the folder (scripts, references) from disk, so they run in a
thread, never on the event loop.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from skillkit_core.lint.diagnostic import LintDiagnostic


def lint_skill_md(snapshot: Any) -> list[LintDiagnostic]:
    """Every manifest rule's findings for the folder of ``snapshot``, using its text
    (the core's folder check; its inline suppressions applied)."""
    from skillkit_core.lint.check_folder import check_skill_folder

    folder = os.path.dirname(snapshot.path) if snapshot.path else "."
    return check_skill_folder(folder, text=snapshot.text)


@dataclass(frozen=True)
class KeyDoc:
    """What a frontmatter key means, its limits, and which consumers read it."""

    key: str
    meaning: str
    limits: str = ""
    values: tuple[str, ...] = ()


def key_docs() -> dict[str, KeyDoc]:
    """Documentation of every frontmatter key skillkit knows."""
    from skillkit_core.manifest import spec

    effort = spec.EFFORT_LEVELS
    booleans = ("true", "false")
    docs = [
        KeyDoc(
            "name",
            "The skill's identifier; agents and `/name` commands use it.",
            f"1–{spec.NAME_MAX} characters: lowercase letters, digits and single hyphens, "
            "not at the start or end; must equal the folder's name.",
        ),
        KeyDoc(
            "description",
            "What the skill does and when to use it; hosts show it to the model to pick "
            "skills, so it decides whether the skill is ever used.",
            f"1–{spec.DESCRIPTION_MAX} characters.",
        ),
        KeyDoc("license", "The license of the skill's contents (a name or a bundled file)."),
        KeyDoc(
            "compatibility",
            "Environment requirements: products, system packages, network access.",
            f"At most {spec.COMPATIBILITY_MAX} characters.",
        ),
        KeyDoc(
            "metadata",
            "Extra properties for tools (author, version, ...).",
            "A mapping from strings to strings.",
        ),
        KeyDoc(
            "allowed-tools",
            "Tools the skill may use without asking (experimental in the specification).",
            "Space-separated tool names, e.g. `Read Grep Bash(git:*)`.",
        ),
        KeyDoc("when_to_use", "Extra guidance on when the skill applies, appended to the listing."),
        KeyDoc("argument-hint", "The hint shown after `/name` for the arguments it takes."),
        KeyDoc("arguments", "Names of the arguments the body refers to as `$name`."),
        KeyDoc(
            "disable-model-invocation",
            "When true, only the user can start the skill (with `/name`).",
            values=booleans,
        ),
        KeyDoc(
            "user-invocable",
            "When false, the skill is hidden from the `/` menu.",
            values=booleans,
        ),
        KeyDoc("disallowed-tools", "Tools the skill must not use."),
        KeyDoc(
            "model",
            "The model to use while the skill runs (an alias or a full model name).",
            values=tuple(spec.MODEL_ALIASES),
        ),
        KeyDoc("effort", "The reasoning effort while the skill runs.", values=tuple(effort)),
        KeyDoc(
            "context",
            "`fork` runs the skill in a separate sub-agent context.",
            values=tuple(spec.CONTEXT_VALUES),
        ),
        KeyDoc("agent", "The sub-agent type that runs the skill with `context: fork`."),
        KeyDoc("hooks", "Hooks active while the skill runs."),
        KeyDoc("paths", "Globs of files the skill is about (a list or a comma-separated string)."),
        KeyDoc("shell", "The shell for `!` commands.", values=tuple(spec.SHELL_VALUES)),
        KeyDoc("version", "The skill's version (read by some hosts; not in the specification)."),
        KeyDoc("mode", "VS Code prompt-file mode (not in the specification)."),
    ]
    return {doc.key: doc for doc in docs}


def consumers_of(key: str) -> list[tuple[str, str]]:
    """(consumer, verdict) for one key: who reads it, who ignores it, who refuses it.
    Codex and Gemini CLI read only the keys their loaders take (name, description, and
    Codex's metadata), whatever the specification lists."""
    from skillkit_core.manifest import codex_loader, gemini_loader, spec

    in_spec = key in spec.SPEC_KEYS
    strict = "accepted" if in_spec else "refused (not a specification key)"
    return [
        ("strict spec validator", strict),
        ("claude.ai / API upload", strict),
        ("Claude Code", "read" if in_spec or key in spec.CLAUDE_CODE_KEYS else "ignored"),
        ("VS Code", "read" if in_spec or key in spec.OTHER_HOST_KEYS else "ignored"),
        ("Codex", "read" if key in codex_loader.READS else "ignored"),
        ("Gemini CLI", "read" if key in gemini_loader.READS else "ignored"),
    ]


def key_hover(key: str) -> str | None:
    """Markdown for a hover on frontmatter ``key`` (None for unknown keys)."""
    doc = key_docs().get(key)
    if doc is None:
        return None
    from skillkit_core.manifest import spec

    where = "Agent Skills specification" if key in spec.SPEC_KEYS else "host extension"
    parts = [f"**`{key}`** ({where})", doc.meaning]
    if doc.limits:
        parts.append(f"Limits: {doc.limits}")
    if doc.values:
        parts.append("Values: " + ", ".join(f"`{value}`" for value in doc.values))
    rows = ["| consumer | this key |", "| --- | --- |"]
    rows += [f"| {consumer} | {verdict} |" for consumer, verdict in consumers_of(key)]
    parts.append("\n".join(rows))
    return "\n\n".join(parts)

"""unknown-key: every frontmatter key is one the specification or a known host defines."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import KNOWN_KEYS


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for key, span in folder.parsed.fields.items():
        if key in KNOWN_KEYS:
            continue
        import difflib  # only for a folder that has an unknown key

        close = difflib.get_close_matches(key, sorted(KNOWN_KEYS), n=1, cutoff=0.75)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        yield RULE.diagnostic(
            f"unknown frontmatter key '{key}'{hint}",
            range=span.key_range,
            file=folder.skill_md,
        )


RULE = Rule(
    id="unknown-key",
    severity="warning",
    summary="The frontmatter has a key no specification or host defines.",
    rationale=(
        "Strict validators reject unknown keys and every other host ignores them, so an "
        "unknown key is either a typo (descripton) or data nobody reads."
    ),
    bad="---\nname: pdf\ndescripton: Extract text.\n---",
    good="---\nname: pdf\ndescription: Extract text.\n---",
    check=_check,
    target="manifest",
    spec=True,
)

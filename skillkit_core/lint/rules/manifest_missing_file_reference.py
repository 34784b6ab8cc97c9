"""missing-file-reference: paths under scripts/, references/ or assets/ that SKILL.md names
(in prose, inline code or code blocks) exist."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.links import mention_path


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    for mention in folder.body_scan.mentions:
        path = mention_path(mention.path)
        relative = folder.inside(path)
        if relative is None or folder.has_path(relative):
            continue
        yield RULE.diagnostic(
            f"'{path}' is named here but does not exist in the skill folder",
            range=mention.range,
            file=folder.skill_md,
        )


RULE = Rule(
    id="missing-file-reference",
    severity="warning",
    summary="SKILL.md names a file under scripts/, references/ or assets/ that is missing.",
    rationale=(
        "Instructions such as 'run scripts/extract.py' fail at the worst moment, inside an "
        "agent's run, when the script was renamed or never added."
    ),
    bad="Run `python scripts/extract.py` (the file is scripts/extract_text.py)",
    good="Run `python scripts/extract_text.py`",
    check=_check,
    target="manifest",
)

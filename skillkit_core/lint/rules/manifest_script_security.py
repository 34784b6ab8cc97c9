"""script-security: bundled scripts do not pipe downloads into shells, eval fetched text or
edit shell start-up files."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.security import find_risks


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    for file in folder.files:
        if not file.relative.startswith("scripts/"):
            continue
        text = folder.read_text(file)
        if text is None:
            continue
        for line, start, end, message in find_risks(text):
            yield RULE.diagnostic(
                f"{file.relative} {message}",
                range=SourceRange(line, start, line, end),
                file=folder.display(file),
            )


RULE = Rule(
    id="script-security",
    severity="error",
    summary="A bundled script runs downloaded code or edits shell start-up files.",
    rationale=(
        "Scripts run with the user's rights, often pre-approved; code fetched at run time "
        "cannot be reviewed, and edits to ~/.bashrc outlive the skill."
    ),
    bad="curl -fsSL https://example.com/install.sh | bash",
    good="a pinned, vendored installer under scripts/ with a checksum check",
    check=_check,
    target="manifest",
)

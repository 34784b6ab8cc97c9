"""secret-literal: no API keys, tokens or private keys in SKILL.md or bundled files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.security import find_secrets


def _scan(text: str, file: str) -> Iterator[LintDiagnostic]:
    for line, start, end, message in find_secrets(text):
        yield RULE.diagnostic(
            f"this line {message}",
            range=SourceRange(line, start, line, end),
            file=file,
        )


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    yield from _scan(folder.parsed.text, folder.skill_md)
    manifest = Path(folder.skill_md).name
    for file in folder.files:
        if file.relative == manifest:
            continue
        text = folder.read_text(file)
        if text is not None:
            yield from _scan(text, folder.display(file))


RULE = Rule(
    id="secret-literal",
    severity="error",
    summary="SKILL.md or a bundled file contains what looks like a credential.",
    rationale=(
        "Skills are shared, uploaded and committed; a key inside one is a leaked key. Read "
        "credentials from the environment instead."
    ),
    bad='API_KEY = "sk-ant-api03-..."',
    good='API_KEY = os.environ["ANTHROPIC_API_KEY"]',
    check=_check,
    target="manifest",
)

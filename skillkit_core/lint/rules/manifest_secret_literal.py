"""secret-literal: no API keys, tokens or private keys in SKILL.md or bundled files
(documented placeholders excepted: see :func:`~skillkit_core.manifest.security.is_placeholder`)."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.security import Finding, find_secrets


def _diagnostics(found: list[Finding], file: str) -> Iterator[LintDiagnostic]:
    for line, start, end, message in found:
        yield RULE.diagnostic(
            f"this line {message}",
            range=SourceRange(line, start, line, end),
            file=file,
        )


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    yield from _diagnostics(find_secrets(folder.parsed.text), folder.skill_md)
    manifest = folder.manifest_name
    for file in folder.files:
        if file.relative == manifest:
            continue
        text = folder.read_text(file)
        found = find_secrets(text) if text is not None else []
        if found:  # the path is spelled out only for a file with findings
            yield from _diagnostics(found, folder.display(file))


RULE = Rule(
    id="secret-literal",
    severity="error",
    summary="SKILL.md or a bundled file contains what looks like a credential.",
    rationale=(
        "Skills are shared, uploaded and committed; a key inside one is a leaked key. Read "
        "credentials from the environment instead. Documented placeholders are not "
        "reported: a value that spells out EXAMPLE or a similar word (AWS's "
        "AKIAIOSFODNN7EXAMPLE), a run of X (AIzaXXXX...), a value too regular to be random "
        "(aaaa..., 123456...), an elided private key (...), or a value labelled as an "
        "example on its line or just above it."
    ),
    bad='API_KEY = "sk-ant-api03-..."',
    good='API_KEY = os.environ["ANTHROPIC_API_KEY"]',
    check=_check,
    target="manifest",
)

"""frontmatter-xml-tag: ``name`` and ``description`` hold no XML tags."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import XML_TAG
from skillkit_core.safe_text import shorten


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for key in ("name", "description"):
        tag = XML_TAG.search(folder.text_value(key) or "")
        if tag is None:
            continue
        shown = shorten(tag.group(0), 40)
        yield RULE.diagnostic(
            f"{key} contains the XML tag '{shown}'; claude.ai and the API refuse to upload "
            "a skill whose name or description holds XML tags (write the text plainly)",
            range=folder.value_range(key),
            file=folder.skill_md,
        )


RULE = Rule(
    id="frontmatter-xml-tag",
    severity="warning",
    summary="The name or description contains an XML tag.",
    rationale=(
        "The name and description are put into the agent's system prompt, inside XML; "
        "claude.ai and the API refuse a skill whose name or description holds a tag, so "
        "it never reaches users there. Other hosts load it."
    ),
    bad="description: Extract text from <b>PDF</b> files.",
    good="description: Extract text from PDF files.",
    check=_check,
    target="manifest",
)

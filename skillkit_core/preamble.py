"""The session preamble: sent once, with the first prompt of a run.

It tells the agent how to read the tags that later prompts use and which of its own
tools serves each tag on this host, so step prompts can stay short. The table's shape
(``| Tag | Tool | How to use |``, one row per tag in a fixed order) is part of the
protocol; the wording is ours.
"""

from __future__ import annotations

from skillkit_core.hosts import Handshake
from skillkit_core.primitives.base import PreambleRow
from skillkit_core.primitives.registry import PRIMITIVES, resolve_choices

NO_TOOL = "—"

_SYSTEM_ROW = PreambleRow(
    tag="<system>",
    tool=None,
    how="Standing directives (role, tone, rules). Keep to them for the rest of the run.",
)
_PROMPT_ROW = PreambleRow(
    tag="<prompt>",
    tool=None,
    how="The work for this step. Do it, then answer in the shape the step's schema asks for.",
)
_RENDERED_ROW = PreambleRow(
    tag="<rendered>",
    tool=None,
    how="Output the skill produced itself. Show it to the user exactly as given: "
    "no edits, no summary, no remarks.",
)


def _intro(skill_name: str | None) -> str:
    subject = f"The skill `{skill_name}`" if skill_name else "This skill"
    return (
        f"{subject} is a workflow: it hands you one step at a time, and each step's "
        "instructions arrive inside XML-style tags. The table below says what each tag "
        "asks of you and which of your tools to use for it. Where the Tool column shows "
        f"{NO_TOOL}, work in plain conversation instead. These conventions hold for every "
        "step of this run."
    )


def preamble_rows(handshake: Handshake) -> list[PreambleRow]:
    """The table rows for ``handshake``: system, prompt, each primitive, rendered."""
    choices = resolve_choices(handshake)
    rows = [_SYSTEM_ROW, _PROMPT_ROW]
    rows += [spec.preamble_row(*choices[spec.tag]) for spec in PRIMITIVES]
    rows.append(_RENDERED_ROW)
    return rows


def _cell(text: str) -> str:
    # A literal pipe would end the markdown cell early.
    return text.replace("|", "\\|")


def render_table(rows: list[PreambleRow]) -> str:
    """The rows as the markdown table ``| Tag | Tool | How to use |``."""
    lines = ["| Tag | Tool | How to use |", "| --- | --- | --- |"]
    for row in rows:
        tool = row.tool or NO_TOOL
        lines.append(f"| `{row.tag}` | {_cell(tool)} | {_cell(row.how)} |")
    return "\n".join(lines)


def generate_preamble(
    handshake: Handshake, *, system: str | None = None, skill_name: str | None = None
) -> str:
    """The preamble for a run on ``handshake``'s host, with the skill's ``system``
    text (if any) in front."""
    parts = []
    if system and system.strip():
        parts.append(system.strip())
    parts.append(_intro(skill_name))
    parts.append(render_table(preamble_rows(handshake)))
    return "\n\n".join(parts)

"""What a host loads of a SKILL.md folder at each disclosure tier."""

from pathlib import Path

import pytest

from skillkit_core.manifest.spec import estimate_tokens
from skillkit_core.runtime.prompt import available_skills_from_roots
from skillkit_core.simulate.errors import SimulationError
from skillkit_core.simulate.markdown import tiers_markdown
from skillkit_core.simulate.tiers import codex_line, tier_view

SKILL_MD = """\
---
name: pdf-tools
description: Fill and merge PDF forms. Use when the user mentions PDF forms.
---

# PDF tools

Read `references/forms.md` before filling a form; run `scripts/fill.py`.
"""


@pytest.fixture
def skill_folder(tmp_path):
    folder = tmp_path / "pdf-tools"
    (folder / "references").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "assets").mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "references" / "forms.md").write_text("# Forms\n" + "field rules\n" * 40)
    (folder / "scripts" / "fill.py").write_text("print('filled')\n")
    (folder / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    return folder


def test_tier_one_is_the_runtimes_available_skills_entry(skill_folder) -> None:
    view = tier_view(skill_folder)
    expected, _ = available_skills_from_roots([skill_folder], budget=None)
    assert view.listing == expected.xml
    assert view.listing_tokens == estimate_tokens(expected.xml)
    assert (view.name, view.description) == (
        "pdf-tools",
        "Fill and merge PDF forms. Use when the user mentions PDF forms.",
    )


def test_tier_two_is_the_body_and_tier_three_the_other_files(skill_folder) -> None:
    view = tier_view(skill_folder)
    assert view.body.strip().startswith("# PDF tools")
    assert view.body_tokens == estimate_tokens(view.body)
    files = {r.path: r for r in view.resources}
    assert set(files) == {"assets/logo.png", "references/forms.md", "scripts/fill.py"}
    assert files["assets/logo.png"].tokens is None
    forms = (skill_folder / "references" / "forms.md").read_text()
    assert files["references/forms.md"].tokens == estimate_tokens(forms)
    assert view.resource_tokens == sum(r.tokens or 0 for r in view.resources)


def test_a_skill_a_host_would_skip_still_shows_its_body(tmp_path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: broken\n---\nBody text.\n")
    view = tier_view(folder)
    assert view.listing is None
    assert "would not list this skill" in view.listing_note
    assert "description" in view.listing_note
    assert view.body.strip() == "Body text."


def test_folders_without_a_skill_are_refused(tmp_path) -> None:
    with pytest.raises(SimulationError, match=r"has no SKILL\.md"):
        tier_view(tmp_path)
    with pytest.raises(SimulationError, match="is not a folder"):
        tier_view(tmp_path / "missing")


def test_tier_markdown_names_each_tier_with_its_tokens(skill_folder) -> None:
    view = tier_view(skill_folder)
    text = tiers_markdown(view)
    assert f"## Tier 1: listed at start-up (about {view.listing_tokens} tokens)" in text
    assert f"## Tier 2: loaded when the skill is activated (about {view.body_tokens} tokens" in text
    assert f"## Tier 3: read on demand (about {view.resource_tokens} tokens in all)" in text
    assert "| `assets/logo.png` | 16 | — (binary or large) |" in text


def test_listing_shares_measure_each_hosts_limit(skill_folder) -> None:
    from skillkit_core.manifest.spec import (
        CLAUDE_CODE_LISTING_BUDGET,
        CODEX_DESCRIPTION_SHOWN,
        CODEX_LISTING_BUDGET,
        LISTING_CHARS_MAX,
    )
    from skillkit_core.simulate.tiers import listing_shares

    view = tier_view(skill_folder)
    description = "Fill and merge PDF forms. Use when the user mentions PDF forms."
    claude, codex = view.shares
    assert (claude.host, claude.used, claude.limit) == (
        "claude-code",
        len("pdf-tools") + len(description),
        CLAUDE_CODE_LISTING_BUDGET,
    )
    line = f"- pdf-tools: {description} (file: r1/{skill_folder.name}/SKILL.md)\n"
    assert (codex.host, codex.used, codex.limit, codex.unit) == (
        "codex",
        len(line.encode()),
        CODEX_LISTING_BUDGET,
        "bytes",
    )
    assert claude.percent == round(100 * claude.used / CLAUDE_CODE_LISTING_BUDGET, 1)
    # when_to_use counts for Claude Code, cut with the description at its listing cap.
    long = listing_shares("x", "d" * 1500, "w" * 100, "x")
    assert long[0].used == 1 + LISTING_CHARS_MAX
    assert long[0].measured == "name + description + when_to_use"
    # Codex counts the UTF-8 bytes of its line: the description one line, cut with "...".
    assert codex_line("x", "two\n  lines", "x") == "- x: two lines (file: r1/x/SKILL.md)\n"
    cut = codex_line("x", "d" * 1500, "x")
    assert cut == f"- x: {'d' * (CODEX_DESCRIPTION_SHOWN - 3)}... (file: r1/x/SKILL.md)\n"
    assert listing_shares("é", "é", None, "é")[1].used == len("- é: é (file: r1/é/SKILL.md)\n") + 3
    assert (CODEX_DESCRIPTION_SHOWN, CODEX_LISTING_BUDGET) == (1024, 21760)


def test_a_description_over_the_spec_limit_still_has_its_codex_share(tmp_path: Path) -> None:
    # skillkit's runtime skips it, Codex lists it cut (codex-cli 0.171.0).
    folder = tmp_path / "long"
    folder.mkdir()
    (folder / "SKILL.md").write_text(f"---\nname: long\ndescription: {'d' * 1025}\n---\nB.\n")
    view = tier_view(folder)
    assert view.listing is None
    assert view.listing_note.startswith("skillkit serve and skillkit prompt would not list")
    codex = view.shares[1]
    assert codex.used == len(codex_line("long", "d" * 1025, "long").encode())


def test_tiers_of_unsaved_text_replace_the_saved_skill_md(skill_folder) -> None:
    text = SKILL_MD.replace("Fill and merge PDF forms.", "Fill PDF forms.") + "More.\n" * 10
    view = tier_view(skill_folder, text=text)
    assert view.description == "Fill PDF forms. Use when the user mentions PDF forms."
    assert "More." in view.body and view.body_tokens == estimate_tokens(view.body)
    assert view.shares[0].used == len(view.name) + len(view.description)
    # A broken unsaved frontmatter: no listing, no shares, the body still shown.
    broken = tier_view(skill_folder, text="---\nname: pdf-tools\n---\nBody.\n")
    assert broken.listing is None and broken.shares == []


def test_tier_markdown_and_json_show_the_listing_shares(skill_folder) -> None:
    from skillkit_core.simulate.json_format import to_json

    view = tier_view(skill_folder)
    claude, codex = view.shares
    text = tiers_markdown(view)
    claude_row = f"| claude-code | name + description | {claude.used} | 8000 characters |"
    assert f"{claude_row} {claude.percent}% |" in text
    assert f"| codex | listing line | {codex.used} | 21760 bytes | {codex.percent}% |" in text
    import json

    hosts = json.loads(to_json(view))["tier1"]["hosts"]
    assert hosts[1] == {
        "host": "codex",
        "measured": "listing line",
        "used": codex.used,
        "limit": 21760,
        "unit": "bytes",
        "percent": codex.percent,
    }


def test_an_editors_buffer_not_saved_yet_is_previewed(tmp_path: Path) -> None:
    # The folder has no SKILL.md on disk yet: the preview of the buffer was refused.
    text = "---\nname: fresh\ndescription: New. Use when starting.\n---\n# Fresh\n"
    view = tier_view(tmp_path, text=text)
    assert (view.name, view.description, view.problems) == (
        "fresh",
        "New. Use when starting.",
        [],
    )
    with pytest.raises(SimulationError, match=r"has no SKILL\.md"):
        tier_view(tmp_path)

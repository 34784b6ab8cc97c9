"""``<available_skills>``, ``<active_skills>``, the server instructions and ``skillkit prompt``."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from skillkit_core.runtime.prompt import (
    DEFAULT_BUDGET,
    render_active_skills,
    render_available_skills,
    server_instructions,
)
from skillkit_core.runtime.registry import discover_skills
from tests.golden_util import assert_golden
from tests.runtime.support import SKILLS

ROOTS = [SKILLS / "library", SKILLS / "single", SKILLS / "workflows"]


def portable(text: str) -> str:
    """Golden files must not depend on where the repository is checked out."""
    return text.replace(str(SKILLS.resolve()), "$SKILLS")


def test_available_skills_block_matches_golden() -> None:
    available = render_available_skills(discover_skills(ROOTS))
    assert_golden("runtime/available_skills.xml", portable(available.xml) + "\n")
    assert available.cut == ()


def test_available_skills_is_well_formed_xml_with_escaped_values() -> None:
    record = discover_skills(ROOTS).get("toolbox")
    nasty = replace(record, description='a < b && "c" > d\x01\x0b end', name="x&y")
    xml = render_available_skills([nasty]).xml
    assert "a &lt; b &amp;&amp; &quot;c&quot; &gt; d end" in xml
    root = ET.fromstring(xml)
    skill = root.find("skill")
    assert skill is not None
    assert skill.findtext("name") == "x&y"
    assert skill.findtext("description") == 'a < b && "c" > d end'
    assert skill.findtext("location") == str(record.location)


def test_no_location_leaves_out_location_elements() -> None:
    xml = render_available_skills(discover_skills(ROOTS), include_location=False).xml
    assert "<location>" not in xml
    assert [e.findtext("name") for e in ET.fromstring(xml)] == [
        "toolbox",
        "summarize",
        "single",
        "deploy-flow",
    ]


def test_budget_keeps_the_longest_prefix_that_fits_and_names_what_was_cut() -> None:
    registry = discover_skills(ROOTS)
    full = render_available_skills(registry, budget=None).xml
    # Exactly room for toolbox and summarize plus the closing tag; single does not fit.
    budget = full.index("<skill>\n<name>single") + len("</available_skills>")
    available = render_available_skills(registry, budget=budget)
    assert len(available.xml) == budget
    assert render_available_skills(registry, budget=budget - 1).included == ("toolbox",)
    assert available.included == ("toolbox", "summarize")
    assert available.cut == ("single", "deploy-flow")
    assert available.cut_warning() == (
        f"<available_skills> is limited to {budget} characters: left out 2 skill(s): "
        "single, deploy-flow"
    )
    assert render_available_skills(registry, budget=0).cut == ()  # 0 means no limit


def test_default_budget_is_the_host_seeds_fifteen_thousand_characters() -> None:
    assert DEFAULT_BUDGET == 15_000


def test_active_skills_keep_load_order_and_escape_names() -> None:
    block = render_active_skills([("b-skill", "\n# B\nbody B\n"), ('a"<', "body A")])
    assert block == (
        "<active_skills>\n"
        '<skill name="b-skill">\n# B\nbody B\n</skill>\n'
        '<skill name="a&quot;&lt;">\nbody A\n</skill>\n'
        "</active_skills>"
    )


def test_server_instructions_match_golden() -> None:
    available = render_available_skills(discover_skills(ROOTS))
    text = server_instructions(available, max_active=5)
    assert_golden("runtime/server_instructions.txt", portable(text))


def run_prompt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", "prompt", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_prompt_command_prints_the_block_and_warns_on_stderr() -> None:
    done = run_prompt(*(str(root) for root in ROOTS))
    assert done.returncode == 0, done.stderr
    expected = render_available_skills(discover_skills(ROOTS)).xml
    assert done.stdout == expected + "\n"
    assert "broken-yaml/SKILL.md: skipped: invalid YAML" in done.stderr


def test_prompt_command_budget_and_no_location() -> None:
    done = run_prompt(str(SKILLS / "library"), "--no-location", "--budget", "200")
    assert done.returncode == 0, done.stderr
    assert "<location>" not in done.stdout
    assert "<name>toolbox</name>" in done.stdout
    assert "<name>summarize</name>" not in done.stdout
    assert (
        "warning: <available_skills> is limited to 200 characters: left out 1 skill(s): "
        "summarize" in done.stderr
    )


def test_prompt_command_reports_a_missing_root_without_a_traceback(tmp_path: Path) -> None:
    done = run_prompt(str(tmp_path / "missing"))
    assert done.returncode == 2
    missing = tmp_path / "missing"
    assert done.stderr.strip() == f"error[registry]: skill root {missing} does not exist"

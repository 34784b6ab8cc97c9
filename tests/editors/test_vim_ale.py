"""skillkit's language server in Vim with ALE as a generic LSP client (Debian's vim-nox and
vim-ale, which .ci/run installs), headless in silent Ex mode.

One session (``vim_ale_session.vim``) opens a SKILL.md of the linked-skills workspace with
the ALE configuration of docs/guides/editors.md, waits for the diagnostics in ALE's list,
asks for a hover with ALE's own hover command and for the document links with ALE's
request API.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.editors.headless import run_guide_session

SESSION = Path(__file__).with_name("vim_ale_session.vim")
VIM = shutil.which("vim")
# -N no vi compatibility, -u NONE no vimrc (the session sets what it needs), -i NONE no
# viminfo, -n no swap file, -es silent Ex mode.
HEADLESS = ["-N", "-u", "NONE", "-i", "NONE", "-n", "--not-a-term", "-es"]


def _ale_missing() -> str | None:
    """Why Vim + ALE cannot run here (None when they can)."""
    if VIM is None:
        return "Vim is not installed (Debian vim-nox)"
    probe = subprocess.run(
        [
            VIM,
            *HEADLESS,
            "-c",
            "packadd ale",
            "-c",
            "if !exists('g:loaded_ale') | cq | endif",
            "-c",
            "qall!",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        return "ALE is not installed (Debian vim-ale)"
    return None


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    missing = _ale_missing()
    if missing:
        pytest.skip(missing)
    parent = tmp_path_factory.mktemp("vim")
    command = [VIM, *HEADLESS, "-S", str(SESSION)]
    seen, root = run_guide_session(parent, "Vim (ALE)", "vim", "vimrc", command)
    seen["workspace"] = root
    return seen


def test_the_session_ran_every_stage(session) -> None:
    assert session["errors"] == {}, session["output"]
    assert session["filetype"] == "markdown"
    assert Path(session["root"]) == session["workspace"]  # found by .git


def test_diagnostics_reach_ale(session) -> None:
    (broken,) = [d for d in session["diagnostics"] if d["code"] == "broken-link"]
    assert broken["text"] == "link target 'references/forms.md' does not exist in the skill folder"
    assert (broken["type"], broken["lnum"], broken["col"]) == ("E", 21, 56)
    assert "yaml-not-strict" in {d["code"] for d in session["diagnostics"]}


def test_hover_on_a_frontmatter_key(session) -> None:
    assert session["hover"].startswith("**`description`** (Agent Skills specification)")
    assert "| Codex | read |" in session["hover"]


def test_document_links_through_ales_request_api(session) -> None:
    targets = {link["target"].rsplit("/skills/", 1)[-1] for link in session["links"]}
    assert {
        "pdf-tools/references/extracting.md",
        "pdf-tools/scripts/extract.py",
        "pdf-tools/assets/table-template.csv",
    } <= targets

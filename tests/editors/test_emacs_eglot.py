"""skillkit's language server in Emacs with Eglot (Debian's emacs-nox and elpa-eglot, which
.ci/run installs), headless with ``emacs --batch``.

One session (``emacs_eglot_session.el``) opens a SKILL.md of the linked-skills workspace
with the Eglot configuration of docs/guides/editors.md, waits for the diagnostics in
Flymake and asks for a hover through Eglot's own eldoc function.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.editors.headless import run_guide_session

SESSION = Path(__file__).with_name("emacs_eglot_session.el")
EMACS = shutil.which("emacs")


def _eglot_missing() -> str | None:
    """Why Emacs + Eglot cannot run here (None when they can)."""
    if EMACS is None:
        return "Emacs is not installed (Debian emacs-nox)"
    probe = subprocess.run(
        [EMACS, "--batch", "--eval", "(require 'eglot)", "--eval", "(require 'markdown-mode)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        said = probe.stderr.strip()[-300:]
        return f"Eglot or markdown-mode is missing (Debian elpa-eglot, elpa-markdown-mode): {said}"
    return None


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    missing = _eglot_missing()
    if missing:
        pytest.skip(missing)
    parent = tmp_path_factory.mktemp("emacs")
    command = [EMACS, "--batch", "-l", str(SESSION)]
    seen, root = run_guide_session(parent, "Emacs (Eglot)", "elisp", "init.el", command)
    seen["root"] = root
    return seen


def test_the_session_ran_every_stage(session) -> None:
    assert session["errors"] == {}, session["output"]
    assert session["major_mode"] == "markdown-mode"


def test_eglot_starts_the_server_for_the_project(session) -> None:
    assert session["server"].startswith("EGLOT (skills/")
    assert Path(session["server_root"]) == session["root"]


def test_diagnostics_reach_flymake(session) -> None:
    by_text = {d["text"]: d for d in session["diagnostics"]}
    (broken,) = [d for text, d in by_text.items() if "[broken-link]" in text]
    assert broken["text"] == (
        "skillkit [broken-link]: link target 'references/forms.md' does not exist in the "
        "skill folder"
    )
    assert (broken["type"], broken["line"]) == ("eglot-error", 21)


def test_hover_on_a_frontmatter_key(session) -> None:
    assert session["hover"].startswith("**`description`** (Agent Skills specification)")
    assert "| Codex | read |" in session["hover"]

"""The documentation site builds in strict mode (broken links and anchors fail it), every
lint rule has its generated page, and every CLI command is in the CLI reference."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from skillkit_core.cli import app
from skillkit_core.lint.registry import RULES

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def _text(page: Path) -> str:
    """The visible text of a built page (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_every_rule_has_its_page_with_the_registry_text(site: Path) -> None:
    for rule in RULES:
        page = site / "rules" / rule.id / "index.html"
        assert page.is_file(), f"no page for {rule.id}"
        text = _text(page)
        # Markdown turns `code` into <code>: compare without the backticks.
        assert rule.summary.replace("`", "") in text and rule.severity in text
        assert rule.bad.strip().splitlines()[0].strip() in text
    index = (site / "rules" / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{rule.id}/"' in index for rule in RULES)


def test_every_cli_command_is_in_the_reference(site: Path) -> None:
    text = _text(site / "reference" / "cli" / "index.html")
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert len(commands) >= 12
    for name in commands:
        assert f"skillkit {name}" in text, name
    # Help texts that name XML tags keep them visible (escaped, not eaten as HTML).
    assert "<available_skills>" in text


def test_the_api_reference_documents_the_public_names(site: Path) -> None:
    text = _text(site / "reference" / "api" / "index.html")
    for name in ("skill", "step", "reference", "run_skill", "mock_model", "check_skill"):
        assert re.search(rf"\b{name}\b", text), name


def test_every_guide_is_built(site: Path) -> None:
    for guide in (ROOT / "docs" / "guides").glob("*.md"):
        assert (site / "guides" / guide.stem / "index.html").is_file(), guide.name
    assert len(list((ROOT / "docs" / "guides").glob("*.md"))) >= 9


def test_every_host_has_its_page_with_names_and_evidence(site: Path) -> None:
    from skillkit_core.hosts import HOSTS

    index = (site / "hosts" / "index.html").read_text(encoding="utf-8")
    for host in HOSTS:
        assert f'href="{host.id}/"' in index, host.id
        text = _text(site / "hosts" / host.id / "index.html")
        for tool in host.tools:
            assert tool in text, (host.id, tool)
        for evidence in host.sources.values():
            assert (evidence.commit or "")[:12] in text and (evidence.url or "") in text
        if host.no_names:
            assert "No tool names are listed" in text

"""Smoke test of the packaged VS Code extension in a real VS Code (code-server, in Chromium).

``editors/vscode/e2e/setup-code-server.sh`` installs code-server 4.100.x once into a cache
folder; this module installs ``skillkit.vsix`` into it, serves it on 127.0.0.1 without auth and
drives it with Playwright (Debian's Chromium, never a downloaded browser). One editor session
opens a copy of the deploy-check example with an unknown step in it and does what an author
would: reads the diagnostic in the Problems panel, hovers a step, applies the quick fix, saves,
and runs "Skill Kit: Simulate Run" from the command palette. A second one, on a copy of the
LSP tests' three linked skills, follows a path of a SKILL.md by its document link (Ctrl+click),
sees a reference file linked too, and renames a skill with F2 on its `/name` in another skill
(folder, name: and every reference, saved). Screenshots (PNG) land in the
pytest tmp folder ``vscode-shots*``; with ``SKILLKIT_UPDATE_SCREENSHOTS=1`` the hover and the
simulation are also copied to ``docs/images/`` (the README's pictures).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]
EXTENSION = ROOT / "editors" / "vscode"
VSIX = EXTENSION / "skillkit.vsix"
SETUP = EXTENSION / "e2e" / "setup-code-server.sh"
EXAMPLE = ROOT / "examples" / "deploy-check" / "deploy_check.py"
IMAGES = ROOT / "docs" / "images"  # the README's pictures
CHROMIUM = "/usr/bin/chromium"
CANNOT_SET_UP = 75  # the set-up script's "not possible here" status

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the set-up is Linux-only"),
    pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed"),
]

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

SETTINGS = """{
  "skillkit.interpreter": %s,
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.colorTheme": "Default Dark Modern",
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "editor.minimap.enabled": false,
  "editor.stickyScroll.enabled": false,
  "editor.hover.delay": 200
}
"""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _vsix_is_stale() -> bool:
    if not VSIX.exists():
        return True
    built = VSIX.stat().st_mtime
    sources = [EXTENSION / "package.json", *(EXTENSION / "src").rglob("*.ts")]
    return any(path.stat().st_mtime > built for path in sources)


@pytest.fixture(scope="module")
def vsix() -> Path:
    """The packaged extension; built with the extension's own `npm run ci` when missing/stale."""
    if _vsix_is_stale():
        if not (EXTENSION / "node_modules" / ".package-lock.json").exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, check=True)
        done = subprocess.run(["npm", "run", "ci"], cwd=EXTENSION, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return VSIX


@functools.cache
def _run_setup() -> subprocess.CompletedProcess[str]:
    # Cached: a skipping module fixture is set up again for every test.
    return subprocess.run(["bash", str(SETUP)], capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def code_server() -> Path:
    """The code-server executable, installed once by the set-up script (cached afterwards)."""
    done = _run_setup()
    if done.returncode == CANNOT_SET_UP:
        pytest.skip(f"code-server cannot be set up here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr[-4000:]
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian package chromium)")
    return Path(done.stdout.strip().splitlines()[-1])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def _serve(code_server: Path, vsix: Path, base: Path, workspace: Path) -> Iterator[dict[str, Any]]:
    """code-server with the extension installed, serving ``workspace`` (user data, extensions
    and a log under ``base``)."""
    user_data, extensions = base / "user-data", base / "extensions"
    (user_data / "User").mkdir(parents=True)
    (user_data / "User" / "settings.json").write_text(SETTINGS % json.dumps(sys.executable))
    env = {
        **os.environ,
        # Keep code-server, the language server and Chromium out of the real home folders.
        "XDG_CONFIG_HOME": str(base / "config"),
        "XDG_DATA_HOME": str(base / "data"),
        "XDG_CACHE_HOME": str(base / "cache"),
    }
    dirs = ["--user-data-dir", str(user_data), "--extensions-dir", str(extensions)]
    installed = subprocess.run(
        [str(code_server), *dirs, "--install-extension", str(vsix)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert any(p.name.startswith("skillkit.skillkit-") for p in extensions.iterdir())

    port = _free_port()
    log = (base / "code-server.log").open("w")
    server = subprocess.Popen(
        [
            str(code_server),
            *dirs,
            "--auth",
            "none",
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            "--disable-getting-started-override",
            str(workspace),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: teardown ends every child with it
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, (base / "code-server.log").read_text()
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "code-server did not start listening"
                time.sleep(0.5)
        yield {"url": f"{url}/?folder={workspace}", "env": env, "base": base}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


@pytest.fixture(scope="module")
def served(
    code_server: Path, vsix: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """code-server with the extension installed, serving a workspace with a broken skill."""
    base = tmp_path_factory.mktemp("code-server")
    workspace = base / "project"
    workspace.mkdir()
    skill_file = workspace / "deploy_check.py"
    skill_file.write_text(EXAMPLE.read_text().replace('next="verify"', 'next="verfy"'))
    with _serve(code_server, vsix, base, workspace) as running:
        yield {**running, "file": skill_file}


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vscode-shots")


@pytest.fixture(scope="module")
def browser(code_server: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium under Playwright, shared by every page of the module (the sync
    API allows one Playwright at a time)."""
    base = tmp_path_factory.mktemp("chromium")
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(base / "config"),
        "XDG_DATA_HOME": str(base / "data"),
        "XDG_CACHE_HOME": str(base / "cache"),
    }
    playwright = sync_api.sync_playwright().start()
    try:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=env)
        try:
            yield launched
        finally:
            launched.close()
    finally:
        playwright.stop()


@pytest.fixture(scope="module")
def page(served: dict[str, Any], browser: Any, shots: Path) -> Iterator[Any]:
    """A Chromium page on the workbench, with the broken skill open in an editor."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.set_default_timeout(30_000)
        page.goto(served["url"])
        with _shot_on_failure(page, shots, "startup"):
            page.wait_for_selector(".monaco-workbench", timeout=90_000)
            row = page.locator(
                ".explorer-folders-view .monaco-list-row", has_text="deploy_check.py"
            )
            row.click(timeout=60_000)
            page.wait_for_selector(".editor-instance .monaco-editor .view-lines")
        yield page
    finally:
        page.close()


@contextlib.contextmanager
def _shot_on_failure(page: Any, shots: Path, name: str) -> Iterator[None]:
    """Save `<name>-failure.png` when the block raises, to see what the editor showed."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            page.screenshot(path=str(shots / f"{name}-failure.png"))
        raise


def _panel_text(page: Any) -> str:
    return page.locator(".markers-panel").inner_text()


# Where to click a row of the Problems panel: on its message, near the start (the middle
# of the row may be the rule's link, which opens the rule's page instead), clear of the
# severity icon before it, which turns into a light bulb that opens the quick fixes once
# the panel knows the problem has some (it took the click in CI runs).
MESSAGE_SPOT = {"x": 160, "y": 10}


def _wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def test_diagnostic_appears_in_the_problems_panel(page: Any, shots: Path) -> None:
    with _shot_on_failure(page, shots, "diagnostics"):
        page.keyboard.press("Control+Shift+M")  # View: Problems
        page.wait_for_selector(".markers-panel")
        _wait_until(lambda: "verfy" in _panel_text(page), 120, "the unknown-step diagnostic")
    text = _panel_text(page)
    assert "step 'choose': next 'verfy' is not a step; did you mean 'verify'?" in text
    assert "unknown-step" in text and "[Ln 53, Col 15]" in text
    page.screenshot(path=str(shots / "diagnostics.png"))


def test_hover_on_a_step_shows_its_rendered_prompt(page: Any, shots: Path) -> None:
    # Selecting the problem reveals line 53 in the editor, and the `choose` step above it.
    problem = page.locator(".markers-panel .monaco-list-row", has_text="unknown-step").first
    step = page.locator(".editor-instance .view-lines span span", has_text='"choose"').first
    hover = page.locator(".monaco-hover:not(.hidden)", has_text="<ask-user")
    with _shot_on_failure(page, shots, "hover"):
        for attempt in range(6):
            try:
                # On a loaded machine the first click may not reveal the line yet: each
                # attempt selects the problem again before hovering the step, once any
                # menu left open (it would take the click) is closed.
                page.keyboard.press("Escape")
                problem.click(position=MESSAGE_SPOT, timeout=10_000)
                page.mouse.move(5, 450)
                step.hover(timeout=10_000)
                hover.first.wait_for(timeout=5_000)
                time.sleep(0.5)  # let the hover finish laying out before the picture
                # Read while it shows: a hover that went away meanwhile is hovered again.
                text = hover.first.inner_text(timeout=5_000)
                break
            except sync_api.TimeoutError:
                if attempt == 5:
                    raise
    assert "step choose" in text and "skill deploy-check" in text
    assert '<ask-user type="structured" question="Which environment?">' in text
    assert '<option value="staging" label="Staging"></option>' in text
    _keep(page, shots / "hover.png", "vscode-hover.png")
    page.mouse.move(5, 450)


def test_quick_fix_then_simulate_run_shows_the_transcript(
    page: Any, served: dict[str, Any], shots: Path
) -> None:
    with _shot_on_failure(page, shots, "quick-fix"):
        problem = page.locator(".markers-panel .monaco-list-row", has_text="unknown-step").first
        fix = page.locator(
            ".context-view .monaco-menu .action-item", has_text="Change 'verfy' to 'verify'"
        )
        for attempt in range(10):  # the panel fetches a problem's quick fixes asynchronously
            page.keyboard.press("Escape")  # a menu left open would take the click
            problem.click(position=MESSAGE_SPOT)
            page.keyboard.press("Control+.")  # quick fixes of the selected problem
            try:
                fix.wait_for(timeout=3_000)
                break
            except sync_api.TimeoutError:
                if attempt == 9:
                    raise
                page.keyboard.press("Escape")
        fix.hover()  # focuses the menu item; a click does not trigger these menus reliably
        page.keyboard.press("Enter")
        lines = page.locator(".editor-instance .view-lines")
        _wait_until(lambda: 'next="verify"' in lines.inner_text(), 10, "the quick fix")
        page.keyboard.press("Control+S")
        _wait_until(lambda: 'next="verify"' in served["file"].read_text(), 15, "the save")
        _wait_until(
            lambda: "No problems have been detected" in _panel_text(page), 60, "a clean lint"
        )

    with _shot_on_failure(page, shots, "simulate"):
        page.keyboard.press("Control+Shift+P")
        page.wait_for_selector(".quick-input-widget input")
        page.keyboard.type("Skill Kit: Simulate Run")
        page.locator(
            ".quick-input-list .monaco-list-row", has_text="Skill Kit: Simulate Run"
        ).first.click()
        transcript = ""

        def shown() -> bool:
            nonlocal transcript
            for frame in page.frames:  # the Markdown preview is a webview: nested iframes
                try:
                    text = frame.evaluate("() => document.body ? document.body.innerText : ''")
                except sync_api.Error:
                    continue
                if "Transcript" in text:
                    transcript = text
                    return True
            return False

        _wait_until(shown, 90, "the simulation transcript in the Markdown preview")
    assert "Simulation of deploy-check on claude-code" in transcript
    assert "1. choose (visit 1)" in transcript
    assert "<ask-user" in transcript
    _keep(page, shots / "simulate.png", "vscode-simulate.png")


def _keep(page: Any, picture: Path, readme_name: str) -> None:
    """Screenshot into the test's folder; with SKILLKIT_UPDATE_SCREENSHOTS=1 also into
    the README's pictures."""
    page.screenshot(path=str(picture))
    if os.environ.get("SKILLKIT_UPDATE_SCREENSHOTS") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(picture, IMAGES / readme_name)


# -- hand-written skills: document links and rename -------------------------------------

LINKED_SKILLS = Path(__file__).parents[1] / "lsp" / "linked_skills"


@pytest.fixture(scope="module")
def served_skills(
    code_server: Path, vsix: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """code-server serving a copy of the three linked skills of the LSP tests."""
    base = tmp_path_factory.mktemp("code-server-skills")
    workspace = base / "skills"
    shutil.copytree(LINKED_SKILLS, workspace)
    with _serve(code_server, vsix, base, workspace) as running:
        yield {**running, "workspace": workspace}


def _quick_open(page: Any, path: str) -> None:
    """Open ``path`` (relative to the workspace) with Quick Open."""
    page.keyboard.press("Control+P")
    page.wait_for_selector(".quick-input-widget input")
    page.keyboard.type(path)
    folder, name = path.rsplit("/", 1)
    # Enter picks the focused row: wait until it is the file asked for, not a recent one.
    focused = page.locator(".quick-input-list .monaco-list-row.focused")
    focused.filter(has_text=name).filter(has_text=folder).wait_for()
    page.keyboard.press("Enter")
    page.locator(".tabs-container .tab.active", has_text=name).wait_for()


def _run_command(page: Any, title: str) -> None:
    page.keyboard.press("Control+Shift+P")
    page.wait_for_selector(".quick-input-widget input")
    page.keyboard.type(title)
    page.locator(".quick-input-list .monaco-list-row", has_text=title).first.click()


@pytest.fixture(scope="module")
def skills_page(served_skills: dict[str, Any], browser: Any, shots: Path) -> Iterator[Any]:
    """A Chromium page on the workbench, with pdf-tools/SKILL.md open."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.set_default_timeout(30_000)
        page.goto(served_skills["url"])
        with _shot_on_failure(page, shots, "skills-startup"):
            page.wait_for_selector(".monaco-workbench", timeout=90_000)
            page.locator(".explorer-folders-view .monaco-list-row").first.wait_for(timeout=60_000)
            _quick_open(page, "pdf-tools/SKILL.md")
            page.wait_for_selector(".editor-instance .monaco-editor .view-lines")
        yield page
    finally:
        page.close()


def _no_hover(page: Any) -> None:
    """Move the pointer off the text and close any hover: a hover left over a token by an
    earlier step takes the next click there (seen once on a loaded CI machine)."""
    page.mouse.move(0, 0)
    page.keyboard.press("Escape")
    page.locator(".monaco-hover:not(.hidden)").first.wait_for(state="hidden", timeout=10_000)


def _link(page: Any, text: str) -> Any:
    """The editor's document-link decoration around ``text``."""
    return page.locator(".editor-instance .view-lines .detected-link", has_text=text).first


def test_skill_md_paths_are_links_that_open_their_file(skills_page: Any, shots: Path) -> None:
    page = skills_page
    with _shot_on_failure(page, shots, "links"):
        # The server's links arrive once it has started: a decoration on each path. (VS
        # Code's Markdown support links [text](target) by itself; plain paths, here in
        # inline code or prose, are linked only by skillkit.)
        _link(page, "scripts/extract.py").wait_for(timeout=120_000)
        _link(page, "assets/table-template.csv").wait_for()
        # The disclosure-tier lens above the frontmatter (shares of the hosts' budgets).
        page.locator(".codelens-decoration", has_text="Claude Code listing budget").wait_for(
            timeout=60_000
        )
        _no_hover(page)
        _link(page, "references/tables.md").click(modifiers=["Control"])
        page.locator(".tabs-container .tab.active", has_text="tables.md").wait_for()
        _quick_open(page, "references/extracting.md")
        # A reference file is the server's too (the extension's document selector).
        _link(page, "scripts/extract.py").wait_for(timeout=60_000)
        page.screenshot(path=str(shots / "links.png"))
        _quick_open(page, "pdf-tools/SKILL.md")


def test_rename_of_a_skill_renames_its_folder_name_and_references(
    skills_page: Any, served_skills: dict[str, Any], shots: Path
) -> None:
    page, root = skills_page, served_skills["workspace"]
    with _shot_on_failure(page, shots, "rename"):
        # A token of line 11's `/report-writer` (the innermost spans are the tokens).
        name = page.locator(".editor-instance .view-lines span span", has_text="report-writer")
        _no_hover(page)
        name.first.click()
        rename_box = page.locator(".rename-box input")
        for attempt in range(5):  # prepareRename needs the server's skill index
            page.keyboard.press("F2")
            try:
                rename_box.wait_for(timeout=5_000)
                break
            except sync_api.TimeoutError:
                if attempt == 4:
                    raise
        assert rename_box.input_value() == "report-writer"
        rename_box.fill("report-builder")
        page.keyboard.press("Enter")
        _wait_until(
            lambda: (root / "report-builder" / "SKILL.md").exists(), 30, "the folder rename"
        )
        _run_command(page, "File: Save All")

        def saved() -> bool:
            texts = [(root / f / "SKILL.md").read_text() for f in ("pdf-tools", "release-notes")]
            renamed = (root / "report-builder" / "SKILL.md").read_text()
            # The editor writes each file in turn (a file it is writing reads empty).
            return all("`/report-builder`" in text for text in texts) and renamed.startswith(
                "---\nname: report-builder\n"
            )

        _wait_until(saved, 30, "the references and the renamed skill to be saved")
        page.screenshot(path=str(shots / "rename.png"))
    assert not (root / "report-writer").exists()
    for caller in ("pdf-tools", "release-notes"):
        assert "report-writer" not in (root / caller / "SKILL.md").read_text()

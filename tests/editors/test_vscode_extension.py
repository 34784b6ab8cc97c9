"""The VS Code extension type-checks, lints, passes its unit tests and packages a .vsix.

Runs the extension's own `npm run ci` (tsc --noEmit, eslint, node unit tests of the pure
modules, vsce package) and then inspects the packaged extension.
"""

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from skill_lsp.settings import SETTING_KEYS

EXTENSION = Path(__file__).parents[2] / "editors" / "vscode"
VSIX = EXTENSION / "skillkit.vsix"

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")


@pytest.fixture(scope="module")
def packaged() -> zipfile.ZipFile:
    if not (EXTENSION / "node_modules" / ".package-lock.json").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, check=True)
    VSIX.unlink(missing_ok=True)
    done = subprocess.run(["npm", "run", "ci"], cwd=EXTENSION, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "# fail 0" in done.stdout
    return zipfile.ZipFile(VSIX)


def test_vsix_holds_the_bundled_client_and_manifest(packaged) -> None:
    names = set(packaged.namelist())
    assert {"extension/dist/extension.js", "extension/package.json"} <= names
    assert not any(name.startswith(("extension/src/", "extension/e2e/")) for name in names)
    bundle = packaged.read("extension/dist/extension.js").decode()
    assert "skill_lsp" in bundle and "vscode-languageclient" not in bundle.split("\n", 1)[0]


def test_manifest_contributes_the_palette_commands_and_settings(packaged) -> None:
    manifest = json.loads(packaged.read("extension/package.json"))
    commands = {c["command"]: c for c in manifest["contributes"]["commands"]}
    assert set(commands) == {
        "skillkit.buildSkill",
        "skillkit.simulateRun",
        "skillkit.previewPrompts",
        "skillkit.checkWorkspace",
        "skillkit.chooseHost",
        "skillkit.restartServer",
        "skillkit.showLogs",
    }
    assert {c["category"] for c in commands.values()} == {"Skill Kit"}
    settings = manifest["contributes"]["configuration"]["properties"]
    # Every setting the server reads (trust is the extension's to say, not a setting).
    for key in set(SETTING_KEYS) - {"workspaceTrusted"}:
        entry = settings[f"skillkit.{key}"]
        assert entry["markdownDescription"] and "default" in entry and "scope" in entry
    assert manifest["capabilities"]["untrustedWorkspaces"]["supported"] == "limited"
    assert manifest["contributes"]["languages"][0]["filenames"] == ["SKILL.md"]

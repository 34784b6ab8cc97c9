"""The host verdicts of ``skillkit check --hosts`` against the real hosts.

Gemini CLI, OpenCode and Codex CLI are installed from npm at pinned versions by
``.ci/run`` (into ``.venv-peers/hosts``; a test skips for a host that is not there). Each
is asked, once, to list the skills of one project holding every case below under
``.agents/skills/`` (no model, no login: ``gemini skills list``, ``opencode debug skill``,
``codex app-server``'s ``skills/list``), and what it lists must be what skillkit's verdict
for that host says loads. The cases are where the hosts' readers differ from the spec's
and from each other (found by running these hosts on several hundred crafted folders).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from skillkit_core.lint.check_folder import check_folder

ROOT = Path(__file__).resolve().parents[3]
BIN = ROOT / ".venv-peers" / "hosts" / "node_modules" / ".bin"

# Folder name -> SKILL.md text ("{name}" is the folder's name). Names are unique, so
# no host drops one case as another's duplicate.
CASES: dict[str, str] = {
    "plain": "---\nname: {name}\ndescription: Does X.\n---\nBody.\n",
    "no-name": "---\ndescription: Does X.\n---\nBody.\n",
    "no-description": "---\nname: {name}\n---\nBody.\n",
    "colon-value": "---\nname: {name}\ndescription: Use when: X\n---\nBody.\n",
    "colon-at-the-end": "---\nname: {name}\ndescription: Ends with:\n---\nBody.\n",
    "flow-map-description": "---\nname: {name}\ndescription: {{a: b}}\n---\nBody.\n",
    "list-description": "---\nname: {name}\ndescription: [a, b]\n---\nBody.\n",
    "byte-order-mark": "\ufeff---\nname: {name}\ndescription: Does X.\n---\nBody.\n",
    "crlf": "---\r\nname: {name}\r\ndescription: Does X.\r\n---\r\nBody.\r\n",
    "indented-close": "---\nname: {name}\ndescription: Does X.\n  ---\nBody.\n",
    "no-close": "---\nname: {name}\ndescription: Does X.\n\n# Title\n",
    "repeated-name": "---\nname: {name}\nname: {name}\ndescription: Does X.\n---\nBody.\n",
    "quoted-repeated-key": (
        '---\n"name": {name}\n"description": A.\n"description": B.\n---\nBody.\n'
    ),
    "quoted-keys-yes": '---\n"name": {name}\n"description": yes\n---\nBody.\n',
    "line-separator": "---\nname: {name}\ndescription: a\u2028b\n---\nBody.\n",
    "next-line-mark": "---\n\x85name: {name}\ndescription: Does X.\n---\nBody.\n",
    "tab-indented-metadata": (
        "---\nname: {name}\ndescription: Does X.\nmetadata:\n\tby: me\n---\nBody.\n"
    ),
    "list-key": "---\nname: {name}\ndescription: Does X.\n[a]: b\n---\nBody.\n",
    "exponent-description": "---\nname: {name}\ndescription: 1e3\n---\nBody.\n",
    "number-name": "---\nname: 123\ndescription: Does X.\n---\nBody.\n",
    "date-description": "---\nname: {name}\ndescription: 2025-01-01\n---\nBody.\n",
    "metadata-text": "---\nname: {name}\ndescription: Does X.\nmetadata: v1\n---\nBody.\n",
    "long-name": f"---\nname: {'n' * 70}\ndescription: Does X.\n---\nBody.\n",
    "other-name": "---\nname: Someone Else\ndescription: Does X.\n---\nBody.\n",
}
# Cases made otherwise than by the text alone.
LOWERCASE_FILE = "lowercase-file"
LINKED_FILE = "linked-file"
DOT_FOLDER = ".dot-folder"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("hosts") / "project"
    skills = project / ".agents" / "skills"
    for name, text in CASES.items():
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(text.format(name=name), newline="")
    plain = CASES["plain"]
    (skills / LOWERCASE_FILE).mkdir()
    (skills / LOWERCASE_FILE / "skill.md").write_text(plain.format(name=LOWERCASE_FILE))
    (skills / LINKED_FILE).mkdir()
    (skills / LINKED_FILE / "REAL.md").write_text(plain.format(name=LINKED_FILE))
    (skills / LINKED_FILE / "SKILL.md").symlink_to("REAL.md")
    (skills / DOT_FOLDER).mkdir()
    (skills / DOT_FOLDER / "SKILL.md").write_text(plain.format(name="dot-folder"))
    subprocess.run(["git", "init", "-q", str(project)], check=True)  # Codex's project root
    return project


def _home(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("XDG_")}
    return {**env, "HOME": str(home), "CODEX_HOME": str(home / ".codex"), "NO_COLOR": "1"}


def _needs(program: str) -> Path:
    path = BIN / program
    if not path.exists():
        pytest.skip(f"{program} is not installed in {BIN} (.ci/run installs it)")
    return path


def _folders(locations: list[str], project: Path) -> set[str]:
    """The case folders of the SKILL.md paths a host listed (its own skills left out)."""
    skills = project / ".agents" / "skills"
    found = set()
    for location in locations:
        path = Path(location)
        if path.parent.parent in (skills, skills.resolve()):
            found.add(path.parent.name)
    return found


def _assert_agrees(consumer: str, listed: set[str], project: Path) -> None:
    skills = project / ".agents" / "skills"
    disagreements = []
    for folder in sorted(skills.iterdir()):
        verdict = next(v for v in check_folder(folder).hosts if v.consumer.id == consumer)
        if verdict.loads != (folder.name in listed):
            disagreements.append((folder.name, folder.name in listed, verdict.reasons))
    assert disagreements == [], f"{consumer}: (case, host lists it, skillkit's reasons)"


def test_gemini_cli_lists_what_its_verdict_loads(project: Path, tmp_path: Path) -> None:
    gemini = _needs("gemini")
    env = {**_home(tmp_path), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    done = subprocess.run(
        [str(gemini), "skills", "list"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    locations = [
        line.split("Location:", 1)[1].strip()
        for line in done.stdout.splitlines()
        if "Location:" in line
    ]
    listed = _folders(locations, project)
    assert "plain" in listed, done.stdout + done.stderr
    _assert_agrees("gemini-cli", listed, project)


def test_opencode_lists_what_its_verdict_loads(project: Path, tmp_path: Path) -> None:
    opencode = _needs("opencode")
    done = subprocess.run(
        [str(opencode), "debug", "skill"],
        cwd=project,
        env=_home(tmp_path),
        capture_output=True,
        text=True,
        timeout=180,
    )
    skills = json.loads(done.stdout)
    listed = _folders([skill.get("location", "") for skill in skills], project)
    assert "plain" in listed, done.stdout + done.stderr
    _assert_agrees("opencode", listed, project)


def test_codex_lists_what_its_verdict_loads(project: Path, tmp_path: Path) -> None:
    codex = _needs("codex")
    env = _home(tmp_path)
    Path(env["CODEX_HOME"]).mkdir(exist_ok=True)
    messages = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "skills/list", "params": {"cwds": [str(project)], "forceReload": True}},
    ]
    with subprocess.Popen(
        [str(codex), "app-server"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        for message in messages:
            server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            server.stdin.flush()
        answer = _answer_to(server.stdout, 2)
        server.stdin.close()
        server.terminate()
    entries = answer["result"]["data"]
    locations = [skill["path"] for entry in entries for skill in entry["skills"]]
    listed = _folders(locations, project)
    assert "plain" in listed, answer
    _assert_agrees("codex", listed, project)


def _answer_to(stdout: object, request_id: int) -> dict:
    for line in stdout:  # type: ignore[attr-defined]
        message = json.loads(line)
        if message.get("id") == request_id:
            return message
    raise AssertionError(f"codex app-server closed without answering request {request_id}")

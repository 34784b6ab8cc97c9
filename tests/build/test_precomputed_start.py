"""A ``start`` served from build-time data answers exactly as the full path does.

In process: ``precomputed_start.serve`` with ``start_data.precompute_start``'s data
against ``protocol.main`` on the same definition, call by call (stdout, stderr, session
file, sidecar). Built: the bundle serves such a start without importing the skill's
module, and its answer is the one a call on the full path gives.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillkit_core.build.start_data import detection_table, precompute_start
from skillkit_core.loader import load_entry
from skillkit_core.protocol import main
from skillkit_core.protocol.precomputed_start import serve
from skillkit_core.protocol.session import _read_cache
from tests.build.conftest import agent_env, build
from tests.protocol.support import DEPLOY_CHECK

DETECT_VARIABLES = sorted({variable for variable, _host, _reason in detection_table()})


@pytest.fixture
def quiet_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No host-detection variable set, whatever runs the tests."""
    for variable in DETECT_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


@pytest.fixture(scope="module")
def deploy_check():
    return load_entry(DEPLOY_CHECK)


def _full(definition, argv: list[str], capfd: pytest.CaptureFixture) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = main(definition, argv, stdout=out, stderr=err)
    return out.getvalue(), capfd.readouterr().err + err.getvalue(), code


def _fast(data, argv: list[str], capfd: pytest.CaptureFixture) -> tuple[str, str, int | None]:
    capfd.readouterr()
    code = serve(data, argv)
    captured = capfd.readouterr()
    return captured.out, captured.err, code


STATELESS_CALLS = [
    [],
    ["start"],
    ["start", "--params", "{}"],
    ["--params", " {} "],
    ["start", "--host", "codex"],
    ["--host", " Claude-Code ", "--params", "{}"],
    ["start", "--host", ""],
    ["start", "--host", "generic"],
]


@pytest.mark.parametrize("argv", STATELESS_CALLS, ids=" ".join)
def test_a_stateless_start_prints_what_the_engine_prints(
    deploy_check, argv: list[str], capfd: pytest.CaptureFixture, quiet_env
) -> None:
    data = precompute_start(deploy_check)
    assert data is not None
    assert _fast(data, argv, capfd) == _full(deploy_check, argv, capfd)


def test_a_detected_host_is_the_one_the_full_path_detects_with_the_same_note(
    deploy_check, capfd: pytest.CaptureFixture, quiet_env
) -> None:
    data = precompute_start(deploy_check)
    table = detection_table()
    for variable, host, _reason in table:
        quiet_env.setenv(variable, "1")
        fast = _fast(data, ["start"], capfd)
        assert fast == _full(deploy_check, ["start"], capfd)
        assert f"skillkit: host: {host} (detected: {variable} is set" in fast[1]
        assert json.loads(fast[0])["preamble"] == json.loads(data["lines"][host])["preamble"]
        quiet_env.delenv(variable)
    # Several set: the first in detection order wins, as in hosts.detect_host.
    quiet_env.setenv(table[-1][0], "1")
    quiet_env.setenv(table[0][0], "1")
    assert _fast(data, [], capfd) == _full(deploy_check, [], capfd)


@pytest.mark.parametrize(
    "extra",
    [[], ["--output-mode", "flag"], ["--host", "opencode", "--params", "{}"]],
    ids=" ".join,
)
def test_a_session_start_writes_the_file_and_sidecar_the_full_path_writes(
    deploy_check, extra: list[str], tmp_path: Path, capfd: pytest.CaptureFixture, quiet_env
) -> None:
    data = precompute_start(deploy_check)
    runs = {}
    for how in ("fast", "full"):
        folder = tmp_path / how
        argv = ["start", "--session", "new", "--session-dir", str(folder), *extra]
        out, err, code = (
            _fast(data, argv, capfd) if how == "fast" else _full(deploy_check, argv, capfd)
        )
        pointer = json.loads(out)
        sid = pointer["sessionId"]
        lines = Path(pointer["file"]).read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        sidecar = folder / f"skill-kit-{sid}.snapshot.json"
        cached = _read_cache(sidecar, sid)
        assert cached is not None, "the sidecar's tag must check out"
        runs[how] = {
            "code": code,
            "err": err,
            "pointer": (list(pointer), pointer["line"], Path(pointer["file"]).parent == folder),
            "out": out.replace(sid, "ID").replace(str(folder), "DIR"),
            "header keys": list(header),
            "header": {k: v for k, v in header.items() if k not in ("sessionId", "createdAt")},
            "result": lines[1:],
            "sidecar": {k: v for k, v in cached.items() if k not in ("sessionId", "blake2b")},
        }
        answer = ["--step", "choose", "--output", '{"target": "production"}']
        advanced = _full(deploy_check, ["advance", "--session", sid, *argv[3:5], *answer], capfd)
        runs[how]["advance"] = advanced
        runs[how]["after"] = Path(pointer["file"]).read_text(encoding="utf-8").splitlines()[2:]
    assert runs["fast"] == runs["full"]


@pytest.mark.parametrize(
    "argv",
    [
        ["advance", "--step", "choose", "--output", "{}"],
        ["start", "--params", '{"env": "staging"}'],
        ["start", "--params", "@params.json"],
        ["start", "--params={}"],
        ["start", "--tools", "a,b"],
        ["start", "--subagent"],
        ["start", "--host", "no-such-host"],
        ["start", "--session", "abc"],
        ["start", "--session-dir", "x"],
        ["start", "--session", "new", "--output-mode", "neither"],
        ["start", "--host", "codex", "--host", "codex"],
        ["start", "--host", "--params"],
        ["start", "extra"],
        ["--help"],
        ["topics"],
    ],
    ids=" ".join,
)
def test_every_other_call_is_left_to_the_full_path_untouched(
    deploy_check, argv: list[str], capfd: pytest.CaptureFixture, quiet_env
) -> None:
    assert _fast(precompute_start(deploy_check), argv, capfd) == ("", "", None)


def test_an_unusable_session_folder_is_left_to_the_full_path(
    deploy_check, tmp_path: Path, capfd: pytest.CaptureFixture, quiet_env
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    argv = ["start", "--session", "new", "--session-dir", str(blocker / "sessions")]
    assert _fast(precompute_start(deploy_check), argv, capfd) == ("", "", None)


SKILL_HEAD = """
from pydantic import BaseModel, Field, field_validator

from skillkit_core import act, skill, terminal


class Answer(BaseModel):
    text: str
"""


@pytest.mark.parametrize(
    ("params", "prompt", "extra"),
    [
        ("", "lambda ctx: 'Go.'", ""),  # the prompt is a function
        ("", "'Go.'", ", observers={'on_step_start': lambda event: None}"),
        ("class P(BaseModel):\n    n: int\n", "'Go.'", ""),  # {} fails
        ("class P(BaseModel):\n    n: list[int] = Field(default_factory=list)\n", "'Go.'", ""),
        (
            "class P(BaseModel):\n    n: int = 1\n\n    @field_validator('n')\n"
            "    @classmethod\n    def check(cls, v):\n        return v\n",
            "'Go.'",
            "",
        ),
        (
            "from typing import Annotated\nfrom pydantic import PlainSerializer\n\n\n"
            "class P(BaseModel):\n"
            "    n: Annotated[int, PlainSerializer(lambda v: v * 2)] = 1\n",
            "'Go.'",
            "",
        ),
    ],
    ids=[
        "prompt function",
        "observer",
        "required param",
        "default factory",
        "validator",
        "annotated serializer",
    ],
)
def test_a_start_that_may_run_author_code_is_not_precomputed(
    tmp_path: Path, params: str, prompt: str, extra: str
) -> None:
    source = (
        SKILL_HEAD
        + params
        + (
            "\n\ndemo = (\n"
            f"    skill(name='demo', entry='ask', description='A demo.'"
            f"{', params=P' if params else ''}{extra})\n"
            f"    .step('ask', prompt={prompt}, response=Answer, next=terminal)\n"
            "    .build()\n)\n"
        )
    )
    entry = tmp_path / "demo.py"
    entry.write_text(source, encoding="utf-8")
    assert precompute_start(load_entry(str(entry))) is None


def test_plain_defaults_and_a_static_primitive_are_precomputed(tmp_path: Path) -> None:
    source = SKILL_HEAD + (
        "class P(BaseModel):\n    n: int = 3\n    tags: list[str] = []\n\n\n"
        "demo = (\n    skill(name='demo', entry='ask', description='A demo.', params=P)\n"
        "    .step('ask', prompt=act.confirm(message='Go?'), response=Answer, next=terminal)\n"
        "    .build()\n)\n"
    )
    entry = tmp_path / "demo.py"
    entry.write_text(source, encoding="utf-8")
    data = precompute_start(load_entry(str(entry)))
    assert data is not None and data["params"] == {"n": 3, "tags": []}


LOUD_SKILL = """
import sys

from pydantic import BaseModel

from skillkit_core import skill, terminal

print("the module was imported", file=sys.stderr)


class Answer(BaseModel):
    text: str


loud = (
    skill(name="loud", entry="ask", description="Says when it is imported.")
    .step("ask", prompt="Say something.", response=Answer, next=terminal)
    .build()
)
"""


def _built_loud_skill(tmp_path: Path, run_cache: Path) -> tuple[Path, dict[str, str]]:
    """:data:`LOUD_SKILL` built, and an agent's environment without host detection."""
    entry = tmp_path / "loud.py"
    entry.write_text(LOUD_SKILL, encoding="utf-8")
    env = agent_env(run_cache)
    for variable in DETECT_VARIABLES:
        env.pop(variable, None)
    return build(str(entry), tmp_path / "built").out_dir, env


def test_a_built_skill_serves_a_plain_start_without_importing_its_module(
    tmp_path: Path, run_cache: Path
) -> None:
    built, env = _built_loud_skill(tmp_path, run_cache)
    run = built / "scripts" / "run"

    def call(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(run), *argv], capture_output=True, text=True, env=env)

    plain = call("start", "--host", "codex")
    # A --tools flag takes the full path (the module is imported), with the same answer.
    full = call("start", "--host", "codex", "--tools", "")
    assert plain.returncode == full.returncode == 0
    assert "the module was imported" not in plain.stderr
    assert "the module was imported" in full.stderr
    assert plain.stdout == full.stdout
    assert json.loads(plain.stdout)["step"] == "ask"


def _cold_loud_pyz(tmp_path: Path, run_cache: Path) -> tuple[Path, dict[str, str]]:
    """The pyz of :func:`_built_loud_skill`, and its environment with warm processes off
    (each call is a cold one)."""
    built, env = _built_loud_skill(tmp_path, run_cache)
    return built / "bin" / "loud.pyz", {**env, "SKILLKIT_WARM": "0"}


def test_a_precomputed_session_start_imports_neither_typing_nor_secrets(
    tmp_path: Path, run_cache: Path
) -> None:
    # What keeps a served start cheap: no pydantic, no typing (the protocol package and
    # the session store import none), no secrets (random and base64 behind it: a session
    # id is os.urandom's, the snapshot key exists after the first session).
    pyz, env = _cold_loud_pyz(tmp_path, run_cache)
    start = ["start", "--session", "new", "--session-dir", str(tmp_path / "sessions")]
    command = [sys.executable, "-I", "-S", "-X", "importtime", str(pyz), *start]
    first = subprocess.run(command, capture_output=True, text=True, env=env)  # unpacks
    assert first.returncode == 0, first.stderr
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["line"] == 2
    imported = _imported(done.stderr)
    assert "skillkit_core.protocol.precomputed_start" in imported
    assert not {"pydantic", "typing", "secrets"} & imported


def test_a_full_path_advance_loads_neither_secrets_nor_the_primitives(
    tmp_path: Path, run_cache: Path
) -> None:
    # pydantic imports secrets (random, OpenSSL behind it) only for its Secret types'
    # comparisons, and a ctx's primitives are loaded when a callback reads ctx.act: an
    # answer to a plain step needs neither.
    pyz, env = _cold_loud_pyz(tmp_path, run_cache)
    folder = ["--session-dir", str(tmp_path / "sessions")]
    started = subprocess.run(
        [sys.executable, "-I", "-S", str(pyz), "start", "--session", "new", *folder],
        capture_output=True,
        text=True,
        env=env,
    )
    assert started.returncode == 0, started.stderr
    session = json.loads(started.stdout)["sessionId"]
    answer = ["--step", "ask", "--output", '{"text": "hi"}']
    command = [sys.executable, "-I", "-S", "-X", "importtime", str(pyz), "advance"]
    done = subprocess.run(
        [*command, "--session", session, *folder, *answer], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "the module was imported" in done.stderr  # the full path
    imported = _imported(done.stderr)
    assert "pydantic" in imported
    assert not {"secrets", "random", "skillkit_core.primitives"} & imported


def _imported(importtime: str) -> set[str]:
    """The modules ``python -X importtime`` reports in ``importtime`` (its stderr)."""
    return {
        line.split("|")[-1].strip()
        for line in importtime.splitlines()
        if line.startswith("import time:")
    }

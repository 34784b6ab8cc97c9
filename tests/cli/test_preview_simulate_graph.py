"""`skillkit preview`, `simulate` and `graph`, run as a user runs them: a subprocess."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.golden_util import GOLDEN_DIR

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_CHECK = str(ROOT / "examples" / "deploy-check" / "deploy_check.py")
HELP_DESK = str(ROOT / "examples" / "help-desk" / "help_desk.py")

BROKEN = """\
from pydantic import BaseModel
from skillkit_core import skill, terminal


class Answer(BaseModel):
    text: str


half = (
    skill(name="half", entry="ask")
    .step("ask", prompt="Ask.", response=Answer, next="nowhere")
    .step("end", prompt="End.", response=Answer, next=terminal)
    .build()
)
"""

FRAGILE = """\
from pydantic import BaseModel
from skillkit_core import branch, skill, terminal


class Flag(BaseModel):
    on: bool


fragile = (
    skill(name="fragile", entry="a")
    .step("a", prompt="Flag?", response=Flag,
          next=[branch("b", when=lambda ctx: ctx.response.missing), branch("b")])
    .step("b", prompt="B.", response=Flag, next=terminal)
    .build()
)
"""


def skillkit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", *args],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def text_of(done: subprocess.CompletedProcess) -> str:
    return done.stdout.decode("utf-8")


def test_preview_prints_the_blessed_markdown() -> None:
    done = skillkit("preview", DEPLOY_CHECK, "--host", "claude-code")
    assert done.returncode == 0, done.stderr
    golden = GOLDEN_DIR / "simulate" / "preview-deploy-check-claude-code.md"
    assert text_of(done) == golden.read_text(encoding="utf-8")


def test_preview_json_with_params_tools_and_one_step() -> None:
    done = skillkit(
        "preview",
        DEPLOY_CHECK,
        "--format",
        "json",
        "--params",
        '{"env": "staging"}',
        "--tools",
        "Read, Bash",
        "--subagent",
        "--step",
        "verify",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["params"], data["paramsSource"]) == ({"env": "staging"}, "given")
    assert (data["tools"], data["subagent"], data["preamble"]) == (["Read", "Bash"], True, None)
    [step] = data["steps"]
    assert step["name"] == "verify" and step["promptKind"] == "dynamic"
    assert step["example"]["store"][0]["step"] == "choose"


def test_preview_of_a_skill_folder_shows_the_tiers() -> None:
    done = skillkit("preview", "tests/runtime/skills/single")
    assert done.returncode == 0, done.stderr
    text = text_of(done)
    assert text.startswith("# Disclosure tiers of `single`")
    assert "<name>single</name>" in text and "SINGLE-BODY-MARKER" in text
    assert "| `references/one.md` |" in text
    data = json.loads(skillkit("preview", "tests/runtime/skills/single", "--format", "json").stdout)
    assert data["tier3"]["files"][0]["path"] == "references/one.md"


def test_preview_of_a_half_written_skill_shows_its_problems(tmp_path) -> None:
    module = tmp_path / "half.py"
    module.write_text(BROKEN)
    done = skillkit("preview", str(module))
    assert done.returncode == 0, done.stderr
    text = text_of(done)
    assert "## Problems" in text and "'nowhere' is not a step" in text
    assert "### `ask` (entry)" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["preview", DEPLOY_CHECK, "--params", "{nope"],
            "error[usage]: --params is not valid JSON",
        ),
        (["preview", DEPLOY_CHECK, "--format", "html"], "error[usage]: --format must be one of md"),
        (["preview", DEPLOY_CHECK, "--step", "ship"], "error[preview]: no step 'ship'"),
        (
            ["preview", DEPLOY_CHECK, "--params", '{"env": "prod"}'],
            "error[params]: skill 'deploy-check': invalid params: env: Input should be 'staging'",
        ),
        (["preview", "missing.py"], "error[entry]: cannot load missing.py"),
        (
            ["simulate", DEPLOY_CHECK, "--choose", "verify"],
            "error[usage]: --choose takes step=value",
        ),
        (["simulate", DEPLOY_CHECK, "--choose", "verify=maybe"], "safe: true, false"),
        (["simulate", DEPLOY_CHECK, "--path", "choose,deploy"], "leads on to 'deploy', the next"),
        (["simulate", DEPLOY_CHECK, "--all-paths", "--run-actions"], "one path at a time"),
        (["graph", DEPLOY_CHECK, "--format", "gif"], "error[usage]: unknown graph format 'gif'"),
        # An empty path was the current folder: `check ''` checked a whole tree, `build -o
        # ''` and `graph -o ''` were refused for what the current folder holds.
        (["simulate", ""], "error[usage]: ENTRY is empty"),
        (["graph", DEPLOY_CHECK, "-o", ""], "error[usage]: --output is empty"),
        (["build", DEPLOY_CHECK, "-o", ""], "error[usage]: --out is empty"),
        (["build", "", "-o", "out"], "error[usage]: ENTRY is empty"),
        (["check", ""], "error[usage]: an empty path names no file or folder"),
        (["prompt", ""], "error[usage]: ROOT is empty"),
        (["serve", ""], "error[usage]: ROOT is empty"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(args, message) -> None:
    done = skillkit(*args)
    assert done.returncode == 2
    assert message in done.stderr.decode("utf-8")
    assert b"Traceback" not in done.stderr


def test_simulate_all_paths_reports_both_branches_and_full_coverage() -> None:
    done = skillkit("simulate", DEPLOY_CHECK, "--all-paths")
    assert done.returncode == 0, done.stderr
    text = text_of(done)
    assert "2 distinct path(s) (every alternative explored)." in text
    assert "| 2 | choose → verify → abort | done | verify: safe=false |" in text
    assert "- Steps: 4 of 4 reached\n- Transitions: 3 of 3 taken" in text


def test_simulate_is_steered_by_choose_path_and_responses(tmp_path) -> None:
    chosen = json.loads(
        skillkit("simulate", DEPLOY_CHECK, "--choose", "verify=false", "--format", "json").stdout
    )
    assert chosen["runs"][0]["path"] == ["choose", "verify", "abort"]
    followed = json.loads(
        skillkit(
            "simulate",
            DEPLOY_CHECK,
            "--path",
            "choose,verify,deploy",
            "--format",
            "json",
            "--seed",
            "3",
        ).stdout
    )
    assert followed["runs"][0]["path"] == ["choose", "verify", "deploy"]
    assert followed["seed"] == 3
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            {
                "choose": {"target": "production"},
                "verify": {"blockers": [], "safe": True},
                "deploy": {"url": "https://prod.example.com"},
            }
        )
    )
    done = skillkit("simulate", DEPLOY_CHECK, "--responses", str(answers), "--host", "codex")
    assert done.returncode == 0, done.stderr
    text = text_of(done)
    assert "# Simulation of `deploy-check` on codex" in text
    assert '- Final output: `{"url": "https://prod.example.com"}`' in text
    assert "It answers (from the responses fixture):" in text


def test_simulate_of_a_composite_routes_into_sub_skills() -> None:
    data = json.loads(
        skillkit(
            "simulate", HELP_DESK, "--choose", "classify=subskill:setup", "--format", "json"
        ).stdout
    )
    assert data["runs"][0]["path"][:2] == ["classify", "setup/configure"]
    assert data["runs"][0]["redirectedTo"] == {"kind": "subskill", "name": "setup"}


def test_a_run_that_ends_in_an_error_exits_1(tmp_path) -> None:
    module = tmp_path / "fragile.py"
    module.write_text(FRAGILE)
    done = skillkit("simulate", str(module))
    assert done.returncode == 1
    assert "### Error" in text_of(done) and "missing" in text_of(done)


MANY_ARROWS = """\
from pydantic import BaseModel
from skillkit_core import branch, skill, terminal


class Pick(BaseModel):
    go: bool


builder = skill(name="many", entry="s0")
for i in range(260):
    builder = builder.step(
        f"s{i}", prompt="Pick.", response=Pick,
        next=[branch(f"s{i + 1}", when=lambda ctx: ctx.response.go), branch("end")],
    )
builder = builder.step("s260", prompt="Go.", next="end")
many = builder.step("end", prompt="End.", next=terminal).build()
"""


def test_graph_warns_when_mermaid_would_refuse_the_arrows(tmp_path) -> None:
    # Mermaid refuses a diagram past its maxEdges (500 by default): "Edge limit exceeded".
    entry = tmp_path / "many.py"
    entry.write_text(MANY_ARROWS)
    mermaid = skillkit("graph", str(entry))
    assert mermaid.returncode == 0 and text_of(mermaid).startswith("flowchart TD\n")
    assert b"warning: the graph has 523 arrows; Mermaid draws at most 500" in mermaid.stderr
    assert skillkit("graph", str(entry), "--format", "dot").stderr == b""


def test_graph_prints_mermaid_and_dot() -> None:
    mermaid = skillkit("graph", DEPLOY_CHECK)
    assert mermaid.returncode == 0 and text_of(mermaid).startswith("flowchart TD\n")
    dot = skillkit("graph", DEPLOY_CHECK, "--format", "dot")
    assert text_of(dot).startswith('digraph "deploy-check" {')


NOISY = """\
import os, sys
print("printed at import")
os.write(1, b"written to descriptor 1\\n")
from pydantic import BaseModel
from skillkit_core import skill, terminal


class Answer(BaseModel):
    text: str


def ask(ctx):
    print("printed by a prompt function")
    return "Ask."


noisy = (
    skill(name="noisy", entry="ask")
    .step("ask", prompt=ask, response=Answer, next="end")
    .step("end", prompt="End.", next=terminal)
    .build()
)
"""


@pytest.mark.parametrize(
    "command",
    [["preview", "--format", "json"], ["simulate", "--format", "json"], ["graph"]],
    ids=["preview", "simulate", "graph"],
)
def test_what_the_skills_code_prints_goes_to_stderr_not_into_the_output(
    tmp_path, command: list[str]
) -> None:
    source = tmp_path / "noisy.py"
    source.write_text(NOISY)
    done = skillkit(command[0], str(source), *command[1:])
    assert done.returncode == 0, done.stderr
    out, err = text_of(done), done.stderr.decode()
    if command[0] == "graph":
        assert out.startswith("flowchart TD")
    else:
        json.loads(out)  # one JSON document, nothing else
    assert "printed at import" in err and "written to descriptor 1" in err
    assert "printed" not in out and "written to" not in out


def test_graph_never_writes_over_the_skills_source(tmp_path) -> None:
    source = tmp_path / "deploy_check.py"
    source.write_bytes(Path(DEPLOY_CHECK).read_bytes())
    (tmp_path / "link.py").symlink_to(source)
    for target in (source, tmp_path / "link.py"):
        done = skillkit("graph", str(source), "-o", str(target))
        assert done.returncode == 2
        assert f"refusing to write over the skill's source {target}" in done.stderr.decode()
    assert source.read_bytes() == Path(DEPLOY_CHECK).read_bytes()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graph_renders_images_through_graphviz(tmp_path) -> None:
    svg = tmp_path / "graph.svg"
    done = skillkit("graph", HELP_DESK, "--format", "svg", "-o", str(svg))
    assert done.returncode == 0 and done.stdout == b""
    assert svg.read_bytes().startswith(b"<?xml") and b">report&#45;issues<" in svg.read_bytes()
    png = skillkit("graph", DEPLOY_CHECK, "--format", "png")
    assert png.returncode == 0 and png.stdout.startswith(b"\x89PNG\r\n\x1a\n")


def test_graph_images_without_graphviz_say_how_to_get_it(tmp_path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}
    done = skillkit("graph", DEPLOY_CHECK, "--format", "png", env=env)
    assert done.returncode == 2
    stderr = done.stderr.decode("utf-8")
    assert stderr.startswith("error[graphviz]: --format png needs Graphviz's 'dot' program")
    assert "--format mermaid" in stderr


def test_preview_of_a_skill_md_escapes_control_characters(tmp_path) -> None:
    folder = tmp_path / "esc-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(
        b"---\nname: esc-skill\ndescription: D. Use when x.\n---\n"
        b"# Body \x1b[2J\x1b]0;TITLE\x07 \xc2\x9b end\r\nnext\n"
    )
    markdown = text_of(skillkit("preview", str(folder)))
    assert "# Body \\x1b[2J\\x1b]0;TITLE\\x07 \\x9b end\nnext\n" in markdown
    raw = skillkit("preview", str(folder), "--format", "json").stdout
    assert b"\x1b" not in raw and "\u009b".encode() not in raw
    assert "\x1b[2J" in json.loads(raw)["tier2"]["body"]  # the same text, once parsed


# -- the skill's code runs in a kept child with a time limit --------------------------

HANGS = """\
import time

while True:
    time.sleep(0.05)
"""

ENDS_THE_PROCESS = """\
import os

os._exit(3)
"""

READS_STDIN = """\
secret = input()
"""

LEAVES_A_DAEMON = """\
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(300)
        os._exit(0)
    os._exit(0)
with open(os.environ["DAEMON_PID_FILE"], "w") as handle:
    handle.write("started")
"""

SLOW_ACTION = """\
import time

from pydantic import BaseModel

from skillkit_core import action, skill, terminal


class Done(BaseModel):
    ok: bool


class Nap(BaseModel):
    slept: float


def _nap(ctx) -> dict:
    time.sleep(1.5)
    return {"slept": 1.5}


nap = action("nap", input=Done, output=Nap, run=_nap)

slow = (
    skill(name="slow", entry="go")
    .step("go", prompt="Go.", response=Done, action=nap, next=terminal)
    .build()
)
"""


def _limited_env(seconds: str = "1") -> dict[str, str]:
    return {**os.environ, "SKILLKIT_CHECK_TIMEOUT": seconds}


@pytest.mark.parametrize("command", ["preview", "simulate", "graph"])
def test_a_module_that_hangs_is_stopped_at_the_limit_naming_its_line(
    tmp_path, command: str
) -> None:
    source = tmp_path / "hangs.py"
    source.write_text(HANGS)
    done = skillkit(command, str(source), env=_limited_env())
    assert done.returncode == 2 and done.stdout == b""
    # simulate's limit covers loading the module only: exploring paths may take longer.
    what = "loading the skill's module" if command == "simulate" else f"skillkit {command}"
    assert done.stderr.decode().splitlines()[-1] == (
        f"error[{command}]: {what} did not finish within 1 s: the skill's code hangs "
        f"(set SKILLKIT_CHECK_TIMEOUT to allow longer); it was running {source}, line 4"
    )


def test_a_module_that_ends_the_process_is_an_error_that_says_so(tmp_path) -> None:
    source = tmp_path / "ends.py"
    source.write_text(ENDS_THE_PROCESS)
    done = skillkit("simulate", str(source))
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        "error[simulate]: skillkit simulate ended without a result: the skill's code ended its "
        "process (exit status 3)\n"
    )


def test_the_skills_code_reads_no_stdin(tmp_path) -> None:
    source = tmp_path / "reads.py"
    source.write_text(READS_STDIN)
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", "preview", str(source)],
        input=b"typed by the user\n",
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "EOFError: EOF when reading a line" in done.stderr.decode()


def test_processes_the_skills_code_starts_do_not_outlive_the_command(tmp_path) -> None:
    source = tmp_path / "daemon.py"
    source.write_text(LEAVES_A_DAEMON + Path(DEPLOY_CHECK).read_text())
    started = tmp_path / "started"
    done = skillkit("graph", str(source), env={**os.environ, "DAEMON_PID_FILE": str(started)})
    assert done.returncode == 0, done.stderr
    assert started.read_text() == "started" and text_of(done).startswith("flowchart TD")
    survivors = [
        pid
        for pid in os.listdir("/proc")
        if pid.isdigit() and _cmdline(pid).endswith(f"graph\0{source}\0")
    ]
    assert survivors == []


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def test_ctrl_c_stops_the_command_and_its_child_quietly(tmp_path) -> None:
    import signal

    source = tmp_path / "hangs.py"
    source.write_text(HANGS)
    process = _forked("preview", str(source))
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (130, b"", b"")
    leftovers = [
        p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p).endswith(f"{source}\0")
    ]
    assert leftovers == []


def _forked(*args: str) -> subprocess.Popen:
    """``skillkit ARGS`` started, once it forked the child that runs the skill's code."""
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "skillkit_core.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not [p for p in os.listdir("/proc") if p.isdigit() and _forked_from(p, process.pid)]:
        assert time.monotonic() < deadline, "the command never forked its child"
        time.sleep(0.05)
    return process


def _forked_from(pid: str, parent: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return int(stat[stat.rfind(")") + 2 :].split()[1]) == parent


def test_actions_run_for_real_have_no_time_limit(tmp_path) -> None:
    source = tmp_path / "slow.py"
    source.write_text(SLOW_ACTION)
    done = skillkit(
        "simulate", str(source), "--run-actions", "--format", "json", env=_limited_env()
    )
    assert done.returncode == 0, done.stderr
    assert '"slept": 1.5' in text_of(done)


SLOW_PROMPT = """\
import time

from pydantic import BaseModel

from skillkit_core import skill, terminal


class Done(BaseModel):
    ok: bool


def _prompt(ctx) -> str:
    time.sleep(1.5)
    return "Go."


slow = (
    skill(name="slow", entry="go")
    .step("go", prompt=_prompt, response=Done, next=terminal)
    .build()
)
"""


def test_simulate_limits_the_loading_only(tmp_path: Path) -> None:
    # Exploring many paths is skillkit's own work and may take long: past the limit, a
    # simulation was stopped and its skill said to hang.
    source = tmp_path / "slow.py"
    source.write_text(SLOW_PROMPT)
    done = skillkit("simulate", str(source), "--format", "json", env=_limited_env())
    assert done.returncode == 0, done.stderr
    assert '"status": "done"' in text_of(done)


def test_a_terminated_command_takes_its_child_with_it(tmp_path: Path) -> None:
    # SIGTERM (a CI job's timeout) or SIGHUP (a closed terminal) ended the command but not
    # its kept child, which went on running the skill's actions for real.
    import signal
    import time

    source = tmp_path / "slow.py"
    source.write_text(SLOW_ACTION.replace("time.sleep(1.5)", "time.sleep(600)"))
    process = _forked("simulate", str(source), "--run-actions")
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while [
        p
        for p in os.listdir("/proc")
        if p.isdigit() and _cmdline(p).endswith(f"{source}\0--run-actions\0")
    ]:
        assert time.monotonic() < deadline, "the child outlived the command"
        time.sleep(0.05)


@pytest.mark.parametrize("command", ["preview", "graph", "simulate", "run"])
def test_a_skills_hostile_errors_reach_stderr_as_one_plain_line(tmp_path, command) -> None:
    # A skill's exception text went raw to the terminal (an OSC retitled it), and a
    # KeyboardInterrupt raised at import printed skillkit's own traceback.
    hostile = tmp_path / "hostile.py"
    hostile.write_text('raise ValueError("\\x1b]0;PWNED\\x07\\x1b[31m")\n')
    interrupts = tmp_path / "interrupts.py"
    interrupts.write_text("raise KeyboardInterrupt\n")
    extra = ["start"] if command == "run" else []
    done = skillkit(command, str(hostile), *extra)
    stderr = done.stderr.decode("utf-8")
    assert "\x1b" not in stderr and "\x07" not in stderr
    assert "ValueError: \\x1b]0;PWNED\\x07\\x1b[31m" in stderr
    if command != "run":  # the protocol's own KeyboardInterrupt is an interruption (130)
        done = skillkit(command, str(interrupts))
        assert done.returncode == 2
        assert done.stderr.decode("utf-8") == (
            "error[entry]: the skill's code raised KeyboardInterrupt, as if interrupted\n"
        )


REBINDS_JSON = """\
import json
_real = json.dumps
json.dumps = lambda value, **options: _real(value, **{**options, "indent": 7})
from pydantic import BaseModel
from skillkit_core import skill, terminal


class Answer(BaseModel):
    x: str


rebinding = skill(name="rb", entry="a").step("a", prompt="A.", response=Answer, next=terminal)
rebinding = rebinding.build()
"""


def test_a_module_that_rebinds_json_dumps_does_not_reshape_the_reports(tmp_path) -> None:
    entry = tmp_path / "rebinds.py"
    entry.write_text(REBINDS_JSON)
    simulated = skillkit("simulate", str(entry), "--format", "json")
    assert simulated.returncode == 0, simulated.stderr
    assert text_of(simulated).startswith('{\n  "skill": "rb",\n')  # indent 2, not 7
    previewed = text_of(skillkit("preview", str(entry)))
    assert '```json\n{\n  "additionalProperties": false,' in previewed

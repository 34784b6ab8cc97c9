import subprocess
import sys

import pytest

from skillkit_core import hosts
from skillkit_core.hosts import (
    GENERIC,
    HOSTS,
    HOSTS_BY_ID,
    KNOWN_HOST_IDS,
    KNOWN_TOOL_NAMES,
    Handshake,
    detect_host,
    host_info,
    is_known_host,
    normalize_host,
)


def test_handshake_defaults():
    assert Handshake() == Handshake(host="generic", tools_available=(), is_subagent=False)


def test_every_seed_host_is_known_and_copilot_too():
    assert set(KNOWN_HOST_IDS) == {
        "claude-code",
        "codex",
        "opencode",
        "gemini-cli",
        "cline",
        "roo-code",
        "kilo-code",
        "cursor",
        "amp",
        "github-copilot",
        "generic",
    }
    assert HOSTS_BY_ID["generic"].tools == ()


@pytest.mark.parametrize(
    ("host", "tool"),
    [
        ("claude-code", "AskUserQuestion"),
        ("claude-code", "TaskCreate"),
        ("codex", "request_user_input"),
        ("codex", "update_plan"),
        ("codex", "spawn_agent"),
        ("opencode", "question"),
        ("opencode", "todowrite"),
        ("gemini-cli", "ask_user"),
        ("gemini-cli", "write_todos"),
        ("gemini-cli", "enter_plan_mode"),
        ("cline", "ask_question"),
        ("roo-code", "ask_followup_question"),
        ("kilo-code", "question"),
        ("github-copilot", "manage_todo_list"),
    ],
)
def test_inventories_hold_the_tools_read_in_the_hosts_source(host, tool):
    assert tool in host_info(host).tools
    assert tool in KNOWN_TOOL_NAMES


@pytest.mark.parametrize(
    "name", ["ToolRequestUserInput", "CollabAgent", "ask-user", "write-todos", "enter-plan-mode"]
)
def test_internal_type_names_and_made_up_spellings_are_not_tools(name):
    assert name not in KNOWN_TOOL_NAMES


def test_older_names_are_known_and_point_at_the_current_tool():
    kilo = host_info("kilo-code")
    assert kilo.renamed["ask_followup_question"] == "question"
    assert kilo.names_for("question") == ("question", "ask_followup_question")
    assert "ask_followup_question" in KNOWN_TOOL_NAMES
    assert host_info("cline").renamed["ask_followup_question"] == "ask_question"


def test_hosts_without_names_say_why():
    for host in HOSTS:
        if not host.tools:
            assert host.no_names, host.id
            assert all(mapping is None for mapping in host.tags.values()), host.id


def test_host_ids_are_matched_case_insensitively():
    assert normalize_host(" Claude-Code ") == "claude-code"
    assert is_known_host("CODEX")


def test_missing_host_is_generic_without_warning(capsys):
    assert normalize_host(None) == GENERIC
    assert normalize_host("") == GENERIC
    assert capsys.readouterr().err == ""


def test_unknown_host_is_generic_with_one_warning(capsys, monkeypatch):
    monkeypatch.setattr(hosts, "_warned_hosts", set())
    assert host_info("warp-terminal").id == GENERIC
    assert normalize_host("warp-terminal") == GENERIC
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown host 'warp-terminal'" in err
    assert "treating it as 'generic'" in err


def test_hosts_module_imports_nothing_heavy():
    code = (
        "import sys, skillkit_core.hosts; "
        "heavy = {'pydantic', 'typer', 'rich', 'yaml', 'pygls', 'tree_sitter'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- detection ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "host", "variable"),
    [
        ({"CODEX_THREAD_ID": "019a"}, "codex", "CODEX_THREAD_ID"),
        ({"GEMINI_CLI": "1"}, "gemini-cli", "GEMINI_CLI"),
        ({"OPENCODE": "1"}, "opencode", "OPENCODE"),
        ({"OPENCODE": "1", "KILOCODE_FEATURE": "cli"}, "kilo-code", "KILOCODE_FEATURE"),
        ({"CLAUDECODE": "1"}, "claude-code", "CLAUDECODE"),
    ],
)
def test_a_host_is_detected_from_the_variable_it_sets(environ, host, variable):
    detected, reason = detect_host(environ)
    assert detected == host
    assert reason.startswith(f"{variable} is set")
    evidence = dict(host_info(host).detect)[variable]
    assert evidence.cite() in reason


def test_nothing_is_detected_without_a_documented_variable():
    assert detect_host({}) is None
    assert detect_host({"GEMINI_CLI": ""}) is None
    assert detect_host({"CLAUDE_ENV_FILE": "/tmp/env", "TERM_PROGRAM": "vscode"}) is None


def test_a_more_specific_host_wins_over_one_whose_variable_it_inherits():
    assert detect_host({"CLAUDECODE": "1"})[0] == "claude-code"
    assert detect_host({"CLAUDECODE": "1", "CODEX_THREAD_ID": "t"})[0] == "codex"


def test_detect_reads_the_process_environment_by_default(monkeypatch):
    monkeypatch.setenv("GEMINI_CLI", "1")
    assert detect_host()[0] == "gemini-cli"

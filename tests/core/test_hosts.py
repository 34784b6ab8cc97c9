import subprocess
import sys

import pytest

from skillkit_core import hosts
from skillkit_core.hosts import (
    GENERIC,
    HOSTS_BY_ID,
    KNOWN_HOST_IDS,
    KNOWN_TOOL_NAMES,
    Handshake,
    host_info,
    is_known_host,
    normalize_host,
)


def test_handshake_defaults():
    assert Handshake() == Handshake(host="generic", tools_available=(), is_subagent=False)


def test_all_seed_hosts_are_known():
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
        "generic",
    }
    assert HOSTS_BY_ID["generic"].tools == ()


@pytest.mark.parametrize(
    ("host", "tool"),
    [
        ("claude-code", "AskUserQuestion"),
        ("claude-code", "TaskCreate"),
        ("codex", "update_plan"),
        ("codex", "CollabAgent"),
        ("opencode", "question"),
        ("gemini-cli", "write-todos"),
        ("cline", "ask_followup_question"),
        ("cursor", "grep_search"),
        ("amp", "shell"),
    ],
)
def test_inventories_hold_the_seed_tools(host, tool):
    assert tool in host_info(host).tools
    assert tool in KNOWN_TOOL_NAMES


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

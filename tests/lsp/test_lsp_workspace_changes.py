"""The workspace as it changes around the server: folders added and removed, files made
and deleted on disk, documents closed outside every folder (a raw client, so that what the
server publishes is seen message by message)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from skill_lsp.features.lifecycle import WATCHED
from tests.lsp.raw_lsp import RawLsp
from tests.lsp.support import uri_of

LINKING = (
    "---\nname: {name}\ndescription: Use it when testing links here, for {name}.\n---\n"
    "# {name}\n\nRead [the guide](references/guide.md).\n"
)


def make_skill(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    skill_md = folder / "SKILL.md"
    skill_md.write_text(LINKING.format(name=name), encoding="utf-8")
    return skill_md


def last_published(messages: list[dict[str, Any]], uri: str) -> list[str] | None:
    """The rules of the last diagnostics published for ``uri`` (None: none yet)."""
    found = [
        m["params"]["diagnostics"]
        for m in messages
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    ]
    return [d["code"] for d in found[-1]] if found else None


def settle(server: RawLsp, seconds: float = 1.0) -> None:
    """Let background work run, then read what it published."""
    time.sleep(seconds)
    assert "result" in server.request("workspace/symbol", {"query": ""})


@pytest.fixture
def server(tmp_path: Path):
    (tmp_path / "a").mkdir()
    raw = RawLsp(tmp_path / "a", tmp_path / "stderr.txt")
    yield raw
    raw.close()


def test_a_removed_folders_findings_are_withdrawn(server: RawLsp, tmp_path: Path) -> None:
    # Only the roots changed: the removed folder's findings stayed in the editor.
    beta = uri_of(make_skill(tmp_path / "b", "beta-tool"))
    added = {"added": [{"uri": uri_of(tmp_path / "b"), "name": "b"}], "removed": []}
    server.notify("workspace/didChangeWorkspaceFolders", {"event": added})
    server.wait(lambda m: last_published(m, beta) == ["broken-link"], what="b's findings")
    removed = {"added": [], "removed": [{"uri": uri_of(tmp_path / "b"), "name": "b"}]}
    server.notify("workspace/didChangeWorkspaceFolders", {"event": removed})
    server.wait(lambda m: last_published(m, beta) == [], what="b's findings withdrawn")


def test_a_document_closed_outside_the_workspace_leaves_no_findings(
    server: RawLsp, tmp_path: Path
) -> None:
    # Its findings were published again from disk, where nothing watches them.
    skill_md = make_skill(tmp_path / "outside", "gamma-tool")
    uri = server.open(skill_md, skill_md.read_text(encoding="utf-8"))
    server.wait(lambda m: last_published(m, uri) == ["broken-link"], what="its findings")
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    settle(server)
    assert last_published(server.messages, uri) == []


def test_a_file_made_or_removed_beside_a_skill_md_rechecks_it(
    server: RawLsp, tmp_path: Path
) -> None:
    # Only *.py, SKILL.md and pyproject.toml were watched, and a change reported for a
    # reference did not check the SKILL.md that links to it.
    assert {"**/references/**", "**/*.md"} <= set(WATCHED)
    skill_md = make_skill(tmp_path / "a", "alpha-tool")
    uri = uri_of(skill_md)
    server.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 1}]})
    server.wait(lambda m: last_published(m, uri) == ["broken-link"], what="the broken link")
    guide = skill_md.parent / "references" / "guide.md"
    guide.parent.mkdir()
    guide.write_text("# Guide\n", encoding="utf-8")
    server.notify(
        "workspace/didChangeWatchedFiles", {"changes": [{"uri": uri_of(guide), "type": 1}]}
    )
    server.wait(lambda m: last_published(m, uri) == [], what="the link resolved")
    guide.unlink()
    server.notify(
        "workspace/didChangeWatchedFiles", {"changes": [{"uri": uri_of(guide), "type": 3}]}
    )
    server.wait(lambda m: last_published(m, uri) == ["broken-link"], what="broken again")

"""``scripts/run mcp`` of a built skill serves its folder through the MCP skills extension
from the record its build stored, without the manifest parser or the linter in the bundle;
a SKILL.md edited after the build turns the extension off, with the reason on stderr."""

from __future__ import annotations

import hashlib
import io
import shutil
import zipfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from skillkit_core.manifest.parse import parse_skill_md
from skillkit_core.runtime.registry import json_safe
from skillkit_core.runtime.verify import _call
from tests.build.conftest import agent_env
from tests.protocol.support import AUTOPILOT

EXTENSION = "io.modelcontextprotocol/skills"
URI = "skill://autopilot/SKILL.md"


@asynccontextmanager
async def _mcp(folder: Path, cwd: Path, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=str(folder / "scripts" / "run"), args=["mcp"], cwd=str(cwd), env=env
    )
    with (cwd / "mcp-stderr.txt").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def _copy(built: Path, tmp_path: Path) -> Path:
    """A copy of the built skill to edit (the built folders are shared by the tests)."""
    return Path(shutil.copytree(built, tmp_path / "autopilot", symlinks=True))


def test_the_bundle_carries_neither_the_manifest_parser_nor_the_linter(
    built_skills: dict[str, Path],
) -> None:
    with zipfile.ZipFile(built_skills[AUTOPILOT] / "bin" / "autopilot.pyz") as pyz:
        inner = zipfile.ZipFile(io.BytesIO(pyz.read("_skillkit_python.zip")))
    names = inner.namelist()
    assert "skillkit_core/runtime/records.py" in names
    assert "skillkit_core/protocol/built_record.py" in names
    for left_out in ("yaml/", "tree_sitter", "skillkit_core/manifest/", "skillkit_core/lint/"):
        assert not any(name.startswith(left_out) for name in names), left_out
    assert "skillkit_core/runtime/registry.py" not in names


async def test_skills_list_gives_the_frontmatter_the_build_wrote(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path
) -> None:
    folder = built_skills[AUTOPILOT]
    raw = (folder / "SKILL.md").read_bytes()
    async with _mcp(folder, tmp_path, agent_env(run_cache)) as session:
        (entry,) = (await _call(session, "skills/list"))["skills"]
    assert entry["uri"] == URI
    assert entry["frontmatter"] == json_safe(parse_skill_md(raw.decode("utf-8")).frontmatter)
    digests = {resource["uri"]: resource["digest"] for resource in entry["resources"]}
    assert digests[URI] == "sha256:" + hashlib.sha256(raw).hexdigest()


async def test_a_skill_md_edited_after_the_build_turns_the_extension_off_and_says_why(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path
) -> None:
    folder = _copy(built_skills[AUTOPILOT], tmp_path)
    skill_md = folder / "SKILL.md"
    skill_md.write_bytes(skill_md.read_bytes() + b"\nEdited by hand.\n")
    async with _mcp(folder, tmp_path, agent_env(run_cache)) as session:
        assert EXTENSION not in (session.initialize_result.capabilities.extensions or {})
        with pytest.raises(MCPError):
            await _call(session, "skills/list")
        # The skill's own tools are served as ever.
        assert [tool.name for tool in (await session.list_tools()).tools] == ["start", "advance"]
    stderr = (tmp_path / "mcp-stderr.txt").read_text()
    assert "the skills extension is off" in stderr
    assert f"{skill_md}: skipped: it was changed after 'skillkit build' wrote it" in stderr


async def test_a_skill_md_edited_while_served_is_no_longer_given(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path
) -> None:
    folder = _copy(built_skills[AUTOPILOT], tmp_path)
    skill_md = folder / "SKILL.md"
    original = skill_md.read_bytes()
    async with _mcp(folder, tmp_path, agent_env(run_cache)) as session:
        assert (await _call(session, "skills/get", uri=URI))["skill"]["uri"] == URI
        skill_md.write_bytes(original.replace(b"autopilot", b"autopilot2", 1))
        with pytest.raises(MCPError, match=r"can no longer be loaded: .*changed after"):
            await _call(session, "skills/get", uri=URI)
        skill_md.write_bytes(original)
        assert (await _call(session, "skills/get", uri=URI))["skill"]["uri"] == URI

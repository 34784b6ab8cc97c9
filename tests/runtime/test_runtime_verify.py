"""The client-side check of SEP-2640 skills (skillkit_core.runtime.verify): against the
real ``skillkit serve``, and entry by entry against what a lying server could send."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from skillkit_core.runtime.verify import check_server, verify_entry
from tests.runtime.test_runtime_skills_extension import make_root

SKILL_MD = b"---\nname: refunds\ndescription: Refunds.\nx-extra: [1, 2]\n---\nBody.\n"
GUIDE = b"Guide.\n"
URI = "skill://acme/billing/refunds/SKILL.md"
GUIDE_URI = "skill://acme/billing/refunds/references/guide.md"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def entry(**changes) -> dict:
    base = {
        "uri": URI,
        "frontmatter": {"name": "refunds", "description": "Refunds.", "x-extra": [1, 2]},
        "resources": [
            {"uri": URI, "digest": digest(SKILL_MD)},
            {"uri": GUIDE_URI, "digest": digest(GUIDE)},
        ],
    }
    base.update(changes)
    return base


FILES = {URI: SKILL_MD, GUIDE_URI: GUIDE}
# Another implementation of the extension to check: agentskills-mcp-server 0.7.0 from PyPI
# (Python 3.12 or newer, so in a venv of its own, which .ci/run makes when it finds such a
# Python). SKILLKIT_PEER_SKILLS_SERVER names its executable elsewhere.
PEER_SERVER = Path(
    os.environ.get(
        "SKILLKIT_PEER_SKILLS_SERVER",
        Path(__file__).parents[2] / ".venv-peers/agentskills/bin/agentskills-mcp-server",
    )
)


@pytest.mark.asyncio
async def test_skillkit_serve_passes_the_host_checks(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    argv = [sys.executable, "-m", "skillkit_core.cli", "serve", str(root), "--page-size", "2"]
    result = await check_server(argv)
    assert result.declared is True and result.directory_read is True
    assert result.problems == []
    uris = sorted(check.uri for check in result.skills)
    assert len(uris) == 11 and "skill://acme/support/refunds/SKILL.md" in uris
    assert "skill://acme/billing/refunds/examples/partial/full/SKILL.md" in uris
    assert all(check.verified for check in result.skills), [c.problems for c in result.skills]
    refunds = next(c for c in result.skills if c.uri == URI)
    assert refunds.files == 11  # every file of the skill but the symlink leading out
    assert result.ok


@pytest.mark.asyncio
@pytest.mark.skipif(
    not PEER_SERVER.is_file(),
    reason=f"agentskills-mcp-server is not installed at {PEER_SERVER} (.ci/run installs it "
    "where a Python 3.12 or newer is found)",
)
async def test_another_implementation_passes_the_host_checks(tmp_path: Path) -> None:
    """skillkit's check against a server it did not write: frontmatter with unusual keys,
    a binary file and nested folders come through verified."""
    skills = tmp_path / "skills"
    refunds = skills / "refunds"
    (refunds / "references").mkdir(parents=True)
    (refunds / "assets" / "images").mkdir(parents=True)
    (refunds / "SKILL.md").write_bytes(SKILL_MD)
    (refunds / "references" / "guide.md").write_bytes(GUIDE)
    (refunds / "assets" / "images" / "blob.bin").write_bytes(bytes(range(256)) + b"\x00")
    (skills / "git-workflow").mkdir()
    (skills / "git-workflow" / "SKILL.md").write_text(
        "---\nname: git-workflow\ndescription: Follow the Git conventions.\n---\nBody.\n"
    )
    config = tmp_path / "server.json"
    config.write_text(
        json.dumps(
            {
                "name": "peer",
                "skills": [
                    {"id": name, "provider": "fs", "options": {"root": str(skills)}}
                    for name in ("refunds", "git-workflow")
                ],
            }
        )
    )
    result = await check_server([str(PEER_SERVER), "--config", str(config)])
    assert result.declared is True and result.problems == []
    checks = {check.uri: check for check in result.skills}
    assert sorted(checks) == ["skill://git-workflow/SKILL.md", "skill://refunds/SKILL.md"]
    assert all(check.verified for check in checks.values()), [c.problems for c in result.skills]
    assert checks["skill://refunds/SKILL.md"].files == 3
    assert result.ok


def test_a_faithful_entry_verifies() -> None:
    assert verify_entry(entry(), FILES) == []


def test_tampered_content_fails_its_digest() -> None:
    problems = verify_entry(entry(), {**FILES, GUIDE_URI: b"Rotated guide.\n"})
    assert problems == [f"{GUIDE_URI}: the content read does not match the listed digest"]


def test_frontmatter_that_differs_from_the_file_fails_field_by_field() -> None:
    listed = {"name": "refunds", "description": "Refunds.", "x-extra": [1, 2, 3]}
    assert verify_entry(entry(frontmatter=listed), FILES) == [
        f"{URI}: frontmatter differs from the listing in: x-extra"
    ]
    hidden = {"name": "refunds", "description": "Refunds."}
    assert "x-extra" in verify_entry(entry(frontmatter=hidden), FILES)[0]


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ([{"uri": GUIDE_URI, "digest": digest(GUIDE)}], "does not list the SKILL.md itself"),
        (
            [{"uri": URI, "digest": digest(SKILL_MD)}, {"uri": URI, "digest": digest(SKILL_MD)}],
            "listed more than once",
        ),
        (
            [
                {"uri": URI, "digest": digest(SKILL_MD)},
                {"uri": "skill://acme/billing/other/x.md", "digest": digest(GUIDE)},
            ],
            "not a file of the skill",
        ),
        ([{"uri": URI, "digest": digest(SKILL_MD).upper()}], "is not sha256:"),
        (None, "cannot be verified or content-bound"),
    ],
)
def test_a_malformed_resource_set_fails(resources, expected: str) -> None:
    problems = verify_entry(entry(resources=resources), FILES)
    assert any(expected in problem for problem in problems), problems


def test_a_name_that_is_not_the_last_segment_fails() -> None:
    frontmatter = {"name": "refund", "description": "Refunds.", "x-extra": [1, 2]}
    problems = verify_entry(entry(frontmatter=frontmatter), FILES)
    assert any("is not frontmatter.name" in problem for problem in problems)


def _sized(**sizes: int) -> list[dict]:
    return [
        {"uri": URI, "digest": digest(SKILL_MD), "size": sizes.get("skill_md", len(SKILL_MD))},
        {"uri": GUIDE_URI, "digest": digest(GUIDE), "size": sizes.get("guide", len(GUIDE))},
    ]


def test_sizes_are_checked_against_the_bytes_read() -> None:
    # SEP-2640's newest text: a read of another length fails like a wrong digest.
    assert verify_entry(entry(resources=_sized()), FILES) == []
    problems = verify_entry(entry(resources=_sized(guide=len(GUIDE) + 1)), FILES)
    assert problems == [f"{GUIDE_URI}: {len(GUIDE)} bytes read, {len(GUIDE) + 1} listed"]
    bad = _sized()
    bad[1]["size"] = "12"
    assert verify_entry(entry(resources=bad), FILES) == [
        f"{GUIDE_URI}: size '12' is not a byte count"
    ]


def test_a_skill_beyond_the_sep_limits_fails() -> None:
    problems = verify_entry(entry(resources=_sized(guide=(16 << 20))), FILES)
    assert any("beyond SEP-2640's limits" in problem for problem in problems), problems


def test_dynamic_resources_are_taken_and_only_skill_md_is_checked() -> None:
    assert verify_entry(entry(resources="dynamic"), {URI: SKILL_MD}) == []
    hidden = {"name": "refunds", "description": "Refunds."}
    problems = verify_entry(entry(resources="dynamic", frontmatter=hidden), {URI: SKILL_MD})
    assert "x-extra" in problems[0]
    assert "neither a list" in verify_entry(entry(resources="all"), FILES)[0]


def test_an_unreadable_file_fails() -> None:
    problems = verify_entry(entry(), {URI: SKILL_MD})
    assert problems == [f"{GUIDE_URI}: could not be read"]

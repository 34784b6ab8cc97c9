"""The MCP skills extension (SEP-2640) of ``skillkit serve``, through the official client.

The server runs on a generated root (nested skill paths, unusual frontmatter, a binary
file, a symlink out of a skill, enough skills for several pages) and is reached the
2026-07-28 way (``server/discover``), where ``capabilities.extensions`` exists.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio
import yaml
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import TypeAdapter

from tests.runtime.support import McpConnection, serve_command

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGE_SIZE = 3
EXTENSION = "io.modelcontextprotocol/skills"
GENERATED = [f"skill-{n:02d}" for n in range(7)]
REFUNDS_FRONTMATTER = """\
name: refunds
description: Process customer refund requests per company policy.
license: Apache-2.0
compatibility: Needs network access to the billing API
allowed-tools: Read Bash(git:*)
metadata:
  version: "2.1"
  io.modelcontextprotocol/reserved: kept as written
x-unknown-key:
  nested: [true, null, 3.5, "text"]
  empty: {}
x-number: 42
"""
BINARY = bytes(range(256)) + b"\x00\xff\xfe"


def make_root(base: Path) -> Path:
    root = base / "root"
    refunds = root / "acme" / "billing" / "refunds"
    (refunds / "templates" / "regional").mkdir(parents=True)
    (refunds / "assets").mkdir()
    (refunds / "references").mkdir()
    (refunds / "SKILL.md").write_text(f"---\n{REFUNDS_FRONTMATTER}---\n\n# Refunds\n\nSteps.\n")
    (refunds / "templates" / "invoice.md").write_text("# Invoice\n")
    (refunds / "templates" / "regional" / "eu-invoice.md").write_text("# EU invoice\n")
    (refunds / "assets" / "blob.bin").write_bytes(BINARY)
    (refunds / "references" / "guide.md").write_text("Read me.\n")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET\n")
    (refunds / "references" / "leak.md").symlink_to(outside / "secret.txt")
    (refunds / "references" / "inner.md").symlink_to(Path("guide.md"))
    partial = refunds / "examples" / "partial"
    partial.mkdir(parents=True)
    (partial / "SKILL.md").write_text(
        "---\nname: partial\ndescription: Partial refunds.\nx-level: nested\n---\nBody.\n"
    )
    (partial / "notes.md").write_text("Partial notes.\n")
    full = partial / "full"
    full.mkdir()
    (full / "SKILL.md").write_text("---\nname: full\ndescription: Full refunds.\n---\nBody.\n")
    # A SKILL.md in assets/ is the skill's material: not listed, still answered by skills/get.
    example = refunds / "assets" / "example"
    example.mkdir()
    (example / "SKILL.md").write_text(
        "---\nname: example\ndescription: An example skill to copy.\n---\nBody.\n"
    )
    misnamed = refunds / "examples" / "misnamed"
    misnamed.mkdir()
    (misnamed / "SKILL.md").write_text("---\nname: other\ndescription: Wrong folder.\n---\n")
    support = root / "acme" / "support" / "refunds"
    support.mkdir(parents=True)
    (support / "SKILL.md").write_text(
        "---\nname: refunds\ndescription: Answer refund questions from support.\n---\nBody.\n"
    )
    for name in GENERATED:
        folder = root / "gen" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Generated {name}.\n---\nBody.\n"
        )
    return root


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_root(tmp_path_factory.mktemp("extension"))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(root: Path, tmp_path_factory: pytest.TempPathFactory):
    argv = serve_command(str(root), "--page-size", str(PAGE_SIZE))
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    connection = McpConnection(argv, stderr, modern=True)
    await connection.start()
    yield connection
    await connection.stop()


async def request(server: McpConnection, method: str, **params: Any) -> dict[str, Any]:
    """A request the client has no typed method for, answered as plain JSON."""
    message = types.Request[dict[str, Any], str](method=method, params=params)
    return await server.session.send_request(message, TypeAdapter(dict[str, Any]))


async def all_pages(server: McpConnection) -> list[dict[str, Any]]:
    pages, cursor = [], None
    while True:
        page = await request(server, "skills/list", **({"cursor": cursor} if cursor else {}))
        pages.append(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            return pages


def sha256(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def files_on_disk(folder: Path) -> dict[str, Path]:
    """Every file of a skill folder that stays inside it, by path relative to it."""
    real_folder = folder.resolve()
    found = {}
    for path in folder.rglob("*"):
        if path.is_file() and path.resolve().is_relative_to(real_folder):
            found[path.relative_to(folder).as_posix()] = path
    return found


def frontmatter_of(path: Path) -> dict[str, Any]:
    text = path.read_text()
    return yaml.safe_load(text.split("---\n")[1])


async def test_the_extension_is_declared_with_directory_read(server: McpConnection) -> None:
    assert server.session.protocol_version in MODERN_PROTOCOL_VERSIONS
    extensions = server.init.capabilities.extensions
    assert extensions == {EXTENSION: {"directoryRead": True}}


async def test_the_listing_pages_whole_entries_and_digests_every_file(
    server: McpConnection, root: Path
) -> None:
    pages = await all_pages(server)
    assert len(pages) >= 3
    assert all(len(page["skills"]) <= PAGE_SIZE for page in pages)
    assert all(page["ttlMs"] == 0 and page["cacheScope"] == "private" for page in pages)
    entries = [entry for page in pages for entry in page["skills"]]
    uris = [entry["uri"] for entry in entries]
    expected = {
        "skill://acme/billing/refunds/SKILL.md",
        "skill://acme/billing/refunds/examples/partial/SKILL.md",
        "skill://acme/billing/refunds/examples/partial/full/SKILL.md",
        "skill://acme/support/refunds/SKILL.md",
    } | {f"skill://gen/{name}/SKILL.md" for name in GENERATED}
    assert sorted(uris) == sorted(expected)  # each skill exactly once
    for entry in entries:
        skill_path = entry["uri"].removeprefix("skill://").removesuffix("/SKILL.md")
        assert skill_path.split("/")[-1] == entry["frontmatter"]["name"]
        folder = root / skill_path
        on_disk = {
            f"skill://{skill_path}/{rel}": sha256(p) for rel, p in files_on_disk(folder).items()
        }
        listed = {resource["uri"]: resource["digest"] for resource in entry["resources"]}
        assert len(listed) == len(entry["resources"])
        assert listed == on_disk
        assert entry["resources"][0]["uri"] == entry["uri"]
        # Each file's size, of the bytes the digest covers (the SEP's newest text).
        sizes = {
            f"skill://{skill_path}/{rel}": p.stat().st_size
            for rel, p in files_on_disk(folder).items()
        }
        assert {resource["uri"]: resource["size"] for resource in entry["resources"]} == sizes


async def test_nested_paths_binary_files_and_escapes_in_the_listing(server: McpConnection) -> None:
    entry = (await request(server, "skills/get", uri="skill://acme/billing/refunds/SKILL.md"))[
        "skill"
    ]
    uris = [resource["uri"] for resource in entry["resources"]]
    assert "skill://acme/billing/refunds/templates/regional/eu-invoice.md" in uris
    assert "skill://acme/billing/refunds/assets/blob.bin" in uris
    assert "skill://acme/billing/refunds/references/inner.md" in uris
    assert "skill://acme/billing/refunds/references/leak.md" not in uris


async def test_frontmatter_is_passed_through_verbatim(server: McpConnection, root: Path) -> None:
    skill_md = root / "acme/billing/refunds/SKILL.md"
    entry = (await request(server, "skills/get", uri="skill://acme/billing/refunds/SKILL.md"))[
        "skill"
    ]
    assert entry["frontmatter"] == frontmatter_of(skill_md)
    assert entry["frontmatter"]["x-unknown-key"] == {
        "nested": [True, None, 3.5, "text"],
        "empty": {},
    }
    # The host rule: the SKILL.md read matches the listed digest and its frontmatter.
    read = await server.session.read_resource(entry["uri"])
    text = read.contents[0].text
    assert read.contents[0].mime_type == "text/markdown"
    assert "sha256:" + hashlib.sha256(text.encode()).hexdigest() == entry["resources"][0]["digest"]
    assert yaml.safe_load(text.split("---\n")[1]) == entry["frontmatter"]


async def test_get_answers_like_the_listing(server: McpConnection) -> None:
    listed = [entry for page in await all_pages(server) for entry in page["skills"]]
    for entry in listed:
        got = await request(server, "skills/get", uri=entry["uri"])
        assert got["skill"] == entry
        assert "nextCursor" not in got
        # The official 2026-07-28 clients (TypeScript client 2.4, Inspector 2.12) refuse a
        # skills/get or directory read without the caching fields.
        assert (got["ttlMs"], got["cacheScope"]) == (0, "private")


async def test_nested_skills_are_listed_flat_and_their_files_stay_the_enclosing_skills(
    server: McpConnection, root: Path
) -> None:
    listed = {entry["uri"]: entry for page in await all_pages(server) for entry in page["skills"]}
    uri = "skill://acme/billing/refunds/examples/partial/SKILL.md"
    folder = root / "acme/billing/refunds/examples/partial"
    entry = listed[uri]
    assert entry["frontmatter"] == frontmatter_of(folder / "SKILL.md")
    partial_files = {
        uri: sha256(folder / "SKILL.md"),
        "skill://acme/billing/refunds/examples/partial/notes.md": sha256(folder / "notes.md"),
        "skill://acme/billing/refunds/examples/partial/full/SKILL.md": sha256(
            folder / "full/SKILL.md"
        ),
    }
    assert {r["uri"]: r["digest"] for r in entry["resources"]} == partial_files
    # A skill nested in the nested one is an entry too.
    inner = listed["skill://acme/billing/refunds/examples/partial/full/SKILL.md"]
    assert inner["frontmatter"]["name"] == "full"
    # From the enclosing skill's side the nested files are supporting files, listed there too.
    enclosing = listed["skill://acme/billing/refunds/SKILL.md"]
    assert partial_files.items() <= {r["uri"]: r["digest"] for r in enclosing["resources"]}.items()
    assert (await request(server, "skills/get", uri=uri))["skill"] == entry


async def test_get_answers_for_an_unlisted_nested_skill(server: McpConnection, root: Path) -> None:
    uri = "skill://acme/billing/refunds/assets/example/SKILL.md"
    listed = [entry["uri"] for page in await all_pages(server) for entry in page["skills"]]
    assert uri not in listed
    entry = (await request(server, "skills/get", uri=uri))["skill"]
    folder = root / "acme/billing/refunds/assets/example"
    assert entry["uri"] == uri
    assert entry["frontmatter"] == frontmatter_of(folder / "SKILL.md")
    size = (folder / "SKILL.md").stat().st_size
    assert entry["resources"] == [{"uri": uri, "digest": sha256(folder / "SKILL.md"), "size": size}]


async def test_a_misnamed_nested_skill_is_reported_and_left_out(server: McpConnection) -> None:
    listed = [entry["uri"] for page in await all_pages(server) for entry in page["skills"]]
    assert not any("misnamed" in uri for uri in listed)
    assert (
        "examples/misnamed/SKILL.md: skipped: a nested skill's folder must be named after it, "
        "and 'misnamed' declares name 'other'" in server.stderr()
    )


@pytest.mark.parametrize(
    "uri",
    [
        "skill://nowhere/SKILL.md",
        "skill://gen/SKILL.md",
        "skill://acme/billing/refunds/templates/invoice.md",
        "skill://acme/billing/refunds",
        "file:///etc/passwd",
        "skill://acme/billing/refunds/examples/misnamed/SKILL.md",
        "skill://acme/billing/refunds/examples/SKILL.md",
        "skill://acme/billing/refunds/examples/../../../../gen/skill-00/SKILL.md",
        "skill://acme/billing/refunds/references/leak.md/SKILL.md",
    ],
)
async def test_get_refuses_what_is_not_a_served_skill(server: McpConnection, uri: str) -> None:
    from mcp import MCPError

    with pytest.raises(MCPError) as caught:
        await request(server, "skills/get", uri=uri)
    assert caught.value.error.code == types.INVALID_PARAMS


async def test_reads_of_text_and_binary_files_match_their_digests(
    server: McpConnection, root: Path
) -> None:
    entry = (await request(server, "skills/get", uri="skill://acme/billing/refunds/SKILL.md"))[
        "skill"
    ]
    digests = {resource["uri"]: resource["digest"] for resource in entry["resources"]}
    text = await server.session.read_resource("skill://acme/billing/refunds/templates/invoice.md")
    assert text.contents[0].text == "# Invoice\n"
    assert text.contents[0].mime_type == "text/markdown"
    # A scheme is case-insensitive (RFC 3986, 3.1).
    shouted = await server.session.read_resource(
        "SKILL://acme/billing/refunds/templates/invoice.md"
    )
    assert shouted.contents[0].text == "# Invoice\n"
    blob_uri = "skill://acme/billing/refunds/assets/blob.bin"
    blob = (await server.session.read_resource(blob_uri)).contents[0]
    data = base64.b64decode(blob.blob)
    assert data == BINARY
    assert blob.mime_type == "application/octet-stream"
    assert "sha256:" + hashlib.sha256(data).hexdigest() == digests[blob_uri]


async def test_a_changed_file_gets_a_new_digest(server: McpConnection, root: Path) -> None:
    uri = "skill://gen/skill-06/SKILL.md"
    before = (await request(server, "skills/get", uri=uri))["skill"]
    skill_md = root / "gen/skill-06/SKILL.md"
    skill_md.write_text(skill_md.read_text() + "More.\n")
    (root / "gen/skill-06/extra.txt").write_text("new file\n")
    after = (await request(server, "skills/get", uri=uri))["skill"]
    assert after["resources"] != before["resources"]
    listed = {resource["uri"]: resource["digest"] for resource in after["resources"]}
    assert listed[uri] == sha256(skill_md)
    assert "skill://gen/skill-06/extra.txt" in listed


@pytest.mark.parametrize(
    "uri",
    [
        "skill://acme/billing/refunds/../../../gen/skill-00/SKILL.md",
        "skill://acme/billing/refunds/%2e%2e/%2e%2e/secret",
        "skill://acme/billing/refunds/templates%2F..%2F..%2Fx",
        "skill://acme/billing/refunds/..%5c..%5cSKILL.md",
        "skill://acme/billing/refunds//etc/passwd",
        "skill://acme/billing/refunds/%2Fetc%2Fpasswd",
        "skill://acme/billing/refunds/references/guide.md%00.png",
        "skill://acme/billing/refunds/references/leak.md",
        "skill://acme/billing/refunds/./SKILL.md",
        "skill://acme/billing/refunds/%2e/SKILL.md",
        "skill://acme/billing/refunds/templates%2Finvoice.md",
        "skill://acme/billing/refunds/SKILL.md?x=1",
        "skill://acme/billing/refunds/templates",
        "skill://acme/billing/refunds/missing.md",
        "skill://acme/billing/SKILL.md",
        "skills://active/../x",
    ],
)
async def test_reads_outside_a_skill_are_refused(server: McpConnection, uri: str) -> None:
    from mcp import MCPError

    with pytest.raises(MCPError) as caught:
        await server.session.read_resource(uri)
    assert caught.value.error.code == types.INVALID_PARAMS
    assert "TOP-SECRET" not in caught.value.error.message


async def test_directory_reads_list_direct_children(server: McpConnection) -> None:
    async def children(uri: str) -> list[tuple[str, str]]:
        found, cursor = [], None
        while True:
            extra = {"cursor": cursor} if cursor else {}
            page = await request(server, "resources/directory/read", uri=uri, **extra)
            found += [(r["uri"], r["mimeType"]) for r in page["resources"]]
            cursor = page.get("nextCursor")
            if cursor is None:
                return found

    base = "skill://acme/billing/refunds"
    top = await children(base)
    assert (f"{base}/SKILL.md", "text/markdown") in top
    listing = await request(server, "resources/directory/read", uri=base)
    assert (listing["ttlMs"], listing["cacheScope"]) == (0, "private")
    skill_md = listing["resources"][0]
    assert (skill_md["name"], skill_md["description"]) == (
        "refunds",
        "Process customer refund requests per company policy.",
    )
    assert (f"{base}/templates", "inode/directory") in top
    assert all("leak" not in uri for uri, _ in await children(f"{base}/references"))
    assert await children(f"{base}/templates") == [
        (f"{base}/templates/invoice.md", "text/markdown"),
        (f"{base}/templates/regional", "inode/directory"),
    ]
    assert await children(f"{base}/templates/regional") == [
        (f"{base}/templates/regional/eu-invoice.md", "text/markdown")
    ]


def _nested_cursor(depth: int) -> str:
    import base64

    return base64.urlsafe_b64encode(b"[" * depth + b"]" * depth).decode("ascii")


async def test_bad_cursors_and_directory_escapes_are_refused(server: McpConnection) -> None:
    from mcp import MCPError

    for method, params in [
        ("skills/list", {"cursor": "not-a-cursor"}),
        ("skills/list", {"cursor": "eyJvZmZzZXQiOiA5OTl9"}),  # offset 999
        # Valid base64 of JSON nested 100,000 deep: a RecursionError, answered -32603.
        ("skills/list", {"cursor": _nested_cursor(100_000)}),
        ("resources/list", {"cursor": _nested_cursor(100_000)}),
        ("resources/directory/read", {"uri": "skill://acme/billing/refunds/.."}),
        ("resources/directory/read", {"uri": "skill://acme/billing/refunds/%2e%2e"}),
        ("resources/directory/read", {"uri": "skill://acme/billing/refunds/SKILL.md"}),
        # Lists served in one page hand out no cursor (pagination: invalid -> -32602).
        ("tools/list", {"cursor": "bogus"}),
        ("prompts/list", {"cursor": "bogus"}),
        ("resources/templates/list", {"cursor": "bogus"}),
    ]:
        with pytest.raises(MCPError) as caught:
            await request(server, method, **params)
        assert caught.value.error.code == types.INVALID_PARAMS, (method, params)


async def test_resource_templates_describe_skill_uris(server: McpConnection) -> None:
    templates = (await server.session.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == [
        "skill://{+skill_path}/SKILL.md",
        "skill://{+skill_path}/{+file_path}",
    ]


async def test_two_skills_sharing_a_name_stay_distinct_by_uri(server: McpConnection) -> None:
    billing = await request(server, "skills/get", uri="skill://acme/billing/refunds/SKILL.md")
    support = await request(server, "skills/get", uri="skill://acme/support/refunds/SKILL.md")
    assert billing["skill"]["frontmatter"]["name"] == support["skill"]["frontmatter"]["name"]
    assert support["skill"]["frontmatter"]["description"] == "Answer refund questions from support."
    assert billing["skill"]["resources"] != support["skill"]["resources"]
    # The tools name skills, so they serve the first one and stderr says what happened.
    assert (
        "skill name 'refunds' is already taken by" in server.stderr()
        and "the MCP skills extension serves it as skill://acme/support/refunds/SKILL.md"
        in server.stderr()
    )


async def test_the_tools_still_serve_the_same_registry(server: McpConnection) -> None:
    loaded = await server.ok("skills_load", {"names": ["refunds", "partial"]})
    receipts = loaded.structured_content["active_skills"]
    assert [receipt["name"] for receipt in receipts] == ["refunds", "partial"]
    assert receipts[0]["location"].endswith("acme/billing/refunds/SKILL.md")
    assert receipts[1]["location"].endswith("acme/billing/refunds/examples/partial/SKILL.md")
    # The tools' digest of a SKILL.md is the extension's.
    entry = await request(server, "skills/get", uri="skill://acme/billing/refunds/SKILL.md")
    assert receipts[0]["digest"] == entry["skill"]["resources"][0]["digest"]


async def test_resources_list_pages_every_skill_md(server: McpConnection) -> None:
    pages, cursor = [], None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await server.session.list_resources(params=params)
        pages.append(page)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert len(pages) >= 3
    assert all(len(page.resources) <= PAGE_SIZE for page in pages)
    resources = [resource for page in pages for resource in page.resources]
    assert str(resources[0].uri) == "skills://active"
    listed = [entry for page in await all_pages(server) for entry in page["skills"]]
    assert [str(r.uri) for r in resources[1:]] == [entry["uri"] for entry in listed]
    for resource, entry in zip(resources[1:], listed, strict=True):
        assert resource.name == entry["frontmatter"]["name"]
        assert resource.description == entry["frontmatter"]["description"]
        assert resource.mime_type == "text/markdown"
        assert resource.annotations.priority == 0.8


async def test_initialize_connections_get_the_declaration_and_the_methods(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """SEP-2640 declares the extension in the ``initialize`` answer; the SDK leaves the
    2026-07-28 field out of it, and the server adds it back."""
    argv = serve_command(str(root), "--page-size", str(PAGE_SIZE))
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    connection = McpConnection(argv, stderr)
    await connection.start()
    try:
        assert connection.session.protocol_version not in MODERN_PROTOCOL_VERSIONS
        assert connection.init.capabilities.extensions == {EXTENSION: {"directoryRead": True}}
        page = await request(connection, "skills/list")
        assert len(page["skills"]) == PAGE_SIZE and "nextCursor" in page
        assert "ttlMs" not in page
        uri = page["skills"][0]["uri"]
        got = await request(connection, "skills/get", uri=uri)
        assert got["skill"] == page["skills"][0] and "ttlMs" not in got
    finally:
        await connection.stop()


async def test_the_same_skill_path_under_two_roots_goes_to_the_earlier_root(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Two roots each with ``billing/SKILL.md``: one URI, so the earlier root serves it (a
    URI never changes meaning with the roots named after it) and stderr names the clash."""
    base = tmp_path_factory.mktemp("two-roots")
    for team in ("first", "second"):
        folder = base / team / "billing"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: billing\ndescription: Billing by the {team} team.\n---\nBody.\n"
        )
    for order in (("first", "second"), ("second", "first")):
        argv = serve_command(*(str(base / team) for team in order))
        stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
        connection = McpConnection(argv, stderr, modern=True)
        await connection.start()
        try:
            entries = (await request(connection, "skills/list"))["skills"]
        finally:
            await connection.stop()
        assert [entry["uri"] for entry in entries] == ["skill://billing/SKILL.md"]
        winner, dropped = (base / team / "billing/SKILL.md" for team in order)
        assert entries[0]["frontmatter"]["description"] == f"Billing by the {order[0]} team."
        assert (
            f"{dropped}: skipped: skill name 'billing' is already taken by {winner} "
            "(earlier roots win), which is served as skill://billing/SKILL.md"
        ) in connection.stderr()


# --- scale ----------------------------------------------------------------------------------

SCALE_SKILLS = 2000
SCALE_PAGE = 100
# Measured on a shared 2-core machine: start-up (discovery) about 2.2 s, all 20 pages about
# 1.6 s; with the search for nested skills (each skill folder scanned too), on a busier
# machine, 2.8 s and 3.0 s (discovery alone 0.5 s in process). The bound leaves room for
# a loaded machine.
SCALE_SECONDS = 30.0


async def test_two_thousand_skills_list_in_pages_in_bounded_time(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    import time

    root = tmp_path_factory.mktemp("scale") / "root"
    for n in range(SCALE_SKILLS):
        folder = root / f"team-{n % 20:02d}" / f"skill-{n:04d}"
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{n:04d}\ndescription: Generated skill {n}.\n---\nBody {n}.\n"
        )
        (folder / "references" / "notes.md").write_text(f"Notes {n}.\n")
    argv = serve_command(str(root), "--page-size", str(SCALE_PAGE))
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    connection = McpConnection(argv, stderr, modern=True)
    await connection.start()
    try:
        started = time.monotonic()
        pages = await all_pages(connection)
        elapsed = time.monotonic() - started
    finally:
        await connection.stop()
    entries = [entry for page in pages for entry in page["skills"]]
    assert len(pages) == SCALE_SKILLS // SCALE_PAGE
    assert len({entry["uri"] for entry in entries}) == SCALE_SKILLS
    assert all(len(entry["resources"]) == 2 for entry in entries)
    assert elapsed < SCALE_SECONDS, f"listing took {elapsed:.1f} s"


async def test_a_skill_md_edited_while_served_is_listed_as_it_is_now(
    server: McpConnection, root: Path
) -> None:
    """The listing kept discovery's frontmatter beside the new digest: an entry no host could
    verify (SEP: the frontmatter "MUST be identical in content" to the file's), and unlike
    the skills/get entry of the same skill."""
    uri = "skill://gen/skill-05/SKILL.md"
    skill_md = root / "gen/skill-05/SKILL.md"
    skill_md.write_text("---\nname: skill-05\ndescription: Edited.\nlicense: MIT\n---\nNew.\n")
    listed = {entry["uri"]: entry for page in await all_pages(server) for entry in page["skills"]}
    assert listed[uri]["frontmatter"] == {
        "name": "skill-05",
        "description": "Edited.",
        "license": "MIT",
    }
    assert listed[uri]["resources"][0]["digest"] == sha256(skill_md)
    assert (await request(server, "skills/get", uri=uri))["skill"] == listed[uri]
    # Renamed: skills/get refuses it, and the listing no longer offers it.
    skill_md.write_text("---\nname: renamed\ndescription: Renamed.\n---\n")
    with pytest.raises(MCPError) as caught:
        await request(server, "skills/get", uri=uri)
    assert caught.value.error.code == types.INVALID_PARAMS
    listed = {entry["uri"] for page in await all_pages(server) for entry in page["skills"]}
    assert uri not in listed and "skill://gen/skill-04/SKILL.md" in listed


async def test_a_name_too_long_for_the_system_is_an_invalid_uri_not_an_internal_error(
    server: McpConnection,
) -> None:
    for segment in ("x" * 300, "é" * 200):
        with pytest.raises(MCPError) as caught:
            await server.session.read_resource(f"skill://gen/skill-00/{segment}")
        assert caught.value.error.code == types.INVALID_PARAMS, caught.value.error
        assert "longer than a file name can be (255 bytes)" in caught.value.error.message


async def test_skills_beyond_the_sep_limits_are_not_served_and_named_on_stderr(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """SEP-2640 "Limits": 512 files and 16 MiB per skill; servers SHOULD NOT serve more.
    A file up to that size is read whole (reads stopped at 8 MiB, below what hosts take)."""
    root = tmp_path_factory.mktemp("limits") / "root"
    for name, files in (("many", 512), ("big", 0), ("fits", 511)):
        folder = root / name
        (folder / "files").mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name}.\n---\n")
        for n in range(files):
            (folder / "files" / f"{n}.md").write_text(str(n))
    (root / "big" / "files" / "large.txt").write_bytes(b"a" * (9 << 20))
    (root / "big" / "files" / "more.txt").write_bytes(b"b" * (8 << 20))
    (root / "nine" / "files").mkdir(parents=True)
    (root / "nine" / "SKILL.md").write_text("---\nname: nine\ndescription: Nine MiB.\n---\n")
    (root / "nine" / "files" / "large.txt").write_bytes(b"a" * (9 << 20))
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    connection = McpConnection(serve_command(str(root)), stderr, modern=True)
    await connection.start()
    try:
        listed = {e["uri"]: e for page in await all_pages(connection) for e in page["skills"]}
        assert sorted(listed) == ["skill://fits/SKILL.md", "skill://nine/SKILL.md"]
        assert len(listed["skill://fits/SKILL.md"]["resources"]) == 512
        for name, why in (("many", "513 files"), ("big", "limit of 16777216")):
            with pytest.raises(MCPError, match=why):
                await request(connection, "skills/get", uri=f"skill://{name}/SKILL.md")
        large = await connection.session.read_resource("skill://nine/files/large.txt")
        assert len(large.contents[0].text) == 9 << 20
    finally:
        await connection.stop()
    warnings = [line for line in connection.stderr().splitlines() if "SEP-2640" in line]
    assert len(warnings) == 2, warnings


async def test_names_that_are_not_utf8_are_left_out_not_fatal(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A file name that is not UTF-8 cannot be written in a URI or a JSON answer: it made
    skills/list fail for the whole page (with JSON-RPC code 0), and a folder listing or a
    skill folder so named (its path in the instructions) ended the server."""
    import os

    root = tmp_path_factory.mktemp("names") / "root"
    plain = root / "plain"
    plain.mkdir(parents=True)
    (plain / "SKILL.md").write_text("---\nname: plain\ndescription: Plain.\n---\nBody.\n")
    (plain / "good.md").write_text("good\n")
    with open(os.path.join(os.fsencode(plain), b"bad\xff.md"), "w") as bad:
        bad.write("bad\n")
    odd = os.path.join(os.fsencode(root), b"odd\xff")
    os.mkdir(odd)
    with open(os.path.join(odd, b"SKILL.md"), "w") as skill_md:
        skill_md.write("---\nname: odd\ndescription: In a folder not named in UTF-8.\n---\n")
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    connection = McpConnection(serve_command(str(root)), stderr, modern=True)
    await connection.start()
    try:
        listed = {e["uri"]: e for page in await all_pages(connection) for e in page["skills"]}
        assert sorted(listed) == ["skill://odd/SKILL.md", "skill://plain/SKILL.md"]
        files = [r["uri"] for r in listed["skill://plain/SKILL.md"]["resources"]]
        assert files == ["skill://plain/SKILL.md", "skill://plain/good.md"]
        folder = await request(connection, "resources/directory/read", uri="skill://plain")
        assert [r["uri"].rpartition("/")[2] for r in folder["resources"]] == ["SKILL.md", "good.md"]
        await connection.ok("skills_load", {"names": ["odd", "plain"]})
        listing = await connection.ok("skills_read", {"skill": "plain", "path": "."})
        assert listing.content[0].text.splitlines()[1:] == ["SKILL.md", "good.md"]
        deep = "skill://plain/" + "a/" * 40_000 + "x"  # resolved at every length: seconds
        with pytest.raises(MCPError, match="longer than any path") as caught:
            await connection.session.read_resource(deep)
        assert caught.value.error.code == types.INVALID_PARAMS
    finally:
        await connection.stop()
    assert "bad\\udcff.md' is not served: its name is not UTF-8" in connection.stderr()
    assert "Traceback" not in connection.stderr()


MISSING = [
    "skill://acme/billing/refunds/no-such-file.md",
    "skill://no-such-skill/SKILL.md",
]


async def test_a_resource_not_found_is_32602_under_2026_07_28(server: McpConnection) -> None:
    # 2026-07-28 (server/resources) retired -32002 for invalid params.
    for uri in MISSING:
        with pytest.raises(MCPError) as caught:
            await server.session.read_resource(uri)
        assert caught.value.error.code == types.INVALID_PARAMS, uri


async def test_a_resource_not_found_is_32002_with_its_uri_under_2025_11_25(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # Up to 2025-11-25, server/resources "Error Handling": "Resource not found: -32002",
    # with the URI in the error's data.
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    connection = McpConnection(serve_command(str(root)), stderr)
    await connection.start()
    try:
        assert connection.session.protocol_version == "2025-11-25"
        for uri in [*MISSING, "file:///etc/passwd"]:
            with pytest.raises(MCPError) as caught:
                await connection.session.read_resource(uri)
            assert (caught.value.error.code, caught.value.error.data) == (-32002, {"uri": uri})
    finally:
        await connection.stop()


async def test_requests_of_2026_07_28_keep_no_state_between_them(server: McpConnection) -> None:
    # 2026-07-28 (basic/index, Statelessness; server/prompts, List): a load changed what
    # prompts/list and skills_read answered later on the same connection.
    assert server.session.protocol_version in MODERN_PROTOCOL_VERSIONS
    before = [p.name for p in (await server.session.list_prompts()).prompts]
    await server.ok("skills_load", {"names": ["partial"]})
    after = [p.name for p in (await server.session.list_prompts()).prompts]
    assert before == after == ["active_skills"]
    refused = await server.refused("skills_read", {"path": "notes.md"}, "no_active_skill")
    assert "served statelessly" in refused and "'skill'" in refused
    # Named, the skill is read for that request alone.
    read = await server.ok("skills_read", {"path": "notes.md", "skill": "partial"})
    assert read.content[0].text == "Partial notes.\n"
    active = await server.session.read_resource("skills://active")
    assert "Partial" not in active.contents[0].text


async def test_frontmatter_is_typed_as_yaml_1_2_readers_type_it(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The TypeScript SDK's skills client (and the Inspector's --verify) read SKILL.md as
    YAML 1.2 and refuse a skill whose listed frontmatter differs (SEP-2640, Integrity and
    verification): PyYAML's 1.1 reading made yes a boolean, 017 fifteen and 1:30 ninety."""
    root = tmp_path_factory.mktemp("yaml12")
    folder = root / "typed"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: typed\ndescription: Typed values.\nmetadata:\n  enabled: yes\n"
        "  octal: 017\n  time: 1:30\n  when: 2025-01-01 10:00\n  big: 1e3\n  hex: 0x1F\n"
        "  quoted: '017'\n  flag: true\n---\nBody.\n"
    )
    connection = McpConnection(serve_command(str(root)), root / "stderr.txt")
    await connection.start()
    try:
        (entry,) = (await request(connection, "skills/list"))["skills"]
    finally:
        await connection.stop()
    assert entry["frontmatter"]["metadata"] == {
        "enabled": "yes",
        "octal": 17,
        "time": "1:30",
        "when": "2025-01-01 10:00",
        "big": 1000.0,
        "hex": 31,
        "quoted": "017",
        "flag": True,
    }

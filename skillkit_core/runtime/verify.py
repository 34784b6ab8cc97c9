"""Checking an MCP server's skills the way SEP-2640 tells hosts to (client side).

:func:`check_server` starts any MCP server on stdio, connects with the official ``mcp``
client (``server/discover`` first, where ``capabilities.extensions`` exists, else the
``initialize`` handshake), lists its skills through every ``skills/list`` page, and for
each entry:

- checks the entry's shape: the URI names a ``SKILL.md`` whose last skill-path segment is
  ``frontmatter.name``; ``resources`` lists that ``SKILL.md`` and each file once, every
  URI inside the skill, every digest ``sha256:`` and 64 lowercase hex digits;
- reads every listed file with ``resources/read`` and verifies its digest against the raw
  bytes;
- parses the ``SKILL.md`` it read and compares its frontmatter field by field with the
  entry's;
- asks ``skills/get`` for the same URI and expects the same entry;
- writes the files to a scratch folder and lints the skill with the SKILL.md rules (but
  ``script-not-executable``: resources carry no file modes).

The pure part, :func:`verify_entry`, takes an entry and the bytes read, so it can be used
on anything a host fetched.
"""

from __future__ import annotations

import base64
import hashlib
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from skillkit_core.runtime.skills_extension import EXTENSION_ID, MAX_RESOURCES, MAX_SKILL_BYTES

if TYPE_CHECKING:
    from skillkit_core.lint.diagnostic import LintDiagnostic

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_SKILL_MD = "/SKILL.md"
# Lint rules about file modes, which MCP resources do not carry: not reported.
_MODE_RULES = frozenset({"script-not-executable"})
# Listing pages followed at most (a server that never stops paging is a finding).
MAX_PAGES = 10_000


@dataclass
class SkillCheck:
    """What was found for one listed skill: verification failures (``problems``; any
    means a host must not load it) and lint findings of its files."""

    uri: str
    name: str
    problems: list[str] = field(default_factory=list)
    diagnostics: list[LintDiagnostic] = field(default_factory=list)
    files: int = 0

    @property
    def verified(self) -> bool:
        return not self.problems

    @property
    def lint_errors(self) -> list[LintDiagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


@dataclass
class ServerCheck:
    """The whole check: whether the extension was declared (``None``: the connection was
    an ``initialize`` one whose answer had no ``capabilities.extensions``, which the
    2025-11-25 schema lacks), server-level problems, and one :class:`SkillCheck` per
    listed skill."""

    declared: bool | None
    directory_read: bool
    protocol_version: str | None
    problems: list[str] = field(default_factory=list)
    skills: list[SkillCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No server problem, every skill verified, no lint error."""
        return (
            not self.problems
            and self.declared is not False
            and all(s.verified and not s.lint_errors for s in self.skills)
        )


def verify_entry(entry: Mapping[str, Any], files: Mapping[str, bytes]) -> list[str]:
    """The host-side checks of one ``skills/list``/``skills/get`` entry against the bytes
    read for its URIs (``files``: URI to raw bytes; a listed URI missing from it is a file
    that could not be read). An empty list means the skill verified."""
    problems: list[str] = []
    uri = entry.get("uri")
    frontmatter = entry.get("frontmatter")
    if not isinstance(uri, str) or not uri.endswith(_SKILL_MD):
        return [f"the entry's uri {uri!r} does not name a SKILL.md"]
    if not isinstance(frontmatter, dict):
        return [f"{uri}: the entry has no frontmatter object"]
    root = uri.removesuffix(_SKILL_MD)
    last = unquote(root.rsplit("/", 1)[-1].split("://", 1)[-1])
    if frontmatter.get("name") != last:
        problems.append(
            f"{uri}: the last skill-path segment '{last}' is not frontmatter.name "
            f"{frontmatter.get('name')!r}"
        )
    if not isinstance(frontmatter.get("description"), str):
        problems.append(f"{uri}: frontmatter has no description")
    resources = entry.get("resources")
    if resources is None:
        return [*problems, f"{uri}: no resources: the skill cannot be verified or content-bound"]
    if resources == "dynamic":  # deliberately unverifiable: only SKILL.md can be checked
        if uri in files:
            problems += [f"{uri}: {p}" for p in _frontmatter_problems(files[uri], frontmatter)]
        return problems
    if not isinstance(resources, list):
        return [*problems, f'{uri}: resources is neither a list nor "dynamic"']
    seen: set[str] = set()
    total = 0
    for resource in resources:
        file_uri = resource.get("uri") if isinstance(resource, dict) else None
        digest = resource.get("digest") if isinstance(resource, dict) else None
        if not isinstance(file_uri, str):
            problems.append(f"{uri}: a resource has no uri")
            continue
        if file_uri in seen:
            problems.append(f"{file_uri}: listed more than once")
        seen.add(file_uri)
        if file_uri != uri and not file_uri.startswith(root + "/"):
            problems.append(f"{file_uri}: not a file of the skill {root}")
        size, size_problem = _size(resource)
        if size_problem:
            problems.append(f"{file_uri}: {size_problem}")
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            problems.append(f"{file_uri}: digest {digest!r} is not sha256: and 64 lowercase hex")
            continue
        data = files.get(file_uri)
        if data is None:
            problems.append(f"{file_uri}: could not be read")
            continue
        total += len(data) if size is None else size
        if size is not None and len(data) != size:
            problems.append(f"{file_uri}: {len(data)} bytes read, {size} listed")
        elif "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            problems.append(f"{file_uri}: the content read does not match the listed digest")
    if len(resources) > MAX_RESOURCES or total > MAX_SKILL_BYTES:
        problems.append(
            f"{uri}: {len(resources)} files of {total} bytes, beyond SEP-2640's limits "
            f"({MAX_RESOURCES} files, {MAX_SKILL_BYTES} bytes): no host has to load it"
        )
    if uri not in seen:
        problems.append(f"{uri}: resources does not list the SKILL.md itself")
    elif uri in files:
        problems += [f"{uri}: {p}" for p in _frontmatter_problems(files[uri], frontmatter)]
    return problems


def _size(resource: Mapping[str, Any]) -> tuple[int | None, str | None]:
    """A resource's ``size`` and what is wrong with it. The SEP's newest text requires it
    (a read of another length fails like a wrong digest); earlier drafts had none, nor
    does agentskills-mcp-server 0.7.0, so a missing size is not counted against a skill."""
    if "size" not in resource:
        return None, None
    size = resource["size"]
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        return None, f"size {size!r} is not a byte count"
    return size, None


def _frontmatter_problems(skill_md: bytes, listed: Mapping[str, Any]) -> list[str]:
    """Compare the frontmatter of the SKILL.md read with the listed one, field by field."""
    from skillkit_core.manifest.parse import parse_skill_md
    from skillkit_core.runtime.registry import json_safe

    try:
        text = skill_md.decode("utf-8")
    except UnicodeDecodeError:
        return ["the SKILL.md read is not UTF-8"]
    parsed = parse_skill_md(text.removeprefix("\ufeff"))
    if parsed.problems or not isinstance(parsed.frontmatter, dict):
        return ["the frontmatter of the SKILL.md read cannot be parsed"]
    actual = json_safe(parsed.frontmatter)
    differing = sorted(
        key for key in set(actual) | set(listed) if actual.get(key, ...) != listed.get(key, ...)
    )
    if differing:
        return [f"frontmatter differs from the listing in: {', '.join(differing)}"]
    return []


async def check_session(session: Any, *, lint: bool = True) -> list[SkillCheck]:
    """List, download and verify every skill an initialized ``ClientSession`` serves."""
    from mcp.shared.exceptions import MCPError

    entries: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await _call(session, "skills/list", **({"cursor": cursor} if cursor else {}))
        entries += page.get("skills", [])
        cursor = page.get("nextCursor")
        if not cursor:
            break
    checks = []
    listed_uris = [entry.get("uri") for entry in entries]
    for entry in entries:
        uri = str(entry.get("uri"))
        check = SkillCheck(uri, str((entry.get("frontmatter") or {}).get("name", "?")))
        if listed_uris.count(uri) > 1:
            check.problems.append(f"{uri}: listed more than once")
        files: dict[str, bytes] = {}
        for resource in entry.get("resources") or []:
            file_uri = resource.get("uri") if isinstance(resource, dict) else None
            if not isinstance(file_uri, str) or file_uri in files:
                continue
            try:
                files[file_uri] = await _read(session, file_uri)
            except MCPError as error:
                check.problems.append(f"{file_uri}: resources/read failed: {error}")
        check.files = len(files)
        check.problems += verify_entry(entry, files)
        try:
            got = (await _call(session, "skills/get", uri=uri)).get("skill")
            if got != entry:
                check.problems.append(f"{uri}: skills/get answers another entry than the listing")
        except MCPError as error:
            check.problems.append(f"{uri}: skills/get failed: {error}")
        if lint and not check.problems:
            check.diagnostics = _lint(uri, files)
        checks.append(check)
    return checks


DEFAULT_TIMEOUT = 30.0
"""Seconds a server may take to answer one request before the check gives up on it."""


async def check_server(
    argv: Sequence[str], *, lint: bool = True, timeout: float = DEFAULT_TIMEOUT
) -> ServerCheck:
    """Start the MCP server ``argv`` on stdio and check its skills (see the module);
    a request unanswered after ``timeout`` seconds fails the check."""
    import os

    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.shared.exceptions import MCPError

    params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=dict(os.environ))
    with open(os.devnull, "w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write, read_timeout_seconds=timeout) as session,
        ):
            try:
                with anyio.fail_after(timeout):  # the probe keeps a limit of its own
                    capabilities = (await session.discover()).capabilities
                declared: bool | None = EXTENSION_ID in (capabilities.extensions or {})
            except (MCPError, TimeoutError):
                capabilities = (await session.initialize()).capabilities
                # The 2025-11-25 schema has no ``extensions`` field, so some servers cannot
                # send the map in an ``initialize`` answer (skillkit adds it): a missing
                # map says nothing, a map without the extension says it is not there.
                extensions = capabilities.extensions
                declared = None if extensions is None else EXTENSION_ID in extensions
            settings = (capabilities.extensions or {}).get(EXTENSION_ID) or {}
            result = ServerCheck(
                declared=declared,
                directory_read=settings.get("directoryRead") is True,
                protocol_version=session.protocol_version,
            )
            if declared is False:
                result.problems.append(f"the server does not declare {EXTENSION_ID}")
            try:
                result.skills = await check_session(session, lint=lint)
            except MCPError as error:
                result.problems.append(f"skills/list failed: {error}")
    return result


async def _call(session: Any, method: str, **params: Any) -> dict[str, Any]:
    import mcp_types
    from pydantic import TypeAdapter

    request = mcp_types.Request[dict[str, Any], str](method=method, params=params)
    return await session.send_request(request, TypeAdapter(dict[str, Any]))


async def _read(session: Any, uri: str) -> bytes:
    import mcp_types

    contents = (await session.read_resource(uri)).contents
    if len(contents) != 1:
        raise _error(f"expected one content item, got {len(contents)}")
    item = contents[0]
    if isinstance(item, mcp_types.TextResourceContents):
        return item.text.encode("utf-8")
    return base64.b64decode(item.blob, validate=True)


def _lint(uri: str, files: Mapping[str, bytes]) -> list[LintDiagnostic]:
    """Write the skill's files to a scratch folder named after the skill and lint it.
    A path that would leave the folder is not written (verification refused it first)."""
    from skillkit_core.lint.check_folder import check_skill_folder

    root = uri.removesuffix(_SKILL_MD)
    name = unquote(root.rsplit("/", 1)[-1].split("://", 1)[-1])
    with tempfile.TemporaryDirectory(prefix="skillkit-verify-") as scratch:
        folder = Path(scratch) / _safe_segment(name, fallback="skill")
        folder.mkdir()
        for file_uri, data in files.items():
            segments = [unquote(s) for s in file_uri.removeprefix(root + "/").split("/")]
            if not all(_safe_segment(s) == s for s in segments):
                continue
            target = folder.joinpath(*segments)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        found = [d for d in check_skill_folder(folder) if d.rule not in _MODE_RULES]
        # Name files by their place in the skill, not in the scratch folder that is gone.
        return [d._replace(file=_relative(d.file, folder)) for d in found]


def _relative(file: str | None, folder: Path) -> str | None:
    if file is None:
        return None
    path = Path(file)
    return path.relative_to(folder).as_posix() if path.is_relative_to(folder) else file


def _safe_segment(segment: str, fallback: str = "") -> str:
    if segment in ("", ".", "..") or any(c in segment for c in "/\\\x00"):
        return fallback
    return segment


def _error(message: str) -> Exception:
    import mcp_types
    from mcp.shared.exceptions import MCPError

    return MCPError(code=mcp_types.INTERNAL_ERROR, message=message)


def report_json(check: ServerCheck) -> str:
    """The check as JSON text for a terminal (``skillkit mcp-verify --format json``): what
    the server sent cannot reach the terminal as control characters."""
    import json

    from skillkit_core.safe_text import escape_json_controls

    return escape_json_controls(json.dumps(report_data(check), indent=2, ensure_ascii=False))


def report_data(check: ServerCheck) -> dict[str, Any]:
    """The check as JSON data."""
    return {
        "ok": check.ok,
        "declared": check.declared,
        "directoryRead": check.directory_read,
        "protocolVersion": check.protocol_version,
        "problems": list(check.problems),
        "skills": [
            {
                "uri": skill.uri,
                "name": skill.name,
                "files": skill.files,
                "verified": skill.verified,
                "problems": list(skill.problems),
                "findings": [
                    {
                        "rule": d.rule,
                        "severity": d.severity,
                        "message": d.message,
                        "file": d.file,
                        "line": d.range.line + 1 if d.range is not None else None,
                    }
                    for d in skill.diagnostics
                ],
            }
            for skill in check.skills
        ],
    }


def report_text(check: ServerCheck) -> str:
    """The check as lines for a terminal (``skillkit mcp-verify``)."""
    from skillkit_core.safe_text import escape_controls as printable

    declared = {True: "declared", False: "NOT declared", None: "not visible (initialize)"}
    lines = [
        f"extension {EXTENSION_ID}: {declared[check.declared]}"
        + (", directoryRead" if check.directory_read else "")
        + (f" (protocol {check.protocol_version})" if check.protocol_version else "")
    ]
    lines += [f"problem: {printable(problem)}" for problem in check.problems]
    for skill in check.skills:
        mark = "ok" if skill.verified and not skill.lint_errors else "FAILED"
        lines.append(f"{mark:6} {printable(skill.uri)} ({skill.files} file(s))")
        lines += [f"       refused: {printable(problem)}" for problem in skill.problems]
        for d in skill.diagnostics:
            where = f"{d.file}:{d.range.line + 1}" if d.file and d.range else d.file or ""
            lines.append(f"       {d.severity}[{d.rule}] {where} {printable(d.message)}")
    verified = sum(1 for skill in check.skills if skill.verified)
    linted = sum(1 for skill in check.skills if skill.lint_errors)
    lines.append(
        f"{verified} of {len(check.skills)} skill(s) verified, {linted} with lint errors; "
        + ("OK" if check.ok else "FAILED")
    )
    return "\n".join(lines)

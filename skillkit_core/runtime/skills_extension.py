"""The MCP skills extension (``io.modelcontextprotocol/skills``, SEP-2640) over the registry.

Every file of a served skill is a resource ``skill://<skill-path>/<file-path>``: the
skill-path is :attr:`SkillRecord.skill_path` (the folders between the skill's root and the
skill, then the skill's name), the file-path the file's path inside the skill folder, each
segment percent-encoded. On top of ``resources/read`` the extension adds three methods,
bound with the SDK's :class:`~mcp.server.extension.MethodBinding`:

- ``skills/list``: one entry per skill (the SKILL.md URI, the frontmatter as discovery read
  it, every file with the ``sha256:`` digest of its raw bytes), in discovery order, paged
  with an opaque cursor; a page holds whole entries.
  Nested skills are entries of their own (the registry finds them, see
  :mod:`skillkit_core.runtime.registry`), and their files are files of the enclosing
  skill's entry too, as the SEP's completeness rule asks.
- ``skills/get``: the entry of one skill by its SKILL.md URI, its SKILL.md read again
  (with the registry's reader) so an edited skill answers with its current frontmatter;
  also for a nested skill the listing leaves out (one in ``assets/``, or deeper than
  discovery looks).
- ``resources/directory/read``: the direct children of a skill folder or of a folder inside
  it, folders as ``inode/directory``.

Besides, :func:`resources_page` pages ``resources/list`` (every served skill's SKILL.md;
the rest is reached through the templates of :func:`resource_templates` and directory
reads), and :func:`install` declares the extension in ``initialize`` answers as well as in
``server/discover`` ones.

Nothing is scanned twice: entries come from the server's one :class:`Registry`, and digests
from its :class:`~skillkit_core.runtime.records.FileDigests` cache. Every path from a URI
goes through :func:`~skillkit_core.runtime.paths.resolve_inside`, like the tools' reads.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import mimetypes
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from skillkit_core.errors import SkillkitError
from skillkit_core.runtime.errors import MissingSkillFileError
from skillkit_core.runtime.paths import is_inside, resolve_inside, utf8_name
from skillkit_core.runtime.reading import SkillFile, read_skill_file
from skillkit_core.runtime.records import Registry, RegistryWarning, SkillRecord

EXTENSION_ID = "io.modelcontextprotocol/skills"
SCHEME = "skill://"
SKILL_MD = "SKILL.md"
DIRECTORY_MIME = "inode/directory"
DEFAULT_PAGE_SIZE = 50
MAX_RESOURCES = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024
"""SEP-2640's per-skill limits: hosts must accept skills up to them, and servers should not
serve a skill beyond either (so a file up to this size is read whole)."""
_SKILL_MD_ANNOTATIONS = types.Annotations(audience=["user", "assistant"], priority=0.8)


class SkillsListParams(types.PaginatedRequestParams):
    """``skills/list`` params: an optional cursor."""


class SkillsGetParams(types.RequestParams):
    """``skills/get`` params: the URI of a skill's SKILL.md."""

    uri: str


class DirectoryReadParams(types.PaginatedRequestParams):
    """``resources/directory/read`` params: a directory URI and an optional cursor."""

    uri: str


@dataclass(frozen=True)
class SkillUri:
    """A ``skill://`` URI taken apart: the skill it names and the path inside it
    (``""`` for the skill folder itself)."""

    record: SkillRecord
    path: str


def skill_root_uri(record: SkillRecord) -> str:
    """``skill://<skill-path>``: the skill folder as a directory resource."""
    return SCHEME + "/".join(_encode(segment) for segment in record.skill_path)


def file_uri(record: SkillRecord, path: str) -> str:
    """The URI of ``path`` (``/``-separated, relative to the skill folder)."""
    if not path:
        return skill_root_uri(record)
    return skill_root_uri(record) + "/" + "/".join(_encode(s) for s in path.split("/"))


def skill_uri(record: SkillRecord) -> str:
    """The URI of the skill's SKILL.md: what identifies the skill in the extension."""
    return file_uri(record, SKILL_MD)


def is_skill_uri(uri: str) -> bool:
    """Whether ``uri``'s scheme is ``skill``, in any case (RFC 3986, 3.1: schemes are
    case-insensitive; the TypeScript SDK's clients may send ``SKILL://``)."""
    return uri[: len(SCHEME)].lower() == SCHEME


def parse_uri(registry: Registry, uri: str) -> SkillUri:
    """The skill and path a ``skill://`` URI names, or an ``MCPError`` (invalid params).

    The longest leading run of segments that is a skill's path picks the skill (a nested
    skill wins over the skill around it); the rest, percent-decoded, is the path inside it,
    refused exactly as a tool's path is (absolute, ``..``, NUL, symlinks out of the skill),
    and refused when it is not written the way the server writes URIs (empty or ``.``
    segments, also percent-encoded, an encoded ``/``, a query or fragment).
    """
    if not is_skill_uri(uri):
        raise _invalid(f"'{uri}' is not a {SCHEME} URI")
    rest = uri[len(SCHEME) :]
    if "?" in rest or "#" in rest:
        raise _invalid(f"'{uri}' has a query or fragment; skill URIs have neither")
    raw = rest.split("/")
    try:
        decoded = [unquote(segment, errors="strict") for segment in raw]
    except UnicodeDecodeError:
        raise _invalid(f"'{uri}' has percent-escapes that are not UTF-8") from None
    if any(segment in ("", ".") or "/" in segment for segment in decoded):
        raise _invalid(f"'{uri}' has an empty or '.' segment, or an encoded '/'")
    # From the deepest a skill's path can be: the rest is a path inside the skill (a URI
    # of many thousand segments took seconds of the event loop, tried at every length).
    for end in range(min(len(decoded), registry.deepest), 0, -1):
        record = registry.at_path(tuple(decoded[:end]))
        if record is None:
            continue
        path = "/".join(decoded[end:])
        if decoded[end:] and decoded[end] in record.hidden:
            raise _invalid(f"'{decoded[end]}' of skill '{record.name}' is not served")
        if path:
            try:
                resolve_inside(record.root_dir, path, skill=record.name)
            except SkillkitError as error:
                raise _invalid(error.message) from None
        return SkillUri(record, path)
    raise ResourceNotFound(uri, f"no skill served here has the resource {uri}")


def skill_files(record: SkillRecord) -> list[tuple[str, Path]]:
    """Every regular file of the skill as (path inside the skill, real path): SKILL.md
    first, then the rest in sorted path order. Symlinks are followed while they stay inside
    the skill folder (each real folder walked once); anything leading out is left out, as
    it cannot be read."""
    real_root = Path(os.path.realpath(record.root_dir))
    found: list[tuple[str, Path]] = []
    visited = {real_root}

    def walk(folder: Path, prefix: str) -> None:
        for name, real, is_dir in _children(folder, real_root):
            if not prefix and name in record.hidden:
                continue
            path = f"{prefix}{name}"
            if is_dir:
                if real not in visited:
                    visited.add(real)
                    walk(real, path + "/")
            else:
                found.append((path, real))

    walk(real_root, "")
    found.sort(key=lambda item: (item[0] != SKILL_MD, item[0]))
    return found


def skill_entry(registry: Registry, record: SkillRecord) -> dict[str, Any]:
    """The extension's entry for ``record``: URI, frontmatter, every file with its digest
    and size."""
    resources = []
    for path, real in skill_files(record):
        try:
            digest, size = registry.digests.sized(real)
        except OSError:
            continue  # gone or unreadable since the walk: not a file the server can serve
        resources.append({"uri": file_uri(record, path), "digest": digest, "size": size})
    return {"uri": skill_uri(record), "frontmatter": record.properties, "resources": resources}


def over_limits(entry: dict[str, Any]) -> str | None:
    """Why the skill of ``entry`` is beyond SEP-2640's per-skill limits (its "Limits":
    :data:`MAX_RESOURCES` files, :data:`MAX_SKILL_BYTES` in all), or ``None``."""
    resources = entry["resources"]
    if len(resources) > MAX_RESOURCES:
        return f"it has {len(resources)} files, over SEP-2640's limit of {MAX_RESOURCES}"
    total = sum(resource["size"] for resource in resources)
    if total > MAX_SKILL_BYTES:
        return f"its files hold {total} bytes, over SEP-2640's limit of {MAX_SKILL_BYTES}"
    return None


def list_page(
    registry: Registry, cursor: str | None, page_size: int
) -> tuple[list[dict[str, Any]], str | None]:
    """One page of ``skills/list``: the entries and the cursor of the next page. A skill
    whose SKILL.md changed since discovery is listed as it is now (and left out when it
    can no longer be loaded, as ``skills/get`` refuses it); one beyond the SEP's limits is
    left out, with a warning on stderr."""
    records = registry.served
    start = _offset(cursor, len(records))
    end = min(start + page_size, len(records))
    entries = [_listed(registry, record) for record in records[start:end]]
    return [e for e in entries if e is not None], (_cursor(end) if end < len(records) else None)


def _listed(registry: Registry, record: SkillRecord) -> dict[str, Any] | None:
    entry = skill_entry(registry, record)
    first = entry["resources"][0] if entry["resources"] else None
    if first is None or first["uri"] != entry["uri"] or first["digest"] != record.digest:
        try:  # edited since discovery: the frontmatter must be the file's (SEP "Frontmatter")
            entry = skill_entry(registry, registry.refresh(record))
        except SkillkitError:
            return None
    problem = over_limits(entry)
    if problem is not None:
        _warn_once(f"{entry['uri']} is not served through the skills extension: {problem}")
        return None
    return entry


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    import sys

    if message not in _warned:
        _warned.add(message)
        print(f"skillkit: warning: {message}", file=sys.stderr)


def get_entry(registry: Registry, uri: str) -> dict[str, Any]:
    """``skills/get``: the entry of the skill whose SKILL.md is at ``uri``, read afresh.

    Besides the registry's skills (nested ones included) this answers for any nested
    skill discovery left out: a valid SKILL.md in a folder below a served skill, whose
    folder name is its ``name`` (see :func:`nested_record`), such as an example in the
    skill's ``assets/``.
    """
    target = parse_uri(registry, uri)
    if target.path == SKILL_MD:
        try:
            record = registry.refresh(target.record)
        except SkillkitError as error:
            raise _invalid(error.message) from None
    elif target.path.endswith("/" + SKILL_MD):
        folder = target.path.removesuffix("/" + SKILL_MD)
        record = nested_record(registry, target.record, folder)
    else:
        raise _invalid(f"'{uri}' is not the SKILL.md of a skill served here")
    entry = skill_entry(registry, record)
    problem = over_limits(entry)
    if problem is not None:
        raise _invalid(f"'{uri}' is not served through the skills extension: {problem}")
    return entry


def nested_record(registry: Registry, enclosing: SkillRecord, folder: str) -> SkillRecord:
    """The skill in ``folder`` (a path inside ``enclosing``), read with ``registry``'s
    reader, as a record of its own whose skill path continues the enclosing one; an
    ``MCPError`` when it is not a valid skill or its folder name is not its name."""
    try:
        real = resolve_inside(enclosing.root_dir, folder, skill=enclosing.name)
    except SkillkitError as error:
        raise _invalid(error.message) from None
    if not (real / SKILL_MD).is_file():
        raise _invalid(f"'{folder}' of skill '{enclosing.name}' holds no {SKILL_MD}")
    outcome = registry.read(real, enclosing.root_dir)
    if isinstance(outcome, RegistryWarning):
        raise _invalid(
            f"'{folder}/{SKILL_MD}' of skill '{enclosing.name}' is not served: {outcome.message}"
        )
    segments = tuple(folder.split("/"))
    if outcome.name != segments[-1]:
        raise _invalid(
            f"'{folder}/{SKILL_MD}' of skill '{enclosing.name}' declares name "
            f"'{outcome.name}'; a nested skill's folder must be named after it"
        )
    return dataclasses.replace(outcome, skill_path=enclosing.skill_path + segments)


def read_contents(
    registry: Registry,
    uri: str,
    *,
    max_bytes: int = MAX_SKILL_BYTES,
    protocol_version: str | None = None,
) -> types.ResourceContents:
    """``resources/read`` of a ``skill://`` file: text when it is UTF-8 without NUL bytes
    (``text/markdown`` for SKILL.md), else base64 bytes. Up to ``max_bytes``: by default
    the SEP's limit for a whole skill, so every file of a served skill can be read. A file
    or skill that is not there is answered as ``protocol_version`` asks
    (:class:`ResourceNotFound`)."""
    try:
        return _contents(registry, uri, max_bytes)
    except ResourceNotFound as missing:
        raise missing.answer(protocol_version) from None


def _contents(registry: Registry, uri: str, max_bytes: int) -> types.ResourceContents:
    target = parse_uri(registry, uri)
    if not target.path:
        raise _invalid(f"'{uri}' is a skill folder; list it with resources/directory/read")
    found = _read(target, max_bytes)
    if found.listing is not None:
        raise _invalid(f"'{uri}' is a folder; list it with resources/directory/read")
    mime = "text/markdown" if target.path == SKILL_MD else found.mime_type
    if found.text is not None:
        return types.TextResourceContents(uri=uri, mime_type=mime, text=found.text)
    blob = base64.b64encode(found.data or b"").decode("ascii")
    return types.BlobResourceContents(uri=uri, mime_type=mime, blob=blob)


def directory_page(
    registry: Registry, uri: str, cursor: str | None, page_size: int
) -> tuple[list[types.Resource], str | None]:
    """``resources/directory/read``: one page of the direct children of a folder."""
    target = parse_uri(registry, uri)
    record = target.record
    real_root = Path(os.path.realpath(record.root_dir))
    folder = real_root
    if target.path:
        folder = resolve_inside(record.root_dir, target.path, skill=record.name)
        if not folder.is_dir():
            raise _invalid(f"'{uri}' is not a folder of skill '{record.name}'")
    children = [
        child
        for child in _children(folder, real_root)
        if target.path or child[0] not in record.hidden
    ]
    start = _offset(cursor, len(children))
    end = min(start + page_size, len(children))
    prefix = f"{target.path}/" if target.path else ""
    resources = [
        types.Resource(
            uri=file_uri(record, prefix + name),
            name=name,
            mime_type=DIRECTORY_MIME if is_dir else _mime(prefix + name, real),
        )
        if prefix + name != SKILL_MD
        else list_resource(record)
        for name, real, is_dir in children[start:end]
    ]
    return resources, (_cursor(end) if end < len(children) else None)


def list_resource(record: SkillRecord) -> types.Resource:
    """The SKILL.md resource of ``record`` with its name and description, annotated as the
    working group's ``_meta`` keys note suggests (docs/skill-meta-keys.md, "Using
    annotations"): for the user and the model, and a high priority, as a skill's entry
    point."""
    return types.Resource(
        uri=skill_uri(record),
        name=record.name,
        description=record.description,
        mime_type="text/markdown",
        annotations=_SKILL_MD_ANNOTATIONS,
    )


def resources_page(
    registry: Registry,
    cursor: str | None,
    page_size: int,
    leading: Sequence[types.Resource] = (),
) -> tuple[list[types.Resource], str | None]:
    """One page of ``resources/list``: ``leading`` (the server's own resources), then the
    SKILL.md of every served skill (:func:`list_resource`), in listing order.

    Supporting files are not listed: a catalog of thousands of skills would list every file
    of every one, while the SEP gives hosts the files of a skill through its entry, the
    ``skill://`` templates and ``resources/directory/read``.
    """
    records = registry.served
    total = len(leading) + len(records)
    start = _offset(cursor, total)
    end = min(start + page_size, total)
    page = [
        leading[n] if n < len(leading) else list_resource(records[n - len(leading)])
        for n in range(start, end)
    ]
    return page, (_cursor(end) if end < total else None)


def resource_templates() -> list[types.ResourceTemplate]:
    """The ``skill://`` URI templates (RFC 6570) for ``resources/templates/list``: a skill's
    SKILL.md, and any file of a skill."""
    return [
        types.ResourceTemplate(
            uri_template=SCHEME + "{+skill_path}/SKILL.md",
            name="skill",
            description=(
                "A skill's SKILL.md. skill_path is the folders from a served root down to "
                "the skill's folder, ending in the skill's name (skills/list gives them all)."
            ),
            mime_type="text/markdown",
        ),
        types.ResourceTemplate(
            uri_template=SCHEME + "{+skill_path}/{+file_path}",
            name="skill-file",
            description=(
                "Any file of a skill: file_path is its path inside the skill's folder "
                "(resources/directory/read lists a folder)."
            ),
        ),
    ]


class SkillsExtension(Extension):
    """The extension's methods over one registry, for the low-level server."""

    identifier = EXTENSION_ID

    def __init__(self, registry: Registry, *, page_size: int = DEFAULT_PAGE_SIZE) -> None:
        if page_size < 1:
            raise ValueError(f"the page size must be 1 or more, not {page_size}")
        self.registry = registry
        self.page_size = page_size

    def settings(self) -> dict[str, Any]:
        return {"directoryRead": True}

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("skills/list", SkillsListParams, self._list),
            MethodBinding("skills/get", SkillsGetParams, self._get),
            MethodBinding("resources/directory/read", DirectoryReadParams, self._directory),
        )

    async def _list(self, ctx: Any, params: SkillsListParams) -> dict[str, Any]:
        entries, next_cursor = list_page(self.registry, params.cursor, self.page_size)
        result: dict[str, Any] = {"skills": entries}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return _cacheable(ctx, result)

    async def _get(self, ctx: Any, params: SkillsGetParams) -> dict[str, Any]:
        return _cacheable(ctx, {"skill": get_entry(self.registry, params.uri)})

    async def _directory(self, ctx: Any, params: DirectoryReadParams) -> dict[str, Any]:
        try:
            resources, next_cursor = directory_page(
                self.registry, params.uri, params.cursor, self.page_size
            )
        except SkillkitError as error:
            raise _invalid(error.message) from None
        result: dict[str, Any] = {
            "resources": [
                r.model_dump(by_alias=True, mode="json", exclude_none=True) for r in resources
            ]
        }
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return _cacheable(ctx, result)


def _cacheable(ctx: Any, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with SEP-2549's caching fields under a 2026-07-28 connection: a digest
    may change with any edit, so no freshness is promised, and the answer is for this
    connection only. SEP-2640 asks them of skills/list; the official clients of that
    version (TypeScript @modelcontextprotocol/client 2.4's skills client, the Inspector
    2.12) require them of skills/get and resources/directory/read too."""
    if getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
        result.update({"ttlMs": 0, "cacheScope": "private"})
    return result


def install(server: Any, extension: Extension) -> None:
    """Apply ``extension`` to a low-level ``Server``: its methods become request handlers
    and its settings are advertised under ``capabilities.extensions`` (what the SDK's
    ``MCPServer(extensions=...)`` does for its own servers)."""
    for binding in extension.methods():
        if server.get_request_handler(binding.method) is not None:
            raise ValueError(f"{binding.method} already has a handler")
        server.add_request_handler(binding.method, binding.params_type, binding.handler)
    server.extensions[extension.identifier] = extension.settings()
    if not any(isinstance(m, _DeclareInInitialize) for m in server.middleware):
        server.middleware.append(_DeclareInInitialize(server.extensions))


class _DeclareInInitialize:
    """Server middleware adding ``capabilities.extensions`` to an ``initialize`` answer.

    SEP-2640 ("Capability Declaration") has servers declare the extension "in their
    ``initialize`` response", per SEP-2133. The SDK (2.3) puts the map only in
    ``server/discover`` answers: its ``initialize`` result is validated against the
    2025-11-25 schema, whose ``ServerCapabilities`` has no ``extensions`` field and drops
    it. That schema calls the capabilities "not a closed set: any server can define its
    own, additional capabilities", and the SDK's client keeps the field, so the map is
    added to the answer on its way out, after the SDK has shaped it.
    """

    def __init__(self, extensions: dict[str, dict[str, Any]]) -> None:
        self._extensions = extensions

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict) and self._extensions:
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict) and "extensions" not in capabilities:
                capabilities["extensions"] = {
                    identifier: dict(settings) for identifier, settings in self._extensions.items()
                }
        return result


def _read(target: SkillUri, max_bytes: int) -> SkillFile:
    uri = file_uri(target.record, target.path)
    try:
        return read_skill_file(
            target.record.root_dir,
            target.path,
            skill=target.record.name,
            max_bytes=max_bytes,
            hidden=target.record.hidden,
        )
    except MissingSkillFileError as error:
        raise ResourceNotFound(uri, error.message) from None
    except SkillkitError as error:
        raise _invalid(error.message) from None


def _children(folder: Path, real_root: Path) -> Iterator[tuple[str, Path, bool]]:
    """(name, real path, is a folder) of ``folder``'s entries that resolve inside the
    skill, sorted by name."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if not utf8_name(entry.name):
            _warn_once(f"{entry.path!r} is not served: its name is not UTF-8")
            continue
        real = Path(os.path.realpath(entry.path))
        if not is_inside(real, real_root):
            continue
        if real.is_dir():
            yield entry.name, real, True
        elif real.is_file():
            yield entry.name, real, False


def _mime(path: str, real: Path) -> str:
    if path == SKILL_MD:
        return "text/markdown"
    return mimetypes.guess_type(real.name)[0] or "application/octet-stream"


def _encode(segment: str) -> str:
    return quote(segment, safe="")


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode("ascii")


_CURSOR_MAX = 256


def _offset(cursor: str | None, total: int) -> int:
    if cursor is None:
        return 0
    # The cursors given out are a few dozen characters; a longer one is not one of them
    # (base64 of 100,000 nested brackets made json.loads a RecursionError, -32603).
    if len(cursor) > _CURSOR_MAX:
        raise _invalid("the cursor is not one this server gave out")
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))["offset"]
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeError, RecursionError):
        raise _invalid("the cursor is not one this server gave out") from None
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset <= total:
        raise _invalid("the cursor is not one this server gave out")
    return offset


class ResourceNotFound(MCPError):
    """A ``skill://`` URI naming no skill or no file of one: invalid params where it is
    not answered otherwise. ``resources/read`` answers it ``-32002`` with the URI as data,
    as protocol versions up to 2025-11-25 ask (server/resources, Error Handling), and
    ``-32602`` under 2026-07-28, which retired -32002 (receivers still read it)."""

    def __init__(self, uri: str, message: str) -> None:
        super().__init__(code=types.INVALID_PARAMS, message=message)
        self.uri = uri

    def answer(self, protocol_version: str | None) -> MCPError:
        """The error for a ``resources/read`` under ``protocol_version``."""
        modern = protocol_version in MODERN_PROTOCOL_VERSIONS
        code = types.INVALID_PARAMS if modern else RESOURCE_NOT_FOUND
        return MCPError(code=code, message=self.error.message, data={"uri": self.uri})


RESOURCE_NOT_FOUND = -32002


def _invalid(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


def refuse_cursor(params: Any) -> None:
    """Refuse a cursor given to a list served in one page: none was handed out, and an
    invalid cursor "SHOULD result in an error with code -32602" (pagination utility)."""
    cursor = getattr(params, "cursor", None)
    if cursor is not None:
        raise _invalid(f"invalid cursor {cursor[:60]!r}: this list has a single page")

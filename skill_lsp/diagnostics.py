"""Findings of both layers, merged per document and sent to the client.

Per version of an open document: the syntax layer's findings (the source index's
structural checks for Python; the SKILL.md rules for SKILL.md) plus the semantic layer's
latest findings (moved along with edits until fresh ones arrive), filtered through the
lint configuration (``[tool.skillkit]`` in pyproject.toml, then the ``skillkit.lint``
settings) and the file's ``skillkit: ignore[...]`` comments.

Push clients get ``textDocument/publishDiagnostics`` tagged with the version; clients that
pull (and support refresh) ask with ``textDocument/diagnostic``/``workspace/diagnostic``
and are told to ask again when semantic results arrive. Files that are not open are
linted in the background (see :mod:`skill_lsp.workspace`) and reported the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from typing import Any

from lsprotocol import types

from skill_lsp.index import DocumentKind, Snapshot
from skill_lsp.log import log_message
from skillkit_core.lint.diagnostic import LintDiagnostic

# Findings about the analysis itself are shown even when ``select`` narrows the rules.
_ALWAYS_SELECTED = frozenset({"load-error", "build-error"})


class DiagnosticsHub:
    """Computes, caches and delivers diagnostics."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.pull = False
        self._queued: set[str] = set()
        self._sent_versions: dict[str, int | None] = {}
        self._configs: dict[str, tuple[float, Any]] = {}
        self.disk: dict[str, list[types.Diagnostic]] = {}
        self._disk_parts: dict[str, dict[str, list[types.Diagnostic]]] = {}
        self._refresh_handle: asyncio.TimerHandle | None = None
        self._manifest_tasks: dict[str, asyncio.Future[Any]] = {}
        self.published = 0
        self.generation = 0
        self._related: dict[str, set[str]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()

    # -- what a document's findings are -----------------------------------------------

    def lint_config(self, folder: str | None) -> Any:
        """The lint configuration for files in ``folder`` (pyproject.toml + settings)."""
        from skillkit_core.lint.config import LintConfig, find_pyproject, load_config, merged

        settings = self.server.settings
        base = LintConfig()
        if folder:
            pyproject = None
            with contextlib.suppress(OSError):
                pyproject = find_pyproject(folder)
            if pyproject is not None:
                base = self._load_pyproject(pyproject, load_config)
        return merged(base, select=settings.lint_select, ignore=settings.lint_ignore)

    def _load_pyproject(self, path: str, load: Any) -> Any:
        from skillkit_core.errors import SkillkitError
        from skillkit_core.lint.config import LintConfig

        try:
            stamp = os.stat(path).st_mtime
        except OSError:
            return LintConfig()
        cached = self._configs.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            config = load(path)
        except SkillkitError as error:
            log_message(self.server, f"ignoring lint configuration: {error}")
            config = LintConfig()
        self._configs[path] = (stamp, config)
        return config

    def filter(self, findings: list[LintDiagnostic], snapshot: Snapshot) -> list[LintDiagnostic]:
        """Apply the lint configuration and the document's suppression comments."""
        config = self.lint_config(snapshot.folder)
        kept = []
        suppressions = snapshot.suppressions
        for finding in findings:
            if finding.rule in _ALWAYS_SELECTED:
                if any(_matches(finding.rule, pattern) for pattern in config.ignore):
                    continue
            elif not config.enabled(finding.rule):
                continue
            line = finding.range.line if finding.range else None
            if suppressions.suppresses(finding.rule, line):
                continue
            override = config.severity.get(finding.rule)
            if override and override != finding.severity:
                finding = finding._replace(severity=override)
            kept.append(finding)
        return kept

    def findings(self, snapshot: Snapshot) -> list[LintDiagnostic]:
        """Every finding for this version of the document, filtered (cached)."""
        key = (
            self.generation,
            id(snapshot.semantic),
            len(snapshot.carried),
            id(snapshot._cache.get("manifest")),
        )
        cached = snapshot._cache.get("findings")
        if cached is not None and cached[0] == key:
            return cached[1]
        syntax = self.syntax_findings(snapshot)
        # The semantic layer may confirm what syntax already said (an unknown step, an
        # unguarded cycle): show it once, where syntax put it (it does not move while the
        # worker catches up). Another finding of the rule on that line still shows.
        said = {(d.rule, d.range.line, d.severity) for d in syntax if d.range is not None}
        semantic = [
            d
            for d in snapshot.carried
            if d.range is None or (d.rule, d.range.line, d.severity) not in said
        ]
        raw = [*syntax, *semantic]
        result = _capped(self.filter([d for d in raw if _about(d, snapshot)], snapshot))
        snapshot._cache["findings"] = (key, result)
        return result

    def syntax_findings(self, snapshot: Snapshot) -> list[LintDiagnostic]:
        """The syntax layer's findings (for SKILL.md: once the rules have run)."""
        if snapshot.kind == DocumentKind.PYTHON:
            found = snapshot._cache.get("syntax")
            if found is None:
                from skill_lsp.syntax import structural_findings

                found = snapshot._cache["syntax"] = structural_findings(snapshot)
            return found
        if snapshot.kind == DocumentKind.SKILL_MD:
            return snapshot._cache.get("manifest", [])
        return []

    def lsp_diagnostics(self, snapshot: Snapshot) -> list[types.Diagnostic]:
        """The document's diagnostics in the client's terms (its own cached per snapshot,
        then what other documents' checks found about it)."""
        from skill_lsp.convert import to_lsp

        findings = self.findings(snapshot)
        cached = snapshot._cache.get("lsp")
        if cached is not None and cached[0] is findings:
            converted = cached[1]
        else:
            version = self.server.version
            converted = [to_lsp(finding, snapshot, version=version) for finding in findings]
            snapshot._cache["lsp"] = (findings, converted)
        others = self.found_by_others(snapshot.uri)
        return [*converted, *others] if others else converted

    def found_by_others(self, uri: str) -> list[types.Diagnostic]:
        """Findings about ``uri`` that another document's check made (a SKILL.md's rules
        about one of its scripts): they stay, with their quick fixes, while it is open."""
        parts = self._disk_parts.get(uri, {})
        return [d for source, found in parts.items() if source != uri for d in found]

    # -- when to send ----------------------------------------------------------------

    def changed(self, uri: str) -> None:
        """A document was opened or edited: send its diagnostics as soon as possible
        (a pulling client asks by itself after an edit; it is not told to)."""
        snapshot = self.server.documents.get(uri)
        if snapshot is not None and snapshot.kind == DocumentKind.SKILL_MD:
            if not self.pull:
                self._start_manifest(snapshot)
            return
        if not self.pull:
            self._queue(uri)

    def semantic_updated(self, uri: str) -> None:
        """New semantic findings for the current version."""
        if self.pull:
            self.request_refresh()
        else:
            self._queue(uri)

    def _queue(self, uri: str) -> None:
        if uri in self._queued:
            return
        self._queued.add(uri)
        asyncio.get_running_loop().call_soon(self._flush, uri)

    def _flush(self, uri: str) -> None:
        self._queued.discard(uri)
        snapshot = self.server.documents.get(uri)
        if snapshot is None:
            return
        if self.pull:
            self.request_refresh()  # settings changed: every document is pulled again
            return
        if self.server.documents.needs_index(snapshot):
            if self._syntax_known(snapshot):
                # Typing in a prompt: the findings are the last version's, moved; the
                # index is still made (in the pool) for requests and the next edit.
                self._publish(uri, snapshot)
                self._index_soon(snapshot)
                return
            self._publish_when_indexed(snapshot)
            return
        self._publish(uri, snapshot)

    def _syntax_known(self, snapshot: Snapshot) -> bool:
        """Whether this version's syntax findings are known without its index (see
        :func:`skill_lsp.syntax.carried_before_indexing`); they are then cached."""
        if "syntax" in snapshot._cache:
            return True
        from skill_lsp.syntax import carried_before_indexing

        try:
            found = carried_before_indexing(snapshot)
        except Exception as error:  # a bug here must not cost the version its diagnostics
            log_message(self.server, f"carrying findings over failed: {error!r}")
            return False
        if found is None:
            return False
        snapshot._cache.setdefault("syntax", found)
        snapshot.take_previous_syntax()  # the older index it held is not needed
        return True

    def _index_soon(self, snapshot: Snapshot) -> None:
        """Index ``snapshot`` in the pool, nothing waiting for it."""

        async def index() -> None:
            try:
                await self.server.documents.index_in_pool(snapshot)
            except Exception as error:  # the index never raises; requests would retry it
                log_message(self.server, f"indexing {snapshot.uri} failed: {error!r}")

        task = asyncio.ensure_future(index())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _publish_when_indexed(self, snapshot: Snapshot) -> None:
        """Index ``snapshot`` off the event loop, then publish if it is still current."""

        async def publish() -> None:
            try:
                await self.server.documents.index_in_pool(snapshot)
            except Exception as error:  # the index never raises; the loop would retry it
                log_message(self.server, f"indexing {snapshot.uri} failed: {error!r}")
            current = self.server.documents.get(snapshot.uri)
            if current is not None and current.version == snapshot.version:
                self._publish(snapshot.uri, current)

        task = asyncio.ensure_future(publish())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _publish(self, uri: str, snapshot: Snapshot) -> None:
        started = time.perf_counter()
        try:
            diagnostics = self.lsp_diagnostics(snapshot)
        except Exception as error:  # a bug in one check must not stop the others
            log_message(self.server, f"diagnostics failed for {uri}: {error!r}")
            return
        if self.server.settings.trace == "verbose":
            spent = (time.perf_counter() - started) * 1000
            log_message(
                self.server,
                f"{len(diagnostics)} diagnostics for {uri} v{snapshot.version} in {spent:.1f} ms",
            )
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=snapshot.version
            )
        )
        self.published += 1

    def settings_changed(self) -> None:
        """The lint settings changed: every open document's findings are recomputed."""
        self.generation += 1
        for snapshot in self.server.documents.all():
            self._queue(snapshot.uri)

    def closed(self, uri: str) -> None:
        """A document closed: the editor's findings go; the saved file is linted again and
        its findings (if it is a skill file) take their place."""
        task = self._manifest_tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        self._related.pop(uri, None)
        own = self._disk_parts.get(uri, {})
        own.pop(uri, None)
        others = [d for found in own.values() for d in found]
        self.disk[uri] = others
        if not self.pull:
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=others)
            )
        else:
            self.request_refresh()
        from pygls.uris import to_fs_path

        path = to_fs_path(uri)
        if path and self.server.files.in_roots(path):
            self.server.files.refresh_soon(path)
        elif others:  # outside the workspace: nothing watches it, so nothing stays shown
            self.forget(uri)

    def forget(self, uri: str) -> None:
        """Withdraw the findings of a file that is no longer the workspace's (not open)."""
        self._disk_parts.pop(uri, None)
        if self.disk.pop(uri, None) and self.server.documents.get(uri) is None:
            if self.pull:
                self.request_refresh()
            else:
                self.server.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
                )

    def forget_outside_roots(self) -> None:
        """After the workspace folders changed: withdraw what was shown for files that
        are in none of them now (a removed folder's findings stayed in the editor)."""
        from pygls.uris import to_fs_path

        for uri in list(self.disk):
            path = to_fs_path(uri)
            if path and not self.server.files.in_roots(path):
                self.forget(uri)

    def request_refresh(self) -> None:
        """Ask a pull client to pull again (coalesced)."""
        if self._refresh_handle is not None:
            return

        def send() -> None:
            self._refresh_handle = None
            with contextlib.suppress(Exception):
                self.server.workspace_diagnostic_refresh(None)

        self._refresh_handle = asyncio.get_running_loop().call_later(0.05, send)

    # -- SKILL.md ---------------------------------------------------------------------

    def _start_manifest(self, snapshot: Snapshot) -> None:
        previous = self._manifest_tasks.get(snapshot.uri)
        if previous is not None and not previous.done():
            previous.cancel()
        task = asyncio.ensure_future(self._manifest(snapshot))
        self._manifest_tasks[snapshot.uri] = task

    async def manifest_ready(self, snapshot: Snapshot) -> None:
        """Make sure the SKILL.md rules ran for this version (pull requests wait here)."""
        if "manifest" in snapshot._cache:
            return
        from skill_lsp.skill_md import lint_skill_md

        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(None, lint_skill_md, snapshot)
        found += await self._misspelt_invocations(snapshot)
        snapshot._cache.setdefault("manifest", found)

    async def _misspelt_invocations(self, snapshot: Snapshot) -> list[LintDiagnostic]:
        """What only the workspace can tell about a SKILL.md: ``/name`` typos."""
        from skill_lsp.skill_md_symbols import misspelt_invocations

        try:
            return await misspelt_invocations(self.server, snapshot)
        except Exception as error:  # the folder's own findings still show
            log_message(self.server, f"workspace skill names unavailable: {error!r}")
            return []

    async def _manifest(self, snapshot: Snapshot) -> None:
        try:
            await self.manifest_ready(snapshot)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log_message(self.server, f"SKILL.md check failed: {error!r}")
            snapshot._cache.setdefault("manifest", [])
        current = self.server.documents.get(snapshot.uri)
        if current is snapshot or (current is not None and current.version == snapshot.version):
            if current is not snapshot and current is not None:
                current._cache.setdefault("manifest", snapshot._cache["manifest"])
            self._queue(snapshot.uri)
            await self.publish_related(snapshot, snapshot._cache["manifest"])

    def related_soon(self, snapshot: Snapshot, findings: list[LintDiagnostic]) -> None:
        """:meth:`publish_related` in the background."""
        task = asyncio.ensure_future(self.publish_related(snapshot, findings))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def publish_related(self, snapshot: Snapshot, findings: list[LintDiagnostic]) -> None:
        """Findings about other files of the folder (scripts, references) go to those files."""
        from pygls.uris import from_fs_path

        by_file: dict[str, list[LintDiagnostic]] = {}
        for finding in findings:
            if finding.file and not _about(finding, snapshot):
                by_file.setdefault(finding.file, []).append(finding)
        for previous in self._related.get(snapshot.uri, ()):
            by_file.setdefault(previous, [])
        self._related[snapshot.uri] = set(by_file)
        loop = asyncio.get_running_loop()
        for path, found in by_file.items():
            uri = from_fs_path(path) or path
            # An open file's findings are placed on the text the editor shows.
            other = self.server.documents.get(uri)
            if other is None:
                other = await loop.run_in_executor(None, _plain_snapshot, path, uri, snapshot.codec)
            if other is None:
                continue
            converted = [self._convert(finding, other) for finding in found]
            self.publish_disk(uri, converted, source=snapshot.uri)

    def _convert(self, finding: LintDiagnostic, snapshot: Snapshot) -> types.Diagnostic:
        from skill_lsp.convert import to_lsp

        return to_lsp(finding, snapshot, version=self.server.version)

    # -- files that are not open ------------------------------------------------------

    def publish_disk(
        self, uri: str, diagnostics: list[types.Diagnostic], source: str | None = None
    ) -> None:
        """Findings of a file on disk (while the file is open in the editor, only those
        another document's check made are shown, beside the editor's own).

        ``source`` is the document whose check found them (another file of the folder, for
        a script or a reference); each source's findings replace only its own earlier ones.
        """
        parts = self._disk_parts.setdefault(uri, {})
        changed = parts.get(source or uri) != diagnostics
        parts[source or uri] = diagnostics
        diagnostics = [d for found in parts.values() for d in found]
        previous = self.disk.get(uri)
        self.disk[uri] = diagnostics
        if self.server.documents.get(uri) is not None:
            # Open: its own findings come from the editor's text; another document's
            # findings about it (see found_by_others) go out with them.
            if changed and source not in (None, uri):
                self._queue(uri)
            return
        if self.pull:
            if previous != diagnostics:
                self.request_refresh()
            return
        if previous is None and not diagnostics:
            return
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )


def _plain_snapshot(path: str, uri: str, codec: Any) -> Snapshot | None:
    """A snapshot of any text file on disk (for findings about a folder's other files)."""
    from skill_lsp.index import kind_of
    from skill_lsp.positions import split_lines
    from skill_lsp.workspace import read_text

    text = read_text(path)
    if text is None:
        return None
    return Snapshot(
        uri=uri,
        path=path,
        version=0,
        text=text,
        kind=kind_of(uri),
        lines=split_lines(text),
        codec=codec,
    )


def _capped(findings: list[LintDiagnostic]) -> list[LintDiagnostic]:
    """At most ``MAX_PER_RULE`` findings of a rule per document, as ``skillkit check``
    shows them, the last of them followed by one saying how many more there are (a line
    of thousands of broken links would otherwise send thousands of diagnostics)."""
    from skillkit_core.lint.capping import shown

    kept, capped = shown(findings)
    if not capped:
        return kept
    last = {d.rule: d for d in kept}
    for item in capped:
        at = last[item.rule]
        note = f"… and {item.more} more [{item.rule}] in this file"  # as check's text says
        kept.append(at._replace(severity="info", message=note, fix=None, suggestions=()))
    return kept


def _about(finding: LintDiagnostic, snapshot: Snapshot) -> bool:
    return finding.file is None or snapshot.path is None or finding.file == snapshot.path


def _matches(rule: str, pattern: str) -> bool:
    import fnmatch

    return fnmatch.fnmatchcase(rule, pattern)

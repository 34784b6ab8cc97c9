"""Start, settings and shutdown: ``initialize``, ``initialized``, configuration changes.

Settings come first from ``initializationOptions`` (including whether the workspace is
trusted, which only the client may say), then from ``workspace/configuration`` (section
``skillkit``), again whenever the client reports a change; they apply without restart.
"""

from __future__ import annotations

import contextlib
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import to_fs_path

from skill_lsp.log import log_message, route_logging
from skill_lsp.settings import Settings, merge_settings

SECTION = "skillkit"


def register(server: Any) -> None:
    """Declare the lifecycle handlers."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: Any, params: types.InitializeParams) -> None:
        ls.roots = _roots(params)
        ls.settings = merge_settings(Settings(), params.initialization_options, from_client=True)
        ls.documents.codec = ls.workspace.position_codec
        from skill_lsp.features.diagnostics import enable_pull, supports_pull

        if supports_pull(params.capabilities):
            enable_pull(ls)
        route_logging(ls)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: Any, params: types.InitializedParams) -> None:
        await pull_configuration(ls)
        _watch_files(ls)
        log_message(
            ls,
            f"skillkit {ls.version}: host {ls.settings.host}, author code "
            f"{'runs in a worker' if ls.settings.semantic_enabled else 'is not executed'}",
            types.MessageType.Info,
        )
        # The worker starts with the first analysis (opening a Python skill, or the
        # background lint), not here: starting it costs CPU the first diagnostics need.
        ls.files.start()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: Any, params: types.DidChangeConfigurationParams) -> None:
        if _can_pull_configuration(ls):
            await pull_configuration(ls)
        else:
            await apply_settings(ls, merge_settings(ls.settings, params.settings))

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: Any, params: Any) -> None:
        await ls.files.stop()
        await ls.semantic.shutdown()
        ls.documents.shutdown()

    @server.feature(types.EXIT)
    def exit_(ls: Any, params: Any) -> None:
        # LSP: exit code 1 when no shutdown came first (pygls's own sys.exit(1) is
        # swallowed by its start_io); the process's main exits with it.
        ls.exit_code = 0 if ls.protocol._shutdown else 1

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: Any, params: types.DidChangeWorkspaceFoldersParams) -> None:
        removed = {to_fs_path(f.uri) for f in params.event.removed}
        roots = [root for root in ls.roots if root not in removed]
        roots += [to_fs_path(f.uri) for f in params.event.added if to_fs_path(f.uri)]
        ls.roots = list(dict.fromkeys(roots))
        from skill_lsp.skill_index import skill_index

        skill_index(ls).invalidate()  # skills came or went with the folders
        ls.diagnostics.forget_outside_roots()
        ls.files.start()


def _roots(params: types.InitializeParams) -> list[str]:
    uris = [folder.uri for folder in params.workspace_folders or ()]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    roots = [to_fs_path(uri) for uri in uris]
    if not roots and params.root_path:
        roots = [params.root_path]
    return [root for root in dict.fromkeys(roots) if root]


def _can_pull_configuration(ls: Any) -> bool:
    return bool(get_capability(ls.client_capabilities, "workspace.configuration", False))


async def pull_configuration(ls: Any) -> None:
    """Ask the client for the ``skillkit`` section and apply it."""
    if not _can_pull_configuration(ls):
        return
    try:
        values = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as error:  # a client that fails here still gets a working server
        log_message(ls, f"could not read the settings: {error}")
        return
    if values:
        await apply_settings(ls, merge_settings(ls.settings, values[0]))


async def apply_settings(ls: Any, new: Settings) -> None:
    """Switch to ``new`` settings and redo what depends on what changed."""
    old, ls.settings = ls.settings, new
    if new.ignored:
        log_message(ls, f"ignoring malformed settings: {', '.join(new.ignored)}")
    if new == old:
        return
    log_message(
        ls, f"settings: host={new.host}, executeCode={new.execute_code}", types.MessageType.Info
    )
    if (new.lint_select, new.lint_ignore) != (old.lint_select, old.lint_ignore):
        ls.diagnostics.settings_changed()
        ls.files.start(delay=0)
    if new.semantic_enabled != old.semantic_enabled:
        await ls.semantic.apply_settings()
        if new.semantic_enabled:
            ls.semantic.start_soon()
    elif (new.host, new.tools) != (old.host, old.tools):
        ls.semantic.reschedule_all()
    if new.host != old.host:
        refresh_code_lenses(ls)


def refresh_code_lenses(ls: Any) -> None:
    """Ask the client to fetch code lenses again, when it supports that."""
    if get_capability(ls.client_capabilities, "workspace.code_lens.refresh_support", False):
        with contextlib.suppress(Exception):
            ls.workspace_code_lens_refresh(None)


WATCHED = (
    "**/*.py",
    "**/SKILL.md",
    "**/pyproject.toml",
    # What a SKILL.md links to and a skill loads: a file made or removed there changes
    # broken-link, missing-file-reference and orphan findings of the skill's SKILL.md.
    "**/*.md",
    "**/references/**",
    "**/scripts/**",
    "**/assets/**",
)
"""Files whose changes on disk the server asks the client to report."""


def _watch_files(ls: Any) -> None:
    """Ask to be told about changed skill files, where the client registers dynamically."""
    dynamic = get_capability(
        ls.client_capabilities, "workspace.did_change_watched_files.dynamic_registration", False
    )
    if not dynamic:
        return
    watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
    registration = types.Registration(
        id="skillkit-watch",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
    )
    with contextlib.suppress(Exception):
        ls.client_register_capability(types.RegistrationParams(registrations=[registration]))

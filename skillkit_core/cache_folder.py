"""skillkit's folder in the user's cache: one answer for every part that keeps files there.

It is ``$SKILLKIT_CACHE_DIR`` when that is an absolute path (skillkit's whole cache: a
sandbox, a CI job or a test session points it at a folder of its own), else ``skillkit``
in the platform's per-user cache folder (:func:`platform_cache_home`), else, for a user
without a home to keep it in, ``skillkit-<uid>`` in the temp folder
(:func:`temp_cache_root`). A relative path is never taken: a built skill runs from
whatever folder the agent is in, and would fill each of them with a cache. Below it live:

- ``wheels``: native wheels a build fetched for other platforms
  (:mod:`skillkit_core.build.wheels`);
- ``bundles``: the unpacked files of built skills (a build copies this module into the pyz
  as ``_skillkit_cache_folder.py``: the boot code needs it before the bundle, with the
  rest of skillkit, is unpacked; so it imports only the standard library);
- ``check``: ``skillkit check``'s results and compiled patterns
  (:mod:`skillkit_core.lint.result_cache`), which the language server shares;
- ``rules`` and ``editor``: the language server's rule pages and the previews its commands
  write.

Only ``os`` and ``sys`` are imported up front: ``skillkit check`` asks on its hot path.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "SKILLKIT_CACHE_DIR"


class NotPrivate(OSError):
    """A folder another user could change (see :func:`private_folder`)."""


def cache_root() -> str:
    """``$SKILLKIT_CACHE_DIR``, else ``skillkit`` in :func:`platform_cache_home`, else
    :func:`temp_cache_root` (see the module's description)."""
    configured = os.environ.get(VARIABLE, "")
    if os.path.isabs(configured):
        return configured
    base = platform_cache_home()
    return temp_cache_root() if base is None else os.path.join(base, "skillkit")


def cache_folder(name: str) -> str:
    """The folder ``name`` in :func:`cache_root` (not created)."""
    return os.path.join(cache_root(), name)


def platform_cache_home() -> str | None:
    """The per-user cache folder: ``%LOCALAPPDATA%`` on Windows, ``~/Library/Caches`` on
    macOS, else ``$XDG_CACHE_HOME`` when it is an absolute path (the XDG Base Directory
    specification has a relative value ignored) and ``~/.cache`` otherwise; ``None``
    when it lies in a home folder the user has none of (:func:`user_home`)."""
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return local or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    if sys.platform != "darwin":
        configured = os.environ.get("XDG_CACHE_HOME", "")
        if os.path.isabs(configured):
            return configured
    home = user_home()
    if home is None:
        return None
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches")
    return os.path.join(home, ".cache")


def user_home() -> str | None:
    """``$HOME`` when it is an absolute path to a folder, else the home the user database
    gives, when that is one; ``None`` otherwise. An empty or relative ``$HOME`` would put
    a cache in ``/`` or in the current folder, and a cache never makes a home
    (``HOME=/nonexistent`` in a service: as root, it would be made)."""
    home = os.environ.get("HOME", "")
    if os.path.isabs(home) and os.path.isdir(home):
        return home
    try:
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, AttributeError):
        return None
    return home if os.path.isabs(home) and os.path.isdir(home) else None


def temp_cache_root() -> str:
    """``skillkit-<uid>`` in :func:`temp_folder`: the cache of a user without a home
    folder, and where a built skill unpacks when the user's cache cannot be written (it
    checks that no other user could change what it finds there)."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return os.path.join(temp_folder(), f"skillkit-{user}")


def temp_folder() -> str:
    """``$TMPDIR``, ``$TEMP`` or ``$TMP`` when one is an absolute path to a folder this
    user may write in, else the first such of ``/tmp``, ``/var/tmp`` and ``/usr/tmp``
    (``/tmp`` when none is). Not ``tempfile.gettempdir``: it takes the current folder when
    no other can be written (a cache would land in the agent's project), and writes a
    probe file to choose."""
    candidates = [os.environ.get(name, "") for name in ("TMPDIR", "TEMP", "TMP")]
    for folder in (*candidates, "/tmp", "/var/tmp", "/usr/tmp"):
        if os.path.isabs(folder) and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return "/tmp"


def own_folder(path: str) -> str:
    """The real path of ``path``, made as :func:`make_private_folders` makes it, once
    :func:`private_folder` accepts it; ``OSError`` otherwise. For files written there by
    name, which a folder another user made first (``skillkit-<uid>`` in the temp folder is
    a name anyone can take) could turn into symlinks to the user's own files."""
    refuse_foreign_links(path)  # before anything is made through one
    if not os.path.isdir(path) and hasattr(os, "getuid"):
        existing = os.path.dirname(path)
        while existing != os.path.dirname(existing) and not os.path.isdir(existing):
            existing = os.path.dirname(existing)
        # Nothing is made where another user could change it.
        _check_chain(path, os.path.realpath(existing), above=True)
    make_private_folders(path)
    return private_folder(path)


def own_cache_folder(name: str) -> str:
    """The folder ``name`` in :func:`cache_root`, else in :func:`temp_cache_root` (a
    cache another user could change, or one that cannot be written), made and accepted by
    :func:`own_folder`; ``OSError`` when neither is. For files written there by name
    (the language server's previews and rule pages)."""
    try:
        return own_folder(cache_folder(name))
    except OSError:
        return own_folder(os.path.join(temp_cache_root(), name))


def may_read(folder: str) -> bool:
    """Whether files kept in ``folder`` may be read: it exists and no other user could
    change it (:func:`private_folder`). Only this user can make a folder pass, and only
    this user can then change it, so the answer holds; a folder that cannot be seen
    (missing, or behind one this user may not enter) has nothing to read."""
    try:
        private_folder(folder)
    except OSError:
        return False
    return True


def private_folder(folder: str) -> str:
    """The real path of ``folder``: refused (:class:`NotPrivate`) when another user
    could change what is in it. It must be this user's and open to nobody else's
    writing, and so must every folder above it (the real ones, symlinks resolved), except
    that those may be root's (see :func:`root_ids`), and sticky ones such as ``/tmp`` may
    be open to all (there only an entry's owner may move or replace it, and the entry
    below is checked to be this user's or root's). A folder someone else may rename or
    replace anywhere on the way would let them swap the whole tree between the check and
    its use."""
    real = os.path.realpath(folder)
    if hasattr(os, "getuid"):
        refuse_foreign_links(folder)
        _check_chain(folder, real, above=False)
    return real


def _check_chain(folder: str, path: str, *, above: bool) -> None:
    """Check ``path`` (a real path) and every folder above it as :func:`private_folder`
    says; ``above``: ``path`` is itself a folder above the one in question, which may be
    root's or sticky. ``folder`` names the folder in question in the error."""
    import stat

    uid = os.getuid()
    while True:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            raise NotPrivate(f"{folder} is not a private folder of this user ({path} is no folder)")
        writable = info.st_mode & 0o022 and not (above and info.st_mode & stat.S_ISVTX)
        mine = info.st_uid == uid or (above and info.st_uid in root_ids())
        if not mine or writable:
            raise NotPrivate(
                f"{folder} is not a private folder of this user (another user could change {path})"
            )
        parent = os.path.dirname(path)
        if parent == path:
            return
        path, above = parent, True


def refuse_foreign_links(folder: str) -> None:
    """:class:`NotPrivate` when a symlink on the way to ``folder`` is another user's
    than this one's or root's: made in a sticky folder such as ``/tmp`` under the name a
    cache takes, it would choose where files are written (and removed)."""
    if not hasattr(os, "getuid"):
        return
    import stat

    current = os.sep
    for part in os.path.abspath(folder).split(os.sep):
        if not part:
            continue
        current = os.path.join(current, part)
        try:
            info = os.lstat(current)
        except OSError:
            return  # nothing further exists yet
        if stat.S_ISLNK(info.st_mode) and info.st_uid not in (os.getuid(), *root_ids()):
            raise NotPrivate(
                f"{folder} is not a private folder of this user ({current} is another user's link)"
            )


_root_ids: tuple[int, ...] | None = None


def root_ids() -> tuple[int, ...]:
    """The owners that stand for root: 0, and in a user namespace that does not map root
    (the sandboxes bubblewrap makes, as agents' sandboxes on Linux do) the kernel's
    overflow id, which every owner from outside shows as (``/proc/sys/kernel/overflowuid``,
    65534 by default). There root's ``/`` and ``/tmp`` show as that id: without it no
    folder would pass. Such an owner may also be another user of the host, whom the
    sandbox cannot tell from root; but the folder itself must still be this user's, and
    nothing above it open to others' writing unless sticky."""
    global _root_ids
    if _root_ids is None:
        _root_ids = (0,) if _maps_root() else (0, _overflow_id())
    return _root_ids


def _maps_root() -> bool:
    """Whether root (0 outside) has an id in this process's user namespace; true where
    that cannot be read (no ``/proc``, not Linux)."""
    try:
        with open("/proc/self/uid_map", encoding="ascii") as mapping:
            lines = mapping.read().split("\n")
    except (OSError, ValueError):
        return True
    # Each line maps ``count`` ids from ``outside`` on: root is mapped by the one from 0.
    for line in lines:
        fields = line.split()
        if len(fields) == 3 and fields[1] == "0" and fields[2].isdigit() and int(fields[2]) > 0:
            return True
    return False


def _overflow_id() -> int:
    try:
        with open("/proc/sys/kernel/overflowuid", encoding="ascii") as value:
            return int(value.read().strip())
    except (OSError, ValueError):
        return 65534


def make_private_folders(path: str) -> None:
    """Make ``path`` and the folders above it that are missing, each open to this user
    alone (``os.makedirs`` gives those above the umask's mode: a ``skillkit-<uid>`` in
    the temp folder made so is one the session store refuses). Raises ``OSError`` as
    ``os.mkdir`` does, but not when a folder already exists."""
    missing = []
    while not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue

"""The result cache of ``skillkit check``: a skill folder's findings, kept by what they
depend on, so that checking an unchanged folder again reads them back instead of
importing the YAML parser and the rules and running them.

A folder's findings (before configuration filters them) depend on, and their key covers:

- every file of the folder as the check lists it
  (:func:`~skillkit_core.manifest.listing.list_folder`): its relative path, mode (the
  executable bit), size and whole content; the folders seen, the symbolic links met and
  the real path each leads to, and which files lie outside the folder through a link;
- the folder's path as given (findings name files through it), made absolute and real
  (``.`` resolves to a folder name);
- whether host verdicts were asked for;
- the code that checks: the format of the entries, the Python version, and every module
  of ``skillkit_core`` and of PyYAML (name, size and modification time: a new version,
  or an edited copy, is other code);
- the answers to questions rules ask about paths outside the folder (whether a rename's
  target beside it exists, what a plugin's instruction file says: :attr:`SkillFolder.
  outside_answers <skillkit_core.manifest.folder.SkillFolder.outside_answers>`): stored
  with the entry and asked again before it is used.

Configuration, ``--select``, ``--ignore`` and ``--strict`` are not in the key: they
apply to the findings after they are read back. A folder is not cached when its listing
stops at :data:`~skillkit_core.manifest.listing.MAX_FILES`, when something in it cannot
be read, when a file is larger than :data:`MAX_FILE_BYTES` or the folder's files
together than :data:`MAX_FOLDER_BYTES`, when a rule failed (an internal error), or when
a finding names a file that is not one of the folder's.

Results live in the user's cache folder (``check`` under ``$SKILLKIT_CACHE_DIR``, else
``skillkit/check`` under ``$XDG_CACHE_HOME`` or ``~/.cache``), one folder per version of
the code (``results-<digest>``: two environments with different code share the folder
without evicting each other's results), in one file (a pack) per parent folder of the
folders checked, written atomically once per check (a file per folder would make a
first check pay more for writing than later ones save). Entries not written for
:data:`STALE_DAYS` days are left out when a pack is written, and packs not written for
as long are removed now and then. A pack another user owns is never read.
``skillkit check --no-cache`` or ``SKILLKIT_NO_CACHE=1`` turns the cache off.
"""

from __future__ import annotations

import os
import sys
import time

from skillkit_core.cache_folder import NotPrivate, cache_folder, may_read, own_folder
from skillkit_core.fast_hash import blake2b
from skillkit_core.manifest.listing import Snapshot, list_folder, read_regular_file
from skillkit_core.named_tuple import NamedTuple
from skillkit_core.sealed import unseal, update_turn, write_sealed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skillkit_core.pattern_cache import PatternCache

# Bumped when the packs' layout or what an entry holds changes (2: sealed).
FORMAT = 2
_HEADER = b"skillkit-results\0"
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_FOLDER_BYTES = 64 * 1024 * 1024
STALE_DAYS = 30
NO_CACHE_VARIABLE = "SKILLKIT_NO_CACHE"
# Each version of the code has its own folder of packs, named this and its digest.
_VERSION_PREFIX = "results-"


def default_directory() -> str | None:
    """Where ``skillkit check`` keeps results: ``None`` when the environment turns the
    cache off (``SKILLKIT_NO_CACHE`` set to anything but ``""`` or ``0``)."""
    if os.environ.get(NO_CACHE_VARIABLE, "") not in ("", "0"):
        return None
    return check_directory()


def check_directory() -> str:
    """``skillkit check``'s folder in the user's cache (its results, and the compiled
    patterns of :mod:`skillkit_core.pattern_cache`)."""
    return cache_folder("check")


def open_patterns(write: bool | None = None) -> PatternCache | None:
    """The linter's compiled patterns, kept in :func:`check_directory` and loaded into
    ``re``'s cache (:mod:`skillkit_core.pattern_cache`; ``write`` as there): ``skillkit
    check``, the language server and its worker run the same rules, and share the file.
    ``None`` when there is none to use; never fails its caller (a server must start)."""
    from skillkit_core.pattern_cache import PatternCache

    try:
        return PatternCache.open(check_directory(), write=write)
    except Exception:
        return None


class Slot(NamedTuple):
    """Where the results of checking one folder are kept: its pack (one file for the
    folders of one parent folder), the folder's place in it, the key they need, and
    the snapshot of the folder the key was made of (a check of the folder reads its
    files from there, so that what it stores is what the key says)."""

    pack: str
    folder: str
    key: str
    snapshot: Snapshot


class ResultCache:
    """Findings of skill folders stored under ``directory``.

    :meth:`find` gives a folder's slot and, when the folder is as it was, the findings
    kept there; :meth:`keep` notes new findings; :meth:`save` writes what was noted (one
    file per parent folder of the folders checked: a file per folder would cost a first
    check more than the cache saves). A process helping the check hands what it noted
    to the caller (:meth:`take_kept`, :meth:`add_kept`), which saves."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._code: str | None = None
        self._code_known = False
        self._packs: dict[str, dict[str, Any]] = {}
        self._kept: list[tuple[str, str, tuple]] = []
        self._readable: bool | None = None
        self.refused: str | None = None
        """Why :meth:`save` could not keep results, when its folder is one another user
        could change (for the command to say so once, as pip does of its cache)."""

    @classmethod
    def default(cls) -> ResultCache | None:
        """The cache at :func:`default_directory`, or ``None`` when it is turned off."""
        directory = default_directory()
        return None if directory is None else cls(directory)

    def find(self, root: str, hosts: bool) -> tuple[Slot | None, Any]:
        """The slot for checking the folder ``root`` (as the check names it) and the
        plain report kept there for the folder as it is now, or ``None`` when there is
        none or an answer it rests on changed. The slot is ``None`` when the folder's
        findings are not to be cached (see the module's description)."""
        code = self._code_version()
        made = None if code is None else self.snapshot(root, hosts)
        if code is None or made is None:
            return None, None
        key, snapshot = made
        absolute = os.path.abspath(root)
        pack = blake2b(_text((code, os.path.dirname(absolute))), digest_size=12).hexdigest()
        slot = Slot(pack, repr((root, absolute, hosts)), key, snapshot)
        entry = self._pack(pack).get(slot.folder)
        try:
            key_kept, plain, answers, _written = entry or (None, None, (), 0)
        except (TypeError, ValueError):
            return slot, None
        if key_kept != key or not _still_true(answers):
            return slot, None
        return slot, plain

    def key(self, root: str, hosts: bool) -> str | None:
        """The key of checking the folder ``root`` (as the check names it), or ``None``
        when its findings are not to be cached (see the module's description)."""
        made = self.snapshot(root, hosts)
        return None if made is None else made[0]

    def snapshot(self, root: str, hosts: bool) -> tuple[str, Snapshot] | None:
        """The folder ``root`` read whole, and the key of checking it; ``None`` when its
        findings are not to be cached (see the module's description)."""
        code = self._code_version()
        if code is None:
            return None
        listing = list_folder(root)
        if listing.unreadable or not listing.complete:
            return None
        where = (root, os.path.abspath(root), os.path.realpath(root), hosts)
        shape = (sorted(listing.folders), sorted(listing.outside), sorted(listing.links.items()))
        digest = blake2b(_text((code, where, shape)), digest_size=24)
        contents: dict[str, bytes] = {}
        total = 0
        for file in listing.files:
            total += file.size
            if file.size > MAX_FILE_BYTES or total > MAX_FOLDER_BYTES:
                return None
            data = _read_regular(file.path)
            if data is None:
                return None
            contents[file.relative] = data
            digest.update(_text((file.relative, file.mode, len(data))))
            digest.update(data)
        return digest.hexdigest(), Snapshot(listing, contents)

    def keep(self, slot: Slot, plain: Any, answers: dict[str, bool | str]) -> None:
        """Note ``plain`` (built-in values, as ``marshal`` writes them) as the findings
        for ``slot``, resting on the ``answers`` about paths outside the folder."""
        written = int(time.time())
        self._kept.append((slot.pack, slot.folder, (slot.key, plain, _answers(answers), written)))

    def take_kept(self) -> list[tuple[str, str, tuple]]:
        """What :meth:`keep` noted since the last call, as plain data (for a helper
        process to hand to the caller)."""
        kept, self._kept = self._kept, []
        return kept

    def add_kept(self, kept: list[tuple[str, str, tuple]]) -> None:
        """Take notes :meth:`take_kept` gave in another process."""
        self._kept.extend(kept)

    def save(self) -> None:
        """Write what was noted, each pack once (merged with what other checks wrote
        to it meanwhile; entries older than :data:`STALE_DAYS` days left out). Best
        effort: a cache that cannot be written is no error."""
        code = self._code_version()
        if code is None or not self._kept:
            return
        by_pack: dict[str, dict[str, tuple]] = {}
        for pack, folder, entry in self._kept:
            by_pack.setdefault(pack, {})[folder] = entry
        self._kept = []
        version = os.path.join(self.directory, _VERSION_PREFIX + code)
        limit = time.time() - STALE_DAYS * 24 * 3600
        try:
            own_folder(version)
        except NotPrivate as error:
            self.refused = str(error)
            return
        except OSError:  # a read-only file system, say: nothing worth a warning
            return
        # Saves take turns, each reading its packs anew: two checks at once keep both
        # their findings.
        with update_turn(version):
            for pack, entries in by_pack.items():
                current = self._read_pack(pack)
                current.update(entries)
                fresh = {f: e for f, e in current.items() if _written(e) >= limit}
                if write_sealed(os.path.join(version, pack), _HEADER, fresh):
                    self._packs[pack] = fresh
        if any(pack.startswith("00") for pack in by_pack):  # now and then (1 pack in 256)
            _remove_stale(self.directory)

    def _pack(self, pack: str) -> dict[str, Any]:
        if pack not in self._packs:
            self._packs[pack] = self._read_pack(pack)
        return self._packs[pack]

    def _read_pack(self, pack: str) -> dict[str, Any]:
        code = self._code_version()
        if code is None or not self._may_read():
            return {}
        # Another user's pack is not read: findings it planted could hide a skill's
        # problems (and marshal is not made for data it cannot trust). A damaged one
        # fails its checksum.
        path = os.path.join(self.directory, _VERSION_PREFIX + code, pack)
        try:
            data = read_regular_file(path, sys.maxsize, own=True)
        except OSError:
            return {}
        entries = unseal(_HEADER, data)
        return entries if isinstance(entries, dict) else {}

    def _may_read(self) -> bool:
        """Whether packs may be read from :attr:`directory`
        (:func:`~skillkit_core.cache_folder.may_read`, asked once per cache: a folder
        that passes stays so, and one made during the check holds only its own packs)."""
        if self._readable is None:
            self._readable = may_read(self.directory)
        return self._readable

    def _code_version(self) -> str | None:
        """A digest of the code a check runs (``None`` when PyYAML cannot be found)."""
        if not self._code_known:
            self._code = _code_version()
            self._code_known = True
        return self._code


def _answers(answers: dict[str, bool | str]) -> tuple[tuple[str, bool | str], ...]:
    return tuple(sorted(answers.items()))


def _written(entry: Any) -> float:
    try:
        return float(entry[3])
    except (TypeError, ValueError, IndexError):
        return 0.0


def _code_version() -> str | None:
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yaml = _yaml_folder()
    if yaml is None:
        return None
    facts = (FORMAT, sys.version, sys.implementation.cache_tag, _files(package), _files(yaml))
    return blake2b(_text(facts), digest_size=12).hexdigest()


def _yaml_folder() -> str | None:
    """The PyYAML package the check would import (the first on ``sys.path``), found
    without importing it."""
    for entry in sys.path:
        folder = os.path.join(entry or os.getcwd(), "yaml")
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            return folder
    return None


def _files(top: str) -> list[tuple[str, int, int]]:
    """Every file under ``top`` (bytecode folders aside): relative name, size, mtime."""
    found: list[tuple[str, int, int]] = []
    pending = [top]
    start = len(top) + 1
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir():
                if entry.name != "__pycache__":
                    pending.append(entry.path)
                continue
            try:
                info = entry.stat()
            except OSError:
                continue
            found.append((entry.path[start:], info.st_size, info.st_mtime_ns))
    return found


def _text(value: object) -> bytes:
    # repr of strings, numbers, tuples and lists is the same in every run (marshal's
    # bytes depend on which equal objects happen to be shared).
    return repr(value).encode("utf-8", "surrogatepass")


def _read_regular(path: str) -> bytes | None:
    """The bytes of the regular file at ``path`` (``None`` for anything else, or when it
    cannot be read: a FIFO or device put in a file's place is never waited on)."""
    try:
        return read_regular_file(path, sys.maxsize)
    except OSError:
        return None


def _still_true(answers: Any) -> bool:
    """Whether each ``(absolute path, exists or text digest)`` answer is still the answer."""
    try:
        # A path that is no string (a damaged pack) is no answer: os.path.exists would
        # take an int for a file descriptor.
        return all(isinstance(path, str) and _answer(path, kept) == kept for path, kept in answers)
    except (OSError, TypeError, ValueError):
        return False


def _answer(path: str, kept: Any) -> bool | str | None:
    """The answer about ``path`` now, of the kind ``kept`` is."""
    if isinstance(kept, bool):
        return os.path.exists(path)
    if isinstance(kept, str):
        from skillkit_core.manifest.folder import outside_digest, read_outside

        return outside_digest(read_outside(path))
    return None


def _remove_stale(directory: str) -> None:
    """Remove the packs (of any version of the code) not written for :data:`STALE_DAYS`
    days, and the folders left empty: only what lies in this module's own
    ``results-*`` folders."""
    limit = time.time() - STALE_DAYS * 24 * 3600
    try:
        versions = [name for name in os.listdir(directory) if name.startswith(_VERSION_PREFIX)]
    except OSError:
        return
    for version in versions:
        top = os.path.join(directory, version)
        if not os.path.isdir(top) or os.path.islink(top):
            continue  # a link walked would remove what it leads to
        for current, _folders, names in os.walk(top, topdown=False):
            for name in names:
                path = os.path.join(current, name)
                try:
                    if os.lstat(path).st_mtime < limit:
                        os.remove(path)
                except OSError:
                    continue
            try:
                os.rmdir(current)  # only succeeds once empty
            except OSError:
                continue

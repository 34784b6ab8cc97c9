"""Compiled regular expressions kept between runs, as ``__pycache__`` keeps bytecode.

``re`` compiles a pattern with a parser and compiler written in Python; what they make is
a list of integers (the program the C matcher runs) and the group names, which ``re``
hands to ``_sre.compile`` last. The hundred or so patterns of a ``skillkit check`` cost
each checking process about 5 ms to compile that way, a sixth of a check of one skill
folder, redone by every run although the patterns never change.

:meth:`PatternCache.open` records what each ``_sre.compile`` call of this process is
given, and puts every pattern kept by an earlier run straight into ``re``'s own cache,
made by ``_sre.compile`` from the kept arguments: ``re.compile``, ``re.match`` and the
rest then find it there, whichever module asks, exactly as if they had compiled it.
:meth:`PatternCache.save` keeps the patterns compiled since.

The file is per interpreter (implementation, exact version and the matcher's code format
are in its name), so kept code is only ever given to the engine that made it; entries are
keyed by the exact pattern and flags. Anything unexpected turns the cache off and ``re``
compiles as usual: another Python implementation, an ``re`` whose cache is not the dict
(type, pattern, flags) → pattern that CPython 3.11 to 3.13 keep, a file that cannot be
read, is not this module's, is damaged (its checksum: :mod:`skillkit_core.sealed`) or is
another user's, an entry the engine refuses
(``_sre.compile`` checks the code it is given). Writing is skipped when Python is told
not to write bytecode (``PYTHONDONTWRITEBYTECODE``), and failing to write is no error.
"""

from __future__ import annotations

import os
import sys

from skillkit_core.cache_folder import may_read, own_folder
from skillkit_core.sealed import unseal, update_turn, write_sealed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 2
"""Bumped when the file's layout or what an entry holds changes (2: sealed)."""
LIMIT = 400
"""Entries kept at most: fewer than ``re`` caches (512), so loading them evicts none."""
MAX_BYTES = 4 << 20
"""Read at most this much of the file (400 entries take a few hundred KiB)."""
MAX_RECORDED = 1024
"""Compiled patterns whose arguments a process keeps at most before it forgets those
``re``'s cache no longer holds (only those can be saved): a long-running process that
compiles ever new patterns (the language server's worker runs the author's code) must
not keep them all alive."""
_HEADER = b"skillkit-patterns\0"


def file_name() -> str | None:
    """The name of this interpreter's file of patterns (``None``: not CPython)."""
    if sys.implementation.name != "cpython":
        return None
    try:
        import _sre
    except ImportError:  # pragma: no cover - every CPython has it
        return None
    tag = sys.implementation.cache_tag
    return f"patterns-{tag}-{sys.hexversion:x}-{_sre.MAGIC}-{FORMAT}.bin"


# What each _sre.compile call of this process was given since a cache was first opened,
# by the pattern it made: one recording per process, however many caches are opened.
_recorded: dict[int, tuple[Any, tuple]] | None = None
_engine_compile: Any = None  # _sre.compile itself, before the recording wraps it
# The caches opened in this process, by file: opening one again returns it, unread.
_opened: dict[str, PatternCache] = {}


class PatternCache:
    """The patterns kept in one file, loaded into ``re``'s cache, and those compiled
    since (see the module's description)."""

    def __init__(
        self, path: str, kept: dict[tuple[Any, int], tuple], write: bool | None = None
    ) -> None:
        self.path = path
        self.kept = kept
        # New patterns a save had no room for: not new again for the next save (which
        # would otherwise rewrite the file every time).
        self._passed_over: set[tuple[Any, int]] = set()
        # Whether save() writes: as Python writes bytecode, unless told otherwise.
        self.write = not sys.dont_write_bytecode if write is None else write

    @classmethod
    def open(
        cls, directory: str, *, write: bool | None = None, checked: bool = False
    ) -> PatternCache | None:
        """Load the patterns kept under ``directory`` into ``re``'s cache and record
        those compiled from now on; ``None`` when this interpreter's ``re`` is not one
        this works with (then nothing is changed). A process may open several; opening
        one again gives the same cache (``write``, when given, then replaces its
        setting). :meth:`save` writes when ``write`` says so (``None``: when Python
        writes bytecode). ``checked``: the caller found ``directory`` private already
        (:func:`~skillkit_core.cache_folder.private_folder`), as a built skill's boot
        does of its bundle folder, so it is not walked again."""
        import _sre
        import re

        name = file_name()
        compile_ = _engine_compile or getattr(_sre, "compile", None)
        if name is None or compile_ is None or not _keyed_as_expected(re):
            return None
        path = os.path.join(directory, name)
        if path in _opened:
            cache = _opened[path]
            if write is not None:
                cache.write = write
            return cache
        cache = _opened[path] = cls(path, {}, write)
        # Read only from a folder no other user could change (a planted file's patterns
        # would run here); a save makes its folder and checks it likewise.
        kept = _read(cache.path) if checked or may_read(directory) else {}
        for key, arguments in kept.items():
            pattern = _rebuilt(compile_, key, arguments)
            if pattern is not None:
                re._cache.setdefault((type(key[0]), *key), pattern)  # type: ignore[attr-defined]
                cache.kept[key] = arguments
        _record(_sre, compile_)
        return cache

    def new(self) -> dict[tuple[Any, int], tuple]:
        """The patterns in ``re``'s cache compiled since a cache was first opened in
        this process and not kept in this one, by (pattern, flags as given)."""
        import re

        found = {}
        recorded = _recorded or {}
        for key, pattern in list(re._cache.items()):  # type: ignore[attr-defined]
            made = recorded.get(id(pattern))
            if made is None or made[0] is not pattern or key[0] not in (str, bytes):
                continue
            try:
                found[key[1:]] = _plain(made[1])
            except (TypeError, ValueError):
                continue  # arguments of a shape this module does not know
        return {
            key: value
            for key, value in found.items()
            if key not in self.kept and key not in self._passed_over
        }

    def save(self) -> None:
        """Keep the patterns compiled since :meth:`open` with those in the file now and
        those kept before (the new ones first, up to :data:`LIMIT`). Best effort, and
        nothing is written when nothing is new or writing is off (see :meth:`open`).
        Never raises: the
        language server's worker saves after every answer, with the author's code
        loaded (which may have replaced ``re``'s cache)."""
        try:
            new = self.new()
        except Exception:
            return
        if not new or not self.write:
            return
        folder = os.path.dirname(self.path)
        try:
            own_folder(folder)
        except OSError:
            return
        # What another process wrote since this one read the file stays (the language
        # server and its worker share one): saves take turns, each reading the file anew.
        with update_turn(folder):
            table = dict(list(new.items())[:LIMIT])
            for key, value in (*_read(self.path).items(), *self.kept.items()):
                if len(table) >= LIMIT:
                    break
                table.setdefault(key, value)
            self._passed_over.update(key for key in new if key not in table)
            if write_sealed(self.path, _HEADER, table):
                self.kept = table


def _record(module: Any, compile_: Any) -> None:
    """Wrap ``module.compile`` (``_sre.compile``) to note what each call is given, once
    per process."""
    global _recorded, _engine_compile
    if _recorded is not None:
        return
    recorded: dict[int, tuple[Any, tuple]] = {}
    _recorded, _engine_compile = recorded, compile_

    def recording(*arguments: Any) -> Any:
        pattern = compile_(*arguments)
        if len(recorded) >= MAX_RECORDED:
            _forget_uncached(recorded)
        recorded[id(pattern)] = (pattern, arguments)
        return pattern

    module.compile = recording


def _forget_uncached(recorded: dict[int, tuple[Any, tuple]]) -> None:
    """Drop the records of patterns ``re``'s cache no longer holds."""
    cache = getattr(sys.modules.get("re"), "_cache", None)
    live = {id(pattern) for pattern in cache.values()} if isinstance(cache, dict) else set()
    for key in [key for key in recorded if key not in live]:
        del recorded[key]


def _keyed_as_expected(re: Any) -> bool:
    """Whether ``re`` caches compiled patterns in the dict ``re._cache`` by (type,
    pattern, flags), as CPython 3.11 to 3.13 do: a probe pattern is compiled and looked
    for there."""
    cache = getattr(re, "_cache", None)
    if not isinstance(cache, dict):
        return False
    probe = "skillkit pattern cache probe"
    return re.compile(probe) is cache.get((str, probe, 0))


def _read(path: str) -> dict[tuple[Any, int], tuple]:
    """The entries of the file at ``path`` (none when it is missing, unreadable, not a
    regular file, not a file of this module, or another user's: its patterns would run
    in this process)."""
    from skillkit_core.regular_file import read_regular_file

    try:
        data = read_regular_file(path, MAX_BYTES, own=True)
    except OSError:
        return {}
    table = unseal(_HEADER, data)
    return table if isinstance(table, dict) else {}


def _plain(arguments: tuple) -> tuple:
    """``_sre.compile``'s arguments as ``marshal`` writes them: the code's opcodes are
    an ``int`` subclass, and the group index may be another mapping."""
    pattern, flags, code, groups, groupindex, indexgroup = arguments
    return pattern, int(flags), [int(c) for c in code], groups, dict(groupindex), indexgroup


def _rebuilt(compile_: Any, key: Any, arguments: Any) -> Any:
    """The pattern ``_sre.compile`` makes of ``arguments`` kept for ``key``, or ``None``
    when they are not those of that pattern or the engine refuses them."""
    if not (isinstance(key, tuple) and len(key) == 2 and isinstance(arguments, tuple)):
        return None
    text, flags = key
    if type(text) not in (str, bytes) or type(flags) is not int or not arguments:
        return None
    if arguments[0] != text or type(arguments[0]) is not type(text):
        return None
    try:
        return compile_(*arguments)
    except Exception:  # the engine's checks: TypeError, ValueError, RuntimeError...
        return None

"""Start-up code of a bundled skill, copied into every pyz as ``_skillkit_boot.py``.

The pyz's ``__main__`` checks the Python version, then calls :func:`run` with the
bundle's configuration. ``run`` unpacks, once, two folders into a per-user cache, each
named after its content hash: the bundle's Python files (with their bytecode placed in
``__pycache__`` when this Python can use it) and this machine's native code (a zip inside
the pyz per platform and CPython version). Then it imports the skill from there and hands
the command line to the protocol.

Why unpack the Python files instead of importing them from the zip: zipimport opens the
archive, seeks and inflates for every module, which costs tens of milliseconds over the
few hundred modules a call imports; the normal importer reading cached bytecode from a
folder does not. The folders go on ``sys.path`` behind the standard library, with a
finder that sends the bundle's own top-level names straight to them (:func:`import_from`),
and the code that ``dataclasses`` and ``typing`` compile from generated text is cached
beside them (:class:`CodeCache`), as ``__pycache__`` caches the modules' bytecode; so are
the regular expressions a call compiles (``skillkit_core.pattern_cache``).

Beyond what the skill imports anyway, the common path uses only ``os``, ``sys``,
``marshal`` and ``binascii`` (in ``skillkit_core.sealed``); ``zipfile`` and friends are
imported on the one call that extracts.
Failures print the protocol's JSON ``error`` result, never a traceback (unless
``SKILLKIT_DEBUG=1``).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # a warm call imports no typing (see _warm_call)
    from typing import Any, NoReturn

NATIVE_DIR = "_skillkit_native"
PURE_MEMBER = "_skillkit_python.zip"
"""The nested zip of the bundle's Python files (sources and bytecode)."""

_OS = {"linux": "linux", "darwin": "darwin", "win32": "windows", "cygwin": "windows"}
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
# Where protocol results go once the protocol has claimed stdout (see _load).
_out: Any = None


def run(config: dict[str, Any]) -> NoReturn:
    """Run the bundled skill's protocol with this process's arguments, then exit."""
    import gc

    # Start-up allocates many long-lived objects and frees few: cyclic collections in
    # the middle of it are wasted work. Loaded objects are frozen out of later ones.
    gc.disable()
    archive = os.path.dirname(os.path.abspath(__file__))
    # bin/<name>.pyz → the skill folder; scripts/run exports it, a direct call may not.
    os.environ.setdefault("SKILL_DIR", os.path.dirname(os.path.dirname(archive)))
    argv = sys.argv[1:]
    warm = _warm_call(config, archive, argv)
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    native = config.get("native") or {}
    native_dirs = []
    if native:
        key = f"{target_id()}-cp{sys.version_info[0]}{sys.version_info[1]}"
        digests = native.get(key)
        if digests is None:
            fail("platform", _unsupported(config, key, version))
        native_dirs = [extracted(archive, d, native_member(d)) for d in digests]
    python_dir = extracted(archive, config["pure"], PURE_MEMBER)
    folders = [python_dir, *native_dirs]
    import_from(folders, archive)
    if config.get("start") is not None:
        _precomputed_start(config, archive, argv, folders, warm)
    definition, main, caches = _load_all(config, python_dir)
    if warm is not None:  # leave a warm process loaded as this one is, for the next call
        _leave_warm(config, archive, warm, definition, main, folders)
    code = main(definition, argv, stdout=_out, skill_record=config.get("skill_record"))
    _save(caches)
    finish(code)


def _load_all(config: dict[str, Any], python_dir: str) -> tuple[Any, Any, list[Any]]:
    """Everything a call needs loaded: the skill's definition, the protocol's ``main``
    and the caches in use (to save once the call is answered: the :class:`CodeCache`,
    and the regular expressions of ``skillkit_core.pattern_cache``)."""
    import gc

    if not config.get("pydantic_plugins", True):
        _skip_plugin_discovery()
    _defer_unused_modules()
    # Patterns first: installing the code cache imports dataclasses, whose imports
    # compile a few.
    patterns = _open_patterns(python_dir)
    code_cache = CodeCache(code_cache_path(python_dir))
    code_cache.install()
    caches: list[Any] = [code_cache] if patterns is None else [code_cache, patterns]
    definition, main = _load(config)
    gc.freeze()
    gc.enable()
    return definition, main, caches


def _open_patterns(python_dir: str) -> Any:
    """The regular expressions earlier calls compiled (pydantic's, the standard
    library's, skillkit's), put into ``re``'s cache before anything compiles them;
    ``None`` where that cannot be done. Never fails a call."""
    try:
        from skillkit_core.pattern_cache import PatternCache

        return PatternCache.open(python_dir, checked=True)  # by extracted()
    except Exception:
        _debug()
        return None


def _save(caches: list[Any]) -> None:
    for cache in caches:
        cache.save()


def _warm_call(config: dict[str, Any], archive: str, argv: list[str]) -> Any:
    """Hand this call to a warm process when one serves it (and exit with its code);
    else this call's warm identity (``None``: no warm process may be used or left). See
    ``skillkit_core.build.warm``."""
    try:
        import _skillkit_warm as warm

        me = warm.identity(config, archive, argv)
        code = warm.call(me, argv) if me is not None else None
    except Exception:  # a cold call answers, whatever went wrong here
        _debug()
        return None
    if code is not None:
        finish(code)
    return me


def _warm_server(
    config: dict[str, Any], archive: str, me: Any, definition: Any, main: Any, folders: list[str]
) -> Any:
    """A function that makes this loaded process a warm process's server (for a process
    of its own: it never returns while it serves), or ``None`` when this process has
    threads (a fork would copy them stopped). ``folders``: the unpacked bundle it
    imports from."""
    import _skillkit_warm as warm

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return None
    record = config.get("skill_record")

    def run_call(argv: list[str]) -> int:
        sys.argv[1:] = argv
        return main(definition, argv, stdout=_out, skill_record=record)

    def serve() -> None:
        from skillkit_core.protocol.runner import preload

        preload(definition)  # what calls would each load again, loaded once here
        warm.Server(me, archive, run_call, settle, _out.fileno(), folders).serve()

    return serve


def _leave_warm(
    config: dict[str, Any], archive: str, me: Any, definition: Any, main: Any, folders: list[str]
) -> None:
    """Fork a detached warm process from this loaded one, before this call runs."""
    import _skillkit_warm as warm

    serve = _warm_server(config, archive, me, definition, main, folders)
    if serve is not None:
        _flush_all()
        warm.detach(serve, (_out.fileno(), *warm.inherited_descriptors(me)))


def _precomputed_start(
    config: dict[str, Any], archive: str, args: list[str], folders: list[str], warm: Any
) -> None:
    """Serve a plain ``start`` from the result computed at build time, without importing
    the skill (see ``skillkit_core.protocol.precomputed_start``); return when the call
    needs the full path. A served start leaves a warm process loading in the background,
    so that the call after it finds one."""
    if args[:1] not in ([], ["start"]) and not args[0].startswith("--"):
        return
    try:
        from skillkit_core.protocol.precomputed_start import serve

        code = serve(config["start"], args)
    except Exception:  # nothing was printed: the full path answers, or reports the error
        _debug()
        return
    if code is None:
        return
    if warm is not None:
        import _skillkit_warm

        def load_and_serve() -> None:
            definition, main, caches = _load_all(config, folders[0])
            _save(caches)
            serve = _warm_server(config, archive, warm, definition, main, folders)
            if serve is not None:
                serve()

        _flush_all()
        _skillkit_warm.detach(load_and_serve, _skillkit_warm.inherited_descriptors(warm))
    finish(code)


def import_from(folders: list[str], archive: str) -> None:
    """Make the unpacked ``folders`` importable, ahead of everything else for the names
    they hold.

    A :class:`BundleFinder` placed just before the path search sends each top-level
    name found in the folders straight to its folder(s), so the bundle wins over the
    standard library as if it came first on ``sys.path``. The folders themselves (and
    the pyz, which holds nothing left to import) go to the end of ``sys.path``: the
    hundred-odd standard-library imports of a call then no longer look through each of
    them first (a ``stat`` and a lookup per folder and import). ``importlib.metadata``
    still finds the bundle's distributions on ``sys.path``."""
    from importlib.machinery import PathFinder

    index: dict[str, list[str]] = {}
    for folder in folders:
        for entry in os.listdir(folder):
            name = entry.partition(".")[0]
            if name.isidentifier():
                index.setdefault(name, []).append(folder)
    rest = [entry for entry in sys.path if os.path.abspath(entry) != archive]
    sys.path[:] = [*rest, *folders, archive]
    at = sys.meta_path.index(PathFinder) if PathFinder in sys.meta_path else len(sys.meta_path)
    sys.meta_path.insert(at, BundleFinder(index))


class BundleFinder:
    """Finds a top-level module of the bundle in the folders that hold it (a namespace
    package may span several); everything else is left to the path search."""

    def __init__(self, index: dict[str, list[str]]) -> None:
        from importlib.machinery import PathFinder

        self.index = index
        self.path_finder = PathFinder

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if path is None:
            folders = self.index.get(name)
            if folders:
                return self.path_finder.find_spec(name, folders, target)
        return None

    def invalidate_caches(self) -> None:
        """Nothing cached here (the path finders keep their own caches)."""


def finish(code: int) -> NoReturn:
    """Exit with ``code`` without the interpreter's teardown of every loaded module (tens
    of milliseconds per call, for nothing: the process ends). What teardown would do that
    matters still happens (see :func:`settle`)."""
    settle(code)
    os._exit(code if isinstance(code, int) else 1)


def settle(code: int) -> None:
    """What the interpreter's exit does that matters, without its teardown: wait for
    non-daemon threads, run ``atexit`` handlers, flush the standard streams."""
    threading = sys.modules.get("threading")
    if threading is not None:
        current = threading.current_thread()
        for thread in threading.enumerate():
            if thread is not current and not thread.daemon:
                thread.join()
    import atexit

    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is not None:
        run_handlers()
    _flush_all()


def _flush_all() -> None:
    for stream in (sys.stdout, sys.stderr, _out):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError, AttributeError):
            pass  # a closed pipe: nothing left to deliver


def _skip_plugin_discovery() -> None:
    """The bundle holds no pydantic plugin (the build checked), and with ``-S`` only its
    own distributions are visible, so pydantic's plugin search can only come back
    empty; it is also the most expensive part of pydantic's start (it imports
    ``importlib.metadata`` and scans every distribution). Turn it off, and load
    ``importlib.metadata`` only when one of its names is really used."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _defer("importlib.metadata", _METADATA_FUNCTIONS)


# The functions of importlib.metadata pydantic imports by name at start-up (it calls
# ``entry_points`` only to look for plugins).
_METADATA_FUNCTIONS = frozenset(
    {
        "distribution",
        "distributions",
        "entry_points",
        "files",
        "metadata",
        "packages_distributions",
        "requires",
        "version",
    }
)
# Modules imported at start-up (``import x``) and used only inside functions that a call
# rarely runs: pydantic.types imports ``secrets`` for the comparisons of its Secret
# types, and ``secrets`` loads ``random`` and, through hmac and hashlib, OpenSSL (about
# 3 ms of a cold stateless call; a session call needs OpenSSL for its own hashes).
_UNUSED_AT_START = ("secrets",)


def _defer_unused_modules() -> None:
    """Put stand-ins for :data:`_UNUSED_AT_START` in ``sys.modules``: each loads when
    one of its names is first read."""
    for name in _UNUSED_AT_START:
        _defer(name, frozenset())


def _defer(name: str, functions: frozenset[str]) -> None:
    if name not in sys.modules:
        sys.modules[name] = _DeferredModule(name, functions)


class _DeferredModule(type(sys)):  # type: ignore[misc]
    # A stand-in in ``sys.modules`` that imports the real module when it is really used.
    # ``import x`` only touches ``__spec__``; ``from x import f`` of one of ``functions``
    # gets a forwarder that imports the module when called (pydantic imports
    # ``entry_points`` at start-up and never calls it with plugins off); any other name,
    # ``__doc__`` and ``dir()`` import the module at once. (No docstring: ``__doc__`` is
    # the real module's.)

    __doc__ = property(lambda self: self._real().__doc__)  # type: ignore[assignment]

    def __init__(self, name: str, functions: frozenset[str]) -> None:
        super().__init__(name)
        self._functions = functions
        from importlib.machinery import PathFinder

        # The path search itself, not importlib.util.find_spec: importing importlib.util
        # costs more than the rest of this module's start-up work.
        parent, _, _ = name.rpartition(".")
        spec = PathFinder.find_spec(name, sys.modules[parent].__path__ if parent else None)
        self.__spec__ = spec
        if spec is not None and spec.submodule_search_locations is not None:
            self.__path__ = list(spec.submodule_search_locations)  # a package

    def __getattr__(self, attribute: str) -> Any:
        if attribute in self._functions:

            def forward(*args: Any, **kwargs: Any) -> Any:
                return getattr(self._real(), attribute)(*args, **kwargs)

            forward.__name__ = attribute
            return forward
        return getattr(self._real(), attribute)

    def __dir__(self) -> list[str]:
        return dir(self._real())

    def _real(self) -> Any:
        name = self.__name__
        if sys.modules.get(name) is self:
            sys.modules.pop(name, None)  # another thread may have taken it out already
        import importlib

        return importlib.import_module(name)


def code_cache_path(python_dir: str) -> str:
    """Where the :class:`CodeCache` of an unpacked bundle lives, per interpreter (its
    exact version: two patch releases sharing a bundle must not rewrite one file in
    turn)."""
    tag = sys.implementation.cache_tag
    return os.path.join(python_dir, f"_skillkit_code.{tag}-{sys.hexversion:x}.bin")


class CodeCache:
    """Compiled code for the source text that ``dataclasses`` and ``typing`` generate and
    compile on every start: each dataclass's ``__init__``, ``__repr__``, ``__eq__``… is
    written out as text and passed to ``exec``, and each string annotation becomes a
    ``ForwardRef`` that is compiled. pydantic, annotated_types and skillkit define about
    ninety dataclasses and pydantic-core about ninety ``TypedDict`` classes on the way
    to a step, so parsing and compiling that text is a quarter of a call's work, redone
    by every process although the text never changes.

    Like ``__pycache__`` for modules, this keeps the code objects in a file beside the
    unpacked bundle (one per interpreter), keyed by the exact text, file name and mode:
    a hit runs the very code compiling the text would give (both modules compile with
    no inherited ``__future__`` flags). It is installed as each module's own global
    ``exec``/``compile``, so nothing outside those two modules sees it. A miss compiles
    as usual and is saved when the call ends; an unreadable or damaged file is ignored
    (it is sealed with a checksum: ``skillkit_core.sealed``, imported from the unpacked
    bundle, which is on ``sys.path`` by then)."""

    LIMIT = 10_000
    """Entries kept at most, so text that differs on every call cannot grow the file."""
    MAX_BYTES = 64 << 20
    """Read at most this much of the file (a call's code takes about half a MiB)."""

    def __init__(self, path: str) -> None:
        import builtins

        from skillkit_core.regular_file import read_regular_file
        from skillkit_core.sealed import unseal

        self.path = path
        self.header = b"skillkit-code\0" + sys.hexversion.to_bytes(4, "little")
        self.table: dict[tuple[str, str, str], Any] = {}
        self.added = False
        self._exec = builtins.exec
        self._compile = builtins.compile
        try:  # never waits on a FIFO put in the file's place
            table = unseal(self.header, read_regular_file(path, self.MAX_BYTES))
        except OSError:
            table = None  # no cache yet: compile as usual
        if type(table) is dict:
            self.table = table

    def install(self) -> None:
        """Give ``dataclasses`` and ``typing`` the cached ``exec`` and ``compile``."""
        import dataclasses
        import typing

        dataclasses.exec = self.exec  # type: ignore[attr-defined]
        typing.compile = self.compile  # type: ignore[attr-defined]

    def code(self, source: str, filename: str, mode: str) -> Any:
        """The code object of ``source``, compiled once per interpreter and bundle."""
        key = (source, filename, mode)
        found = self.table.get(key)
        if found is None:
            found = self._compile(source, filename, mode, dont_inherit=True)
            if len(self.table) < self.LIMIT:
                self.table[key] = found
                self.added = True
        return found

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        if globals is None:  # the caller's namespace, as the builtin would use
            frame = sys._getframe(1)
            globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
        if type(source) is str:
            source = self.code(source, "<string>", "exec")
        self._exec(source, globals, locals)

    def compile(
        self,
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
        **options: Any,
    ) -> Any:
        plain = flags == 0 and optimize == -1 and not options
        if plain and type(source) is str and type(filename) is str:
            return self.code(source, filename, mode)
        # The modules it serves use no __future__ import: inheriting adds no flags.
        return self._compile(source, filename, mode, flags, True, optimize, **options)

    def save(self) -> None:
        """Write the table if this call compiled something new (atomically: concurrent
        calls each write a whole file; the last one wins)."""
        if not self.added:
            return
        from skillkit_core.sealed import write_sealed

        write_sealed(self.path, self.header, self.table)  # read-only: compiled again


def target_id() -> str:
    """This machine as ``<os>-<arch>`` (the names ``skillkit build --targets`` takes)."""
    os_name = _OS.get(sys.platform, sys.platform)
    if hasattr(os, "uname"):
        machine = os.uname().machine.lower()
    else:  # Windows
        machine = os.environ.get("PROCESSOR_ARCHITECTURE", "").lower()
    return f"{os_name}-{_ARCH.get(machine, machine)}"


def native_member(digest: str) -> str:
    """The nested zip of one distribution's native code for one platform."""
    return f"{NATIVE_DIR}/{digest}.zip"


def _unsupported(config: dict[str, Any], key: str, version: str) -> str:
    built = ", ".join(sorted(config.get("native") or {}))
    target = key.rpartition("-cp")[0]
    return (
        f"{config.get('skill', 'this skill')} has no native code for {target} with CPython "
        f"{version}; this copy was built for: {built}. Rebuild it with "
        f"'skillkit build … --targets {target} --python {version}'"
    )


def _load(config: dict[str, Any]) -> tuple[Any, Any]:
    """The skill's definition and the protocol's ``main``."""
    global _out
    try:
        from skillkit_core.protocol.runner import main
        from skillkit_core.streams import claim_stdout

        _out = claim_stdout()  # before the author's module can print
        module = __import__(config["module"])
        definition = getattr(module, config["attr"])
        return definition, main
    except BaseException as error:  # sys.exit or ^C at import too: a result, as ever
        from skillkit_core.raised import import_failure

        _debug()
        fail("entry", f"cannot load the skill: {import_failure(error)}")


def extracted(archive: str, digest: str, member: str) -> str:
    """The cache folder holding the nested zip ``member`` of the pyz unpacked, extracting
    it on first use. Folders are named after the content hash computed at build time, so
    a new build never reuses stale files."""
    kind = "python" if member == PURE_MEMBER else "native"
    name = f"{kind}-{digest}"
    primary = _primary_cache()
    found = _unpacked(primary, name)  # the common case: no look at the temp folder
    if found is not None:
        return found
    bases = list(dict.fromkeys([primary, *_fallback_caches()]))
    for base in bases[1:]:
        found = _unpacked(base, name)
        if found is not None:
            return found
    problems = []
    for base in bases:
        try:
            return _extract(archive, member, base, name)
        except OSError as error:
            problems.append(f"{base}: {error}")
    fail("cache", f"cannot unpack the skill's {kind} files: " + "; ".join(problems))


def _unpacked(base: str, name: str) -> str | None:
    """The real path of ``name`` unpacked in ``base`` earlier, when it is there and no
    other user could have changed it (else ``None``: it is unpacked again, and checked)."""
    folder = os.path.join(base, name)
    if not os.path.isdir(folder):
        return None
    try:
        folder = _cache_rule().private_folder(folder)
    except OSError:
        return None
    _touch(folder)
    return folder


def _primary_cache() -> str:
    """``bundles`` in skillkit's cache (``skillkit_core.cache_folder.cache_root``)."""
    return os.path.join(_cache_rule().cache_root(), "bundles")


def _fallback_caches() -> list[str]:
    """``bundles`` in ``skillkit_core.cache_folder.temp_cache_root``, for a home whose
    cache cannot be written (none when ``SKILLKIT_CACHE_DIR`` is set: that choice is
    final)."""
    rule = _cache_rule()
    if os.path.isabs(os.environ.get(rule.VARIABLE, "")):
        return []
    return [os.path.join(rule.temp_cache_root(), "bundles")]


def _cache_rule() -> Any:
    """``skillkit_core.cache_folder``: copied into the pyz as ``_skillkit_cache_folder``
    (nothing of the bundle can be imported before it is unpacked); the package's own
    module where this code runs from an installed skillkit."""
    try:
        import _skillkit_cache_folder as rule
    except ImportError:
        from skillkit_core import cache_folder as rule
    return rule


def _extract(archive: str, member: str, base: str, name: str) -> str:
    import io
    import shutil
    import tempfile
    import zipfile

    rule = _cache_rule()
    # Each missing folder made open to this user alone (with the umask's mode, the check
    # could refuse the folders it made, and the session store the temp skillkit-<uid>),
    # and checked before anything is written in it.
    base = rule.own_folder(base)
    final = os.path.join(base, name)
    scratch = tempfile.mkdtemp(prefix=".unpack-", dir=base)
    try:
        with zipfile.ZipFile(archive) as outer:
            data = outer.read(member)
        with zipfile.ZipFile(io.BytesIO(data)) as inner:
            _unpack(inner, scratch, _bytecode_name(inner))
        try:
            os.rename(scratch, final)
        except OSError:
            if not os.path.isdir(final):  # not another process winning the race
                raise
    finally:
        if os.path.isdir(scratch):
            shutil.rmtree(scratch, ignore_errors=True)
    _prune(base, name)
    return rule.private_folder(final)  # another process's, or one refused before: checked too


def _touch(folder: str) -> None:
    """Mark ``folder`` as used, so pruning keeps it (a read-only cache is fine)."""
    import contextlib  # loaded already on the cold path that unpacks

    with contextlib.suppress(OSError):
        os.utime(folder)


PRUNE_AFTER_DAYS = 30


def _prune(base: str, keep: str) -> None:
    """Remove unpacked bundles nobody used for ``PRUNE_AFTER_DAYS`` (every rebuild of a
    skill unpacks a new folder; old ones would pile up)."""
    import shutil
    import time

    limit = time.time() - PRUNE_AFTER_DAYS * 86400
    for entry in os.scandir(base):
        if entry.name == keep or not entry.name.startswith(("python-", "native-")):
            continue
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat().st_mtime < limit:
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            continue


def _bytecode_name(archive: Any) -> Any:
    """Where a bundled ``.pyc`` goes: ``__pycache__/<name>.<tag>.pyc`` when it was
    compiled for this Python (its first four bytes are this interpreter's magic number),
    else nowhere (this Python compiles the sources itself, once, into the cache)."""
    import importlib.util

    probe = next((n for n in archive.namelist() if n.endswith(".pyc")), None)
    if probe is None or archive.read(probe)[:4] != importlib.util.MAGIC_NUMBER:
        return lambda name: None
    tag = sys.implementation.cache_tag

    def place(name: str) -> str | None:
        folder, _, file = name.rpartition("/")
        cached = f"__pycache__/{file[:-4]}.{tag}.pyc"
        return f"{folder}/{cached}" if folder else cached

    return place


def _unpack(archive: Any, into: str, bytecode: Any) -> None:
    """Write every file of ``archive`` below ``into``; ``bytecode(name)`` says where a
    ``.pyc`` goes (``None``: skip it)."""
    root = os.path.realpath(into)
    for info in archive.infolist():
        name = info.filename
        if info.is_dir():
            continue
        if name.endswith(".pyc"):
            name = bytecode(name)
            if name is None:
                continue
        target = os.path.realpath(os.path.join(root, *name.split("/")))
        if not target.startswith(root + os.sep):
            raise OSError(f"refusing to unpack {name!r} outside {into}")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(archive.read(info))


def fail(code: str, message: str) -> NoReturn:
    """Print a protocol ``error`` result and a one-line note, exit 1."""
    import json

    result = {"kind": "error", "error": code, "step": None, "message": message, "retry": False}
    out = _out or sys.stdout
    if out is not None:  # None: started with stdout closed
        # The encoder, not json.dumps: the skill's module may have rebound that.
        out.write(json.JSONEncoder(separators=(",", ":")).encode(result) + "\n")
        out.flush()
    sys.stderr.write(f"skillkit: error[{code}]: {message}\n")
    sys.exit(1)


def _debug() -> None:
    if os.environ.get("SKILLKIT_DEBUG") == "1":
        import traceback

        traceback.print_exc()

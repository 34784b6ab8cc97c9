"""Session files on disk, handled as untrusted: ids, the private folder, locking, I/O.

- Ids are 16 bytes from ``os.urandom`` (what ``secrets`` draws from: importing it, with
  ``random`` and ``base64`` behind it, costs a start served from build-time data about
  1.5 ms of its 25) written as 32 hex characters, and are checked against a strict
  pattern before any path is built from them.
- The default folder is ``<temp>/skillkit-<uid>``, mode 0700 (found without importing
  ``tempfile``, which brings ``shutil`` and the compression modules); a folder that is a
  symlink, belongs to someone else, or (the default one) is open to others is refused.
- Files are created 0600 with ``O_EXCL | O_NOFOLLOW`` and opened with ``O_NOFOLLOW``; a
  file that is not a regular file of ours, or is open to others, is refused.
- ``advance`` holds an exclusive ``flock`` on the session file while it reads and
  appends, so concurrent calls are serialised and no line is lost or interleaved.
- The snapshot sidecar (``skill-kit-<id>.snapshot.json``) is replaced atomically.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
from pathlib import Path

from skillkit_core.errors import SessionError

TYPE_CHECKING = False
if TYPE_CHECKING:  # a start served from build-time data imports this, and no typing
    from typing import Final

SESSION_ID: Final = re.compile(r"[0-9a-f]{32}")
FILE_PREFIX: Final = "skill-kit-"
"""The TypeScript SDK's file name prefix, kept so instructions work with either."""

LOCK_TIMEOUT_S: Final = 10.0
_PRIVATE_MODE: Final = 0o700
_FILE_MODE: Final = 0o600


def new_session_id() -> str:
    """32 hex characters of randomness (``secrets.token_hex(16)`` without the import)."""
    return os.urandom(16).hex()


def checked_session_id(text: str) -> str:
    """``text`` if it is a well-formed session id; ``SessionError`` otherwise."""
    if not isinstance(text, str) or SESSION_ID.fullmatch(text) is None:
        shown = text if isinstance(text, str) and len(text) <= 80 else f"{str(text)[:80]}…"
        raise SessionError(
            f"malformed session id {shown!r}: a session id is the 32 lowercase hex "
            "characters that start --session new printed as sessionId"
        )
    return text


def default_session_dir() -> Path:
    """``<temp>/skillkit-<uid>``: one private folder per user, in the temp folder that
    skillkit's caches fall back to (:func:`skillkit_core.cache_folder.temp_folder`: never
    the current folder, which ``tempfile.gettempdir`` takes when it finds no other)."""
    from skillkit_core.cache_folder import temp_cache_root

    return Path(temp_cache_root())


def session_dir_path(explicit: str | None) -> Path:
    """Where the session folder is (``--session-dir`` or the default), checked only for
    being a path a pointer can name: UTF-8 text (JSON holds no other bytes)."""
    if explicit is None:
        return _utf8(default_session_dir())
    if not explicit.strip() or "\x00" in explicit:
        raise SessionError(f"--session-dir {explicit!r} is not a folder path")
    try:
        return _utf8(Path(os.path.abspath(os.path.expanduser(explicit))))
    except OSError as error:  # relative, and the current folder was deleted
        raise SessionError(
            f"--session-dir {explicit!r} is relative, and the current folder cannot be "
            f"found ({error.strerror}): give an absolute path"
        ) from None


def _utf8(folder: Path) -> Path:
    try:
        str(folder).encode("utf-8")
    except UnicodeEncodeError:
        from skillkit_core.protocol.output import readable

        raise SessionError(
            f"the session folder {readable(str(folder))} is not a UTF-8 path, which the "
            "session's pointer (JSON) cannot name: give --session-dir a UTF-8 path"
        ) from None
    return folder


def session_dir(explicit: str | None, *, create: bool) -> Path:
    """The folder for session files, created if asked, and checked before use."""
    folder = session_dir_path(explicit)
    private = explicit is None
    if create:
        try:
            os.makedirs(folder, _PRIVATE_MODE, exist_ok=True)
        except OSError as error:
            raise SessionError(f"cannot create the session folder {folder}: {error}") from None
    _check_folder(folder, private=private)
    return folder


def _check_folder(folder: Path, *, private: bool) -> None:
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        raise SessionError(
            f"session folder {folder} does not exist (was the session started with another "
            "--session-dir?)"
        ) from None
    except OSError as error:
        raise SessionError(f"cannot use the session folder {folder}: {error}") from None
    if stat.S_ISLNK(info.st_mode):
        raise SessionError(f"refusing session folder {folder}: it is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise SessionError(f"refusing session folder {folder}: it is not a folder")
    if info.st_uid != os.getuid():
        raise SessionError(
            f"refusing session folder {folder}: it belongs to user id {info.st_uid}, not to "
            f"you ({os.getuid()})"
        )
    if private and info.st_mode & 0o077:
        raise SessionError(
            f"refusing session folder {folder}: its mode is {stat.S_IMODE(info.st_mode):o}, "
            f"so other users can reach it; run chmod 700 {folder}"
        )


def session_path(folder: Path, session_id: str) -> Path:
    """``<folder>/skill-kit-<id>.jsonl`` for a checked id."""
    return folder / f"{FILE_PREFIX}{checked_session_id(session_id)}.jsonl"


def session_ids(folder: Path) -> list[str]:
    """The ids of the session files in ``folder`` (names that fit the pattern only)."""
    suffix = ".jsonl"
    found = []
    for name in os.listdir(folder):
        if name.startswith(FILE_PREFIX) and name.endswith(suffix):
            candidate = name[len(FILE_PREFIX) : -len(suffix)]
            if SESSION_ID.fullmatch(candidate):
                found.append(candidate)
    return found


def sidecar_path(folder: Path, session_id: str) -> Path:
    """The snapshot cache beside the session file."""
    return folder / f"{FILE_PREFIX}{checked_session_id(session_id)}.snapshot.json"


def create_file(path: Path, data: bytes) -> None:
    """Create ``path`` (0600, must not exist, no symlink) holding ``data``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, _FILE_MODE)
    except FileExistsError:
        raise SessionError(f"session file {path} already exists") from None
    except OSError as error:
        raise SessionError(f"cannot create session file {path}: {error}") from None
    try:
        os.fchmod(fd, _FILE_MODE)
        _write_all(fd, data)
    except OSError as error:  # a full disk, say: no half-written file is left
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise SessionError(f"cannot write session file {path}: {error.strerror or error}") from None
    os.close(fd)


def remove_session(path: Path, sidecar: Path) -> None:
    """Remove a session's file and sidecar, either of which may be gone already (a start
    whose pointer never reached the agent: nobody could use the session)."""
    for target in (path, sidecar):
        with contextlib.suppress(OSError):
            os.unlink(target)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class UnwrittenLines(SessionError):
    """The result lines of a call could not be added to the session file (a full disk,
    say); the file is as it was, so the same call can succeed later."""

    retry = True


class LockedFile:
    """A session file opened safely and locked exclusively (a context manager)."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.fd = _open_existing(path, session_id, os.O_RDWR | os.O_APPEND)
        try:
            _lock(self.fd, path)
        except BaseException:
            os.close(self.fd)
            raise

    def __enter__(self) -> LockedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read(self) -> bytes:
        """The whole file as it is now."""
        size = os.fstat(self.fd).st_size
        chunks = []
        offset = 0
        while offset < size:
            chunk = os.pread(self.fd, size - offset, offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def append(self, data: bytes) -> None:
        """Append ``data`` at the end (the file is opened with ``O_APPEND``), whole or
        not at all: when the disk is full, or the file at its size limit, part of a line
        would otherwise stay, and the next call would find the file damaged."""
        size = os.fstat(self.fd).st_size
        try:
            _write_all(self.fd, data)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, size)  # we hold the lock: nothing else was added
            raise UnwrittenLines(
                f"cannot add to session file {self.path}: {error.strerror or error}; "
                "nothing was added (call advance again once it can be written)"
            ) from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the flock
            self.fd = -1


def _open_existing(path: Path, session_id: str, flags: int) -> int:
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise SessionError(
            f"no session '{session_id}' in {path.parent} (start one with --session new; pass "
            "the same --session-dir as on start)"
        ) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise SessionError(f"refusing session file {path}: it is a symbolic link") from None
        raise SessionError(f"cannot open session file {path}: {error}") from None
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = "it is not a regular file"
    elif info.st_uid != os.getuid():
        problem = f"it belongs to user id {info.st_uid}"
    elif info.st_mode & 0o077:
        problem = f"its mode is {stat.S_IMODE(info.st_mode):o}, not 600"
    if problem:
        os.close(fd)
        raise SessionError(f"refusing session file {path}: {problem}")
    return fd


def _lock(fd: int, path: Path) -> None:
    import fcntl

    deadline = time.monotonic() + LOCK_TIMEOUT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise SessionError(
                    f"session file {path} is busy: another advance has held it for "
                    f"{LOCK_TIMEOUT_S:.0f} s"
                ) from None
            time.sleep(0.005)


KEY_FILE: Final = f"{FILE_PREFIX}snapshot.key"
"""The per-user key that authenticates snapshot sidecars, beside the session files."""


def snapshot_key(folder: Path) -> tuple[bytes, bool]:
    """``(key, created)``: the folder's snapshot key, made (32 random bytes, 0600) when
    missing. ``created`` is true when this call made it, so no sidecar was signed with it.
    A key file that is not a private regular file of ours is refused."""
    path = folder / KEY_FILE
    created = False
    if not os.path.lexists(path):
        import secrets  # once per folder: most calls only read the key

        try:
            create_file(path, secrets.token_bytes(32))
            created = True
        except SessionError:
            if not os.path.lexists(path):  # not a race with another call: a real failure
                raise
    fd = _open_existing(path, "snapshot key", os.O_RDONLY)
    try:
        key = os.read(fd, 64)
    finally:
        os.close(fd)
    if len(key) != 32:
        raise SessionError(f"refusing snapshot key {path}: it does not hold 32 bytes")
    return key, created


def read_sidecar(path: Path) -> bytes | None:
    """The sidecar's bytes, or ``None`` when it is missing or not safely ours (it is only a
    cache: the session file is rebuilt from scratch without it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


SIDECAR_TAG: Final = b"blake2b:"
"""How a sidecar's tag line starts."""
EARLIER_SIDECAR_TAG: Final = re.compile(rb"[0-9a-f]{64}")
"""The tag line of earlier builds (HMAC-SHA256 in hex): a session such a build left is
rebuilt from its file once, not refused."""


def sidecar_tag(key: bytes, payload: bytes) -> bytes:
    """The tag line of a sidecar holding ``payload``: BLAKE2b in its keyed mode, a MAC
    made for this, which (unlike HMAC through ``hmac``) loads no OpenSSL."""
    from skillkit_core.fast_hash import blake2b

    return SIDECAR_TAG + blake2b(payload, key=key, digest_size=32).hexdigest().encode("ascii")


def content_digest(data: bytes = b""):  # the C type has no public name to annotate
    """The digest of a session file's bytes that its sidecar records (``update`` extends
    it, ``hexdigest`` reads it)."""
    from skillkit_core.fast_hash import blake2b

    return blake2b(data, digest_size=32)


def write_signed_sidecar(path: Path, payload: bytes) -> str | None:
    """Write the sidecar: a tag line under the folder's snapshot key, then ``payload``.
    A failure only costs speed later, so it is returned as a note."""
    try:
        key, _ = snapshot_key(path.parent)
        write_sidecar(path, sidecar_tag(key, payload) + b"\n" + payload)
    except (SessionError, OSError) as error:
        return f"warning: could not write the session snapshot ({error}); later calls replay"
    return None


def write_sidecar(path: Path, data: bytes) -> None:
    """Replace the sidecar atomically (a private temp file renamed over it)."""
    temp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)  # left over from a crashed call; we hold the session lock
    create_file(temp, data)
    os.replace(temp, path)

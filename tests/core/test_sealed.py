"""Sealed cache files (``skillkit_core.sealed``): written whole or not at all, and only
into the file named."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from skillkit_core import sealed
from skillkit_core.sealed import unseal, write_sealed

HEADER = b"test\0"


def test_a_link_where_the_temporary_file_goes_is_replaced_not_followed(tmp_path: Path) -> None:
    # Found by a probe: the temporary file was opened by name, following a link planted
    # there (the save then overwrote the file the link named).
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file")
    path = tmp_path / "cache.bin"
    (tmp_path / f"cache.bin.{os.getpid()}.tmp").symlink_to(victim)
    assert write_sealed(str(path), HEADER, {"a": 1})
    assert victim.read_text() == "the user's own file"
    assert unseal(HEADER, path.read_bytes()) == {"a": 1}
    assert stat.S_IMODE(path.lstat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.bin", "victim.txt"]


def test_a_temporary_file_left_by_a_dead_process_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "cache.bin"
    (tmp_path / f"cache.bin.{os.getpid()}.tmp").write_bytes(b"half a file")
    assert write_sealed(str(path), HEADER, [1, 2])
    assert unseal(HEADER, path.read_bytes()) == [1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["cache.bin"]


def test_updates_of_a_folder_take_turns_and_a_held_turn_is_waited_for_briefly(
    tmp_path: Path,
) -> None:
    import time

    with sealed.update_turn(str(tmp_path)) as mine:
        assert mine is True
        started = time.monotonic()
        # Another process asking now (flock is per open file, so a second open here
        # stands for it) waits at most LOCK_WAIT, then goes on without the lock.
        with sealed.update_turn(str(tmp_path)) as theirs:
            waited = time.monotonic() - started
        assert theirs is False
        assert sealed.LOCK_WAIT <= waited < sealed.LOCK_WAIT + 1
    with sealed.update_turn(str(tmp_path)) as again:
        assert again is True  # released on leaving
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the folder gained no file
    with sealed.update_turn(str(tmp_path / "missing")) as none:
        assert none is False

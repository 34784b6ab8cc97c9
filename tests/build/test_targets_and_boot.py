"""Platforms and wheels at build time; picking and unpacking native code at run time."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from skillkit_core import cache_folder
from skillkit_core.build import boot
from skillkit_core.build.pyz import deterministic_zip
from skillkit_core.build.targets import (
    DEFAULT_TARGETS,
    TARGETS,
    current_target_id,
    parse_python_versions,
    parse_targets,
)
from skillkit_core.build.wheels import WheelName, find_cached
from skillkit_core.errors import BuildError


def test_targets_parse_defaults_lists_and_refuse_unknown_ones() -> None:
    assert parse_targets(None) == DEFAULT_TARGETS == ("linux-x64", "darwin-arm64")
    assert parse_targets(("linux-arm64,darwin-x64", "linux-arm64")) == (
        "linux-arm64",
        "darwin-x64",
    )
    with pytest.raises(BuildError, match="unknown target 'amiga-m68k'"):
        parse_targets("linux-x64,amiga-m68k")
    assert parse_python_versions("3.12, 3.13") == ("3.12", "3.13")
    with pytest.raises(BuildError, match=r"'3\.10'"):
        parse_python_versions("3.10")


@pytest.mark.parametrize(
    ("filename", "target", "python", "fits"),
    [
        (
            "pydantic_core-2.5.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "linux-x64",
            "3.12",
            True,
        ),
        ("pydantic_core-2.5.0-cp312-cp312-manylinux_2_17_x86_64.whl", "linux-x64", "3.11", False),
        ("pydantic_core-2.5.0-cp312-cp312-musllinux_1_1_x86_64.whl", "linux-x64", "3.12", False),
        ("pydantic_core-2.5.0-cp312-cp312-manylinux_2_17_aarch64.whl", "linux-arm64", "3.12", True),
        ("pydantic_core-2.5.0-cp312-cp312-macosx_11_0_arm64.whl", "darwin-arm64", "3.12", True),
        ("pydantic_core-2.5.0-cp312-cp312-macosx_11_0_arm64.whl", "darwin-x64", "3.12", False),
        ("x-1-cp311-cp311-macosx_10_9_universal2.whl", "darwin-x64", "3.11", True),
        ("cryptography-44-cp311-abi3-manylinux_2_28_x86_64.whl", "linux-x64", "3.13", True),
        ("cryptography-44-cp311-abi3-manylinux_2_28_x86_64.whl", "darwin-arm64", "3.13", False),
        ("x-1-cp313-abi3-win_amd64.whl", "windows-x64", "3.12", False),
        ("x-1-cp311-cp311-win_amd64.whl", "windows-x64", "3.11", True),
    ],
)
def test_wheel_names_say_where_they_load(filename, target, python, fits) -> None:
    wheel = WheelName.parse(filename)
    assert wheel is not None
    assert wheel.fits(TARGETS[target], python) is fits


def test_the_cache_prefers_the_most_portable_linux_wheel(tmp_path: Path) -> None:
    for tag in ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64.manylinux2014_x86_64"):
        (tmp_path / f"rpds_py-1.0-cp311-cp311-{tag}.whl").write_bytes(b"")
    (tmp_path / "rpds_py-2.0-cp311-cp311-manylinux_2_17_x86_64.whl").write_bytes(b"")
    found = find_cached(tmp_path, "rpds-py", "1.0", TARGETS["linux-x64"], "3.11")
    assert found is not None and "manylinux_2_17" in found.name and "-1.0-" in found.name
    assert find_cached(tmp_path, "rpds-py", "1.0", TARGETS["linux-x64"], "3.12") is None


def test_build_and_run_time_agree_on_this_machines_name() -> None:
    assert boot.target_id() == current_target_id()


NATIVE = boot.native_member("linux-x64-cp311")


def _pyz(tmp_path: Path, native: dict[str, bytes], python: dict[str, bytes]) -> str:
    outer = deterministic_zip(
        {
            NATIVE: deterministic_zip(native),
            boot.PURE_MEMBER: deterministic_zip(python),
            "__main__.py": b"",
            "_skillkit_boot.py": b"",
        }
    )
    path = tmp_path / "bin" / "demo.pyz"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(outer)
    return str(path)


def test_native_code_is_unpacked_once_into_a_private_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "cache"))
    native = {"fast/__init__.py": b"X = 2\n", "fast/_ext.so": b"\x7fELF"}
    archive = _pyz(tmp_path, native, {})
    folder = boot.extracted(archive, "abc123", NATIVE)
    assert folder == str(tmp_path / "cache" / "bundles" / "native-abc123")
    assert (Path(folder) / "fast" / "_ext.so").read_bytes() == b"\x7fELF"
    base = Path(folder).parent
    assert stat.S_IMODE(base.stat().st_mode) == 0o700
    assert [p.name for p in base.iterdir()] == ["native-abc123"]  # no scratch left
    (Path(folder) / "marker").write_text("kept")
    assert boot.extracted(archive, "abc123", NATIVE) == folder
    assert (Path(folder) / "marker").exists()


def test_python_files_land_with_bytecode_in_pycache_only_for_this_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util
    import sys

    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "cache"))
    ours = importlib.util.MAGIC_NUMBER + b"rest"
    archive = _pyz(tmp_path, {}, {"pkg/__init__.py": b"", "pkg/__init__.pyc": ours, "m.pyc": ours})
    folder = Path(boot.extracted(archive, "def456", boot.PURE_MEMBER))
    assert folder.name == "python-def456"
    tag = sys.implementation.cache_tag
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    expected = ["pkg/__init__.py", f"pkg/__pycache__/__init__.{tag}.pyc"]
    assert names == [f"__pycache__/m.{tag}.pyc", *expected]
    other = b"\x00\x00\r\nold"  # another Python's magic number: its bytecode is left out
    archive = _pyz(tmp_path, {}, {"pkg/__init__.py": b"", "pkg/__init__.pyc": other})
    folder = Path(boot.extracted(archive, "789abc", boot.PURE_MEMBER))
    assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == ["__init__.py"]


def test_unpacked_bundles_unused_for_a_month_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import time

    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "cache"))
    archive = _pyz(tmp_path, {"a.py": b""}, {"b.py": b""})
    stale = Path(boot.extracted(archive, "old", NATIVE))
    recent = Path(boot.extracted(archive, "recent", boot.PURE_MEMBER))
    month_ago = time.time() - 31 * 86400
    os.utime(stale, (month_ago, month_ago))
    os.utime(recent, (month_ago, month_ago))
    boot.extracted(archive, "recent", boot.PURE_MEMBER)  # used now: touched
    boot.extracted(archive, "new", NATIVE)  # an unpack prunes
    assert sorted(p.name for p in stale.parent.iterdir()) == ["native-new", "python-recent"]


def _refused(archive: str, digest: str, capsys: pytest.CaptureFixture[str]) -> str:
    """What a call prints when it refuses to unpack ``archive``'s native code (it exits
    with the protocol's JSON ``cache`` error)."""
    with pytest.raises(SystemExit) as stopped:
        boot.extracted(archive, digest, NATIVE)
    assert stopped.value.code == 1
    out = capsys.readouterr().out
    assert '"error":"cache"' in out
    return out


def test_a_cache_folder_other_users_can_write_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "cache" / "bundles"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "cache"))
    out = _refused(_pyz(tmp_path, {"fast/__init__.py": b""}, {}), "abc", capsys)
    assert "not a private folder" in out


def _no_primary_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home whose cache cannot be written: unpacking falls back to the temp folder
    (returned: ``skillkit-<uid>/bundles`` is made in it)."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.delenv("SKILLKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    return temp


def test_the_temp_fallback_is_unpacked_once_and_found_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = _no_primary_cache(tmp_path, monkeypatch)
    unpacked = []
    unpack = boot._unpack
    monkeypatch.setattr(boot, "_unpack", lambda *args: unpacked.append(1) or unpack(*args))
    archive = _pyz(tmp_path, {"fast/__init__.py": b"X = 1\n"}, {})
    folder = boot.extracted(archive, "fb1", NATIVE)
    assert folder == str(temp / f"skillkit-{os.getuid()}" / "bundles" / "native-fb1")
    assert boot.extracted(archive, "fb1", NATIVE) == folder
    assert len(unpacked) == 1  # found there by the second call, not unpacked again


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_a_fallback_folder_another_user_made_first_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Another local user made <temp>/skillkit-<uid> first (the name is predictable), open
    # to all, and put a bundle of their own in it under the name the real one unpacks to.
    temp = _no_primary_cache(tmp_path, monkeypatch)
    planted = temp / f"skillkit-{os.getuid()}" / "bundles" / "native-fb2"
    planted.mkdir(parents=True)
    (planted / "fast").mkdir()
    (planted / "fast" / "__init__.py").write_text("raise SystemExit('planted')\n")
    for path in (planted.parent.parent, planted.parent, planted):
        os.chown(path, 12345, 12345)
    planted.parent.parent.chmod(0o777)
    out = _refused(_pyz(tmp_path, {"fast/__init__.py": b"X = 1\n"}, {}), "fb2", capsys)
    assert "another user could change" in out


@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_a_cache_whose_parent_others_may_write_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    # The cache folder itself is private, but whoever may write in the folder above it
    # could rename it away and put their own in its place.
    (tmp_path / "shared" / "cache" / "bundles").mkdir(parents=True, mode=0o700)
    (tmp_path / "shared").chmod(mode)
    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "shared" / "cache"))
    archive = _pyz(tmp_path, {"fast/__init__.py": b""}, {})
    assert f"another user could change {tmp_path / 'shared'}" in _refused(archive, "abc", capsys)


def test_a_sticky_folder_open_to_all_above_the_cache_is_fine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sticky").mkdir()
    (tmp_path / "sticky").chmod(0o1777)  # as /tmp: only an entry's owner may move it
    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "sticky" / "cache"))
    archive = _pyz(tmp_path, {"fast/__init__.py": b""}, {})
    folder = boot.extracted(archive, "abc", NATIVE)
    assert folder == str(tmp_path / "sticky" / "cache" / "bundles" / "native-abc")


def test_in_a_user_namespace_without_root_the_overflow_owner_stands_for_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In a sandbox such as bubblewrap makes, root's / and /tmp show as the overflow id:
    # taken for another user's, they refused every cache (a built skill could not run).
    if os.getuid() != 0:
        pytest.skip("chown needs root")
    above = tmp_path / "sticky"
    (above / "mine").mkdir(parents=True, mode=0o700)
    (above / "theirs").mkdir(mode=0o700)
    above.chmod(0o1777)
    for folder in (above, above / "theirs"):
        os.chown(folder, 65534, 65534)
    monkeypatch.setattr(cache_folder, "_root_ids", None)
    monkeypatch.setattr(cache_folder, "_maps_root", lambda: True)
    with pytest.raises(cache_folder.NotPrivate):
        cache_folder.private_folder(str(above / "mine"))  # 65534 is just another user
    monkeypatch.setattr(cache_folder, "_root_ids", None)
    monkeypatch.setattr(cache_folder, "_maps_root", lambda: False)
    monkeypatch.setattr(cache_folder, "_overflow_id", lambda: 65534)
    assert cache_folder.private_folder(str(above / "mine")) == str(above / "mine")
    with pytest.raises(cache_folder.NotPrivate):  # the folder itself must be the user's
        cache_folder.private_folder(str(above / "theirs"))
    monkeypatch.setattr(cache_folder, "_root_ids", None)


def test_the_temp_fallback_is_private_so_sessions_may_live_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session store keeps its files in <temp>/skillkit-<uid> and refuses it unless
    # only this user may enter it.
    temp = _no_primary_cache(tmp_path, monkeypatch)
    previous = os.umask(0o002)
    try:
        boot.extracted(_pyz(tmp_path, {"fast/__init__.py": b""}, {}), "fb3", NATIVE)
    finally:
        os.umask(previous)
    for folder in (temp / f"skillkit-{os.getuid()}", temp / f"skillkit-{os.getuid()}" / "bundles"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_folders_made_for_the_cache_are_private_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # umask 002 is a regular user's default on Ubuntu and Fedora: folders made with it
    # are open to the group, and the check would refuse what the call just made.
    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "new" / "cache"))
    previous = os.umask(0o002)
    try:
        folder = boot.extracted(_pyz(tmp_path, {"fast/__init__.py": b""}, {}), "u2", NATIVE)
    finally:
        os.umask(previous)
    assert folder == str(tmp_path / "new" / "cache" / "bundles" / "native-u2")
    for made in (tmp_path / "new", tmp_path / "new" / "cache"):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700, made


def test_a_bundle_found_in_the_home_cache_needs_no_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKILLKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    archive = _pyz(tmp_path, {"fast/__init__.py": b""}, {})
    folder = boot.extracted(archive, "h1", NATIVE)

    def no_temp_folder() -> str:
        raise AssertionError("the temp folder was looked for")

    monkeypatch.setattr(cache_folder, "temp_folder", no_temp_folder)
    assert boot.extracted(archive, "h1", NATIVE) == folder


def test_an_unpacked_folder_others_may_write_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found open to others, it is unpacked again; the rename then finds it in the way,
    # and it must not be taken as another process's fresh copy.
    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(tmp_path / "cache"))
    archive = _pyz(tmp_path, {"fast/__init__.py": b""}, {})
    folder = Path(boot.extracted(archive, "o1", NATIVE))
    folder.chmod(0o777)
    assert f"another user could change {folder}" in _refused(archive, "o1", capsys)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="lchown needs root")
def test_another_users_link_on_the_way_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Made by someone else in a sticky folder under the name the cache takes, it would
    # choose where the call unpacks (and prunes).
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", sticky / "cache")
    os.lchown(sticky / "cache", 12345, 12345)
    monkeypatch.setenv("SKILLKIT_CACHE_DIR", str(sticky / "cache"))
    archive = _pyz(tmp_path, {"fast/__init__.py": b""}, {})
    assert "another user's link" in _refused(archive, "l1", capsys)
    assert not (tmp_path / "elsewhere" / "bundles").exists()


def test_entries_that_would_escape_the_cache_are_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../evil.py", b"boom")
    with zipfile.ZipFile(buffer) as archive, pytest.raises(OSError, match="outside"):
        boot._unpack(archive, str(tmp_path / "into"), lambda name: None)
    assert not (tmp_path / "evil.py").exists()


def test_an_unsupported_platform_gets_a_message_naming_what_was_built(
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = {"skill": "demo", "native": {"darwin-arm64-cp312": "x", "linux-x64-cp313": "y"}}
    message = boot._unsupported(config, "plan9-mips-cp311", "3.11")
    assert "plan9-mips with CPython 3.11" in message
    assert "darwin-arm64-cp312, linux-x64-cp313" in message
    assert "--targets plan9-mips --python 3.11" in message


def test_deterministic_zips_depend_only_on_names_and_contents() -> None:
    first = deterministic_zip({"b.txt": b"2", "a.txt": b"1"})
    second = deterministic_zip({"a.txt": b"1", "b.txt": b"2"})
    assert first == second
    with zipfile.ZipFile(io.BytesIO(first)) as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == ["a.txt", "b.txt"]
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.external_attr >> 16 for i in infos} == {0o644}


def test_plugin_search_is_skipped_and_importlib_metadata_loads_only_when_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib
    import importlib.metadata
    import sys

    # Everything this test replaces is put back afterwards.
    monkeypatch.setattr(importlib, "metadata", importlib.metadata)
    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    monkeypatch.delitem(sys.modules, "importlib.metadata")
    boot._skip_plugin_discovery()
    assert boot.os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__"
    stand_in = sys.modules["importlib.metadata"]
    assert isinstance(stand_in, boot._DeferredModule)
    from importlib.metadata import entry_points, version  # what pydantic does at start-up

    assert sys.modules["importlib.metadata"] is stand_in, "importing names loads nothing"
    assert version("pydantic") == importlib.import_module("pydantic").VERSION
    real = sys.modules["importlib.metadata"]
    assert real is not stand_in and not isinstance(real, boot._DeferredModule)
    assert stand_in.PackageNotFoundError is real.PackageNotFoundError
    assert callable(entry_points)


def test_modules_unused_at_start_load_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    import secrets as real_secrets
    import sys

    monkeypatch.delitem(sys.modules, "secrets")
    boot._defer_unused_modules()
    stand_in = sys.modules["secrets"]
    assert isinstance(stand_in, boot._DeferredModule)
    assert "__path__" not in vars(stand_in), "a plain module must not look like a package"
    import secrets  # what pydantic.types does at start-up

    assert secrets is stand_in, "importing it loads nothing"
    assert secrets.compare_digest(b"key", b"key") and not secrets.compare_digest(b"a", b"b")
    real = sys.modules["secrets"]
    assert real is not stand_in and not isinstance(real, boot._DeferredModule)
    assert real.token_bytes is not None
    monkeypatch.setitem(sys.modules, "secrets", real_secrets)


@pytest.mark.parametrize("read", [lambda m: m.__doc__, dir], ids=["doc", "dir"])
def test_a_stand_in_shows_the_real_module(monkeypatch: pytest.MonkeyPatch, read) -> None:
    import secrets as real_secrets
    import sys

    monkeypatch.delitem(sys.modules, "secrets")
    boot._defer_unused_modules()
    stand_in = sys.modules["secrets"]
    assert read(stand_in) == read(real_secrets)
    assert sys.modules["secrets"] is not stand_in
    monkeypatch.setitem(sys.modules, "secrets", real_secrets)


FINISH = """
import atexit, sys, threading, time
sys.path.insert(0, {root!r})
from skillkit_core.build.boot import finish
atexit.register(lambda: open({marker!r}, "a").write("atexit\\n"))
if {thread}:
    def late():
        time.sleep(0.3)
        open({marker!r}, "a").write("thread\\n")
    threading.Thread(target=late).start()
sys.stdout.write("buffered, no newline")
finish(3)
"""


@pytest.mark.parametrize("thread", [False, True])
def test_the_fast_exit_keeps_exit_code_output_atexit_and_running_threads(
    tmp_path: Path, thread: bool
) -> None:
    import subprocess
    import sys

    marker = tmp_path / "marker"
    root = str(Path(boot.__file__).parents[2])
    script = FINISH.format(root=root, marker=str(marker), thread=thread)
    argv = [sys.executable, "-I", "-S", "-c", script]
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == 3
    assert done.stdout == "buffered, no newline"
    expected = ["thread", "atexit"] if thread else ["atexit"]
    assert marker.read_text().split() == expected

"""skillkit's cache folder: one rule for every part that keeps files there, and the copy
of it that a built skill's boot code carries."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from skillkit_core.build import boot
from skillkit_core.cache_folder import (
    cache_folder,
    cache_root,
    make_private_folders,
    may_read,
    own_folder,
    platform_cache_home,
    private_folder,
    temp_folder,
)

TEMP = tempfile.gettempdir()  # a folder that exists
# Homes exist (a cache never makes one): the fixture makes them.
HOME = f"{TEMP}/skillkit-test-{os.getpid()}/home/someone"
# The home the user database gives (when $HOME is no absolute path).
DATABASE_HOME = f"{TEMP}/skillkit-test-{os.getpid()}/var/lib/someone"
TEMP_ROOT = f"{TEMP}/skillkit-{os.getuid()}"

# (environment, platform, the cache root expected).
CASES = [
    ({"SKILLKIT_CACHE_DIR": "/ci/cache"}, "linux", "/ci/cache"),
    ({"SKILLKIT_CACHE_DIR": "/ci/cache", "XDG_CACHE_HOME": "/x"}, "linux", "/ci/cache"),
    ({"XDG_CACHE_HOME": "/x/cache"}, "linux", "/x/cache/skillkit"),
    ({}, "linux", f"{HOME}/.cache/skillkit"),
    ({"SKILLKIT_CACHE_DIR": ""}, "linux", f"{HOME}/.cache/skillkit"),
    ({"XDG_CACHE_HOME": ""}, "linux", f"{HOME}/.cache/skillkit"),
    # The XDG Base Directory specification: a relative path in the variable is invalid
    # and is to be ignored.
    ({"XDG_CACHE_HOME": "relative/cache"}, "linux", f"{HOME}/.cache/skillkit"),
    ({"XDG_CACHE_HOME": "/x/cache"}, "darwin", f"{HOME}/Library/Caches/skillkit"),
    ({"SKILLKIT_CACHE_DIR": "/ci/cache"}, "darwin", "/ci/cache"),
    # A relative path is never taken: a built skill runs from any folder.
    ({"SKILLKIT_CACHE_DIR": "cache"}, "linux", f"{HOME}/.cache/skillkit"),
    # An empty or relative $HOME would put the cache in / or in the current folder.
    ({"HOME": ""}, "linux", f"{DATABASE_HOME}/.cache/skillkit"),
    ({"HOME": "relative-home"}, "linux", f"{DATABASE_HOME}/.cache/skillkit"),
    ({"HOME": "relative-home"}, "darwin", f"{DATABASE_HOME}/Library/Caches/skillkit"),
    ({"HOME": "", "XDG_CACHE_HOME": "/x/cache"}, "linux", "/x/cache/skillkit"),
    # No home anywhere: the temp folder's skillkit-<uid>.
    ({"HOME": "", "no database home": ""}, "linux", TEMP_ROOT),
    # A home that does not exist is none (as root, the cache would make it).
    ({"HOME": "/nonexistent/home"}, "linux", f"{DATABASE_HOME}/.cache/skillkit"),
    ({"HOME": "/nonexistent/home", "no database home": ""}, "linux", TEMP_ROOT),
]


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch):
    for home in (HOME, DATABASE_HOME):
        os.makedirs(home, exist_ok=True)

    def set_up(values: dict[str, str], platform: str) -> None:
        values = dict(values)
        for name in ("SKILLKIT_CACHE_DIR", "XDG_CACHE_HOME", "LOCALAPPDATA"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HOME", HOME)
        database_home = "" if values.pop("no database home", None) is not None else DATABASE_HOME
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(pwd, "getpwuid", lambda _uid: SimpleNamespace(pw_dir=database_home))
        for name in ("TEMP", "TMP"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("TMPDIR", TEMP)
        monkeypatch.setattr(sys, "platform", platform)

    yield set_up
    shutil.rmtree(f"{TEMP}/skillkit-test-{os.getpid()}", ignore_errors=True)


@pytest.mark.parametrize(("values", "platform", "expected"), CASES)
def test_the_cache_root_follows_the_variable_then_the_platform(
    environment, values: dict[str, str], platform: str, expected: str
) -> None:
    environment(values, platform)
    assert cache_root() == expected
    assert cache_folder("check") == os.path.join(expected, "check")


@pytest.mark.parametrize(("values", "platform", "expected"), CASES)
def test_the_boot_code_of_a_built_skill_unpacks_where_the_rule_says(
    environment, values: dict[str, str], platform: str, expected: str
) -> None:
    # boot.py runs before the bundle is unpacked: it takes this module as a copy in the
    # pyz (here, the package's own), and must unpack where the rule says.
    environment(values, platform)
    assert boot._primary_cache() == cache_folder("bundles")


def test_windows_takes_local_app_data(environment) -> None:
    environment({"LOCALAPPDATA": "/appdata/local"}, "win32")
    assert platform_cache_home() == "/appdata/local"
    assert boot._primary_cache() == cache_folder("bundles")


def test_every_part_keeps_its_files_in_the_one_cache(environment, tmp_path) -> None:
    from skill_lsp import rule_docs
    from skill_lsp.features import commands
    from skillkit_core.build.wheels import cache_root as wheel_cache
    from skillkit_core.lint.result_cache import check_directory

    environment({"SKILLKIT_CACHE_DIR": str(tmp_path)}, sys.platform)
    assert str(wheel_cache()) == str(tmp_path)
    assert check_directory() == str(tmp_path / "check")
    page = tmp_path / "rules" / "9.9" / "broken-link.md"
    assert rule_docs._write_page(rule_docs.find_rule("broken-link"), "9.9") == page.as_uri()
    assert commands._output_folder() == tmp_path / "editor"


def test_a_damaged_rule_page_is_written_again(environment, tmp_path) -> None:
    # Found by a probe: a page that was no UTF-8 raised out of the diagnostics.
    from skill_lsp import rule_docs

    environment({"SKILLKIT_CACHE_DIR": str(tmp_path)}, sys.platform)
    rule = rule_docs.find_rule("broken-link")
    uri = rule_docs._write_page(rule, "9.9")
    page = tmp_path / "rules" / "9.9" / "broken-link.md"
    assert uri == page.as_uri()
    written = page.read_bytes()
    page.write_bytes(b"\xff\xfe")
    assert rule_docs._write_page(rule, "9.9") == uri
    assert page.read_bytes() == written


def test_rule_pages_fall_back_to_the_users_own_temp_folder(
    environment, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    # As the previews do: a cache folder another user could change (a ~/.cache made
    # group-writable by umask 002) would otherwise leave diagnostics without rule links.
    from skill_lsp import rule_docs

    (tmp_path / "cache").mkdir()
    (tmp_path / "cache").chmod(0o777)
    temp = tmp_path / "temp"
    temp.mkdir()
    environment({"SKILLKIT_CACHE_DIR": str(tmp_path / "cache")}, sys.platform)
    monkeypatch.setenv("TMPDIR", str(temp))
    uri = rule_docs._write_page(rule_docs.find_rule("broken-link"), "9.9")
    page = temp / f"skillkit-{os.getuid()}" / "rules" / "9.9" / "broken-link.md"
    assert uri == page.as_uri() and page.is_file()
    assert list((tmp_path / "cache").iterdir()) == []


def test_editor_previews_fall_back_to_the_users_own_temp_folder(
    environment, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from skill_lsp.features import commands

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    temp = tmp_path / "temp"
    temp.mkdir()
    environment({"SKILLKIT_CACHE_DIR": str(blocked / "cache")}, sys.platform)
    monkeypatch.setenv("TMPDIR", str(temp))
    own = temp / f"skillkit-{os.getuid()}"
    assert commands._output_folder() == own / "editor"
    assert (own.stat().st_mode & 0o777, (own / "editor").stat().st_mode & 0o777) == (0o700,) * 2
    # Made by someone else first, open to all: a symlink planted there would take a preview.
    os.chmod(own, 0o777)
    with pytest.raises(OSError, match="not a private folder of this user"):
        commands._output_folder()


def test_editor_previews_check_a_cache_that_is_the_temp_fallback_too(
    environment, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    # A user without a home: the cache root itself is <temp>/skillkit-<uid>, a name anyone
    # may take first (the first branch was not checked, found by a probe).
    from skill_lsp.features import commands

    environment({"HOME": "relative", "no database home": ""}, sys.platform)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    planted = tmp_path / f"skillkit-{os.getuid()}" / "editor"
    planted.mkdir(parents=True)
    os.chown(planted.parent, 65534, 65534)
    os.chown(planted, 65534, 65534)
    (planted / "preview.md").symlink_to(tmp_path / "users-own-file")
    with pytest.raises(OSError, match="not a private folder of this user"):
        commands._output_folder()


def test_own_folder_takes_only_folders_no_other_user_can_change(tmp_path) -> None:
    made = tmp_path / "new" / "folder"
    assert own_folder(str(made)) == str(made)
    assert stat.S_IMODE(made.stat().st_mode) == stat.S_IMODE((tmp_path / "new").stat().st_mode)
    (tmp_path / "mine").symlink_to(made)  # the user's own link: where it leads is checked
    assert own_folder(str(tmp_path / "mine")) == str(made)
    (tmp_path / "theirs").mkdir()
    os.chown(tmp_path / "theirs", 65534, 65534)
    (tmp_path / "their-link").symlink_to(made)
    os.lchown(tmp_path / "their-link", 65534, 65534)
    (tmp_path / "open" / "deep" / "folder").mkdir(parents=True, mode=0o700)
    (tmp_path / "open").chmod(0o777)  # two levels up, open: the tree could be swapped
    (tmp_path / "sticky" / "folder").mkdir(parents=True, mode=0o700)
    (tmp_path / "sticky").chmod(0o1777)  # as /tmp: only an entry's owner may move it
    assert own_folder(str(tmp_path / "sticky" / "folder")) == str(tmp_path / "sticky" / "folder")
    refused = [
        tmp_path / "theirs",
        tmp_path / "theirs" / "below",
        tmp_path / "their-link",
        tmp_path / "open" / "deep" / "folder",
    ]
    for path in refused:
        with pytest.raises(OSError, match="not a private folder of this user"):
            own_folder(str(path))
    assert not (tmp_path / "theirs" / "below").exists(), "nothing is made through theirs"


def test_may_read_takes_only_a_private_folder_it_can_see(tmp_path) -> None:
    (tmp_path / "mine").mkdir(mode=0o700)
    (tmp_path / "open").mkdir()
    (tmp_path / "open").chmod(0o777)
    (tmp_path / "file").write_text("")
    assert may_read(str(tmp_path / "mine"))
    for name in ("open", "file", "missing"):
        assert not may_read(str(tmp_path / name)), name
    with pytest.raises(OSError, match=r"file is no folder"):
        private_folder(str(tmp_path / "file"))


def test_a_temp_folder_the_user_cannot_write_is_passed_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # tempfile.gettempdir passes over a TMPDIR it cannot write in; so must the caches and
    # the session store (they failed with "Permission denied"). Root may write anywhere:
    # the check runs as user 65534, in a child that drops to it after its imports.
    if os.geteuid() != 0:
        pytest.skip("needs root to become another user")
    shared = tempfile.mkdtemp(dir="/tmp")
    try:
        os.chmod(shared, 0o755)  # root's: 65534 may enter, not write
        code = (
            "import os; from skillkit_core.cache_folder import temp_folder; "
            "os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534); "
            "print(temp_folder())"
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "TMPDIR": shared, "TEMP": "", "TMP": ""},
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert (done.returncode, done.stdout.strip()) == (0, "/tmp"), done.stderr
        monkeypatch.setenv("TMPDIR", shared)
        assert temp_folder() == shared  # root may write there
    finally:
        os.rmdir(shared)


def test_the_temp_folder_is_never_the_current_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    # tempfile.gettempdir falls back to the current folder: a cache there would land in
    # the agent's project.
    monkeypatch.chdir(tmp_path)
    for name in ("TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TMPDIR", "relative")
    (tmp_path / "relative").mkdir()
    assert temp_folder() in ("/tmp", "/var/tmp", "/usr/tmp")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert temp_folder() == str(tmp_path)


def test_private_folders_are_made_so_whatever_the_umask(tmp_path) -> None:
    previous = os.umask(0o002)
    try:
        make_private_folders(str(tmp_path / "a" / "b" / "c"))
        make_private_folders(str(tmp_path / "a" / "b" / "c"))  # there already: no error
    finally:
        os.umask(previous)
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c"):
        assert oct(folder.stat().st_mode & 0o777) == oct(0o700), folder

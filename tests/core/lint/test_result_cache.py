"""The result cache of ``skillkit check``: findings read back only while everything they
depend on is as it was; any change to a folder (or to what a rule asked about outside
it) gives the findings a fresh check gives."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillkit_core.lint import check_folder as check_folder_module
from skillkit_core.lint import result_cache
from skillkit_core.lint.check_paths import run_check
from skillkit_core.lint.format import render_json
from skillkit_core.lint.result_cache import _HEADER as HEADER
from skillkit_core.lint.result_cache import ResultCache
from skillkit_core.sealed import seal, unseal
from tests.core.lint.skillmd_support import make_skill, skill_md

CORPUS = Path(__file__).parents[3].parent / "shared" / "corpus"
# A finding someone else wrote into a pack: read back, it would be shown.
PLANTED = ("planted", "error", "a planted finding", None, None, None, None, [])


class Counted:
    """Counts the folders really checked (not read back from the cache)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = check_folder_module.check_folder

        def counting(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return original(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(check_folder_module, "check_folder", counting)


def _json(paths: list[str], cache: ResultCache | None, **options: object) -> dict:
    outcome = run_check(paths, hosts=False, cache=cache, **options)  # type: ignore[arg-type]
    return json.loads(render_json(outcome.run))


def _skill(tmp_path: Path) -> Path:
    return make_skill(
        tmp_path / "skills",
        "pdf-tools",
        {
            "SKILL.md": skill_md(
                body="# PDF tools\n\nRead [the guide](references/guide.md) and run "
                "`scripts/extract.py`.\n"
            ),
            "references/guide.md": "# Guide\n\nDetails.\n",
            "scripts/extract.py": "#!/usr/bin/env python3\nprint(1)\n",
        },
        executable=("scripts/extract.py",),
    )


@pytest.fixture
def cache(tmp_path: Path) -> ResultCache:
    return ResultCache(str(tmp_path / "cache"))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counted:
    return Counted(monkeypatch)


def test_an_unchanged_folder_is_read_back_with_the_same_findings(
    tmp_path: Path, cache: ResultCache, counted: Counted
) -> None:
    folder = _skill(tmp_path)
    (folder / "SKILL.md").write_text(skill_md(name="PDF-Tools"))  # findings to keep
    fresh = _json([str(folder)], None)
    assert fresh["diagnostics"]
    assert _json([str(folder)], cache) == fresh
    assert counted.calls == 2
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh  # another process
    assert counted.calls == 2


def _edits() -> list[tuple[str, object]]:
    return [
        ("the SKILL.md text", lambda f: (f / "SKILL.md").write_text(skill_md(name="pdf"))),
        ("a reference removed", lambda f: (f / "references" / "guide.md").unlink()),
        ("the executable bit", lambda f: os.chmod(f / "scripts" / "extract.py", 0o644)),
        ("a file added", lambda f: (f / "notes.md").write_text("Use key AKIAQ3MZ7T4XH2PLW9RC.\n")),
        ("a script's content", lambda f: (f / "scripts" / "extract.py").write_text("print(1)\n")),
    ]


@pytest.mark.parametrize("edit", [e for _, e in _edits()], ids=[n for n, _ in _edits()])
def test_an_edit_gives_the_findings_of_a_fresh_check(
    tmp_path: Path, cache: ResultCache, edit: object
) -> None:
    folder = _skill(tmp_path)
    before = _json([str(folder)], cache)
    edit(folder)  # type: ignore[operator]
    fresh = _json([str(folder)], None)
    assert fresh != before  # the edit changes the findings
    assert _json([str(folder)], cache) == fresh
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh


def test_an_edit_that_keeps_size_and_modification_time_is_seen(
    tmp_path: Path, cache: ResultCache
) -> None:
    # The key is the content, not the file's stat.
    folder = _skill(tmp_path)
    manifest = folder / "SKILL.md"
    before = _json([str(folder)], cache)
    info = manifest.stat()
    manifest.write_text(manifest.read_text().replace("pdf-tools", "pdf-TOOLS"))
    os.utime(manifest, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert manifest.stat().st_size == info.st_size
    fresh = _json([str(folder)], None)
    assert fresh != before
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh


@pytest.mark.parametrize("name", ["SKILL.md", "skill.md"])
def test_the_manifest_is_read_from_the_snapshot_the_key_covers(
    tmp_path: Path, cache: ResultCache, name: str
) -> None:
    # What a check stores must be the findings of the content its key was made of, even
    # when the manifest changes in between (and whichever of the two names it has).
    from skillkit_core.manifest.folder import SkillFolder

    folder = make_skill(tmp_path, "notes", {name: skill_md(name="notes")})
    made = cache.snapshot(str(folder), hosts=False)
    assert made is not None
    (folder / name).write_text(skill_md(name="changed-after"))
    parsed = SkillFolder(str(folder), snapshot=made[1]).parsed
    assert parsed.frontmatter["name"] == "notes"
    assert parsed.path == str(folder / name)


def test_a_rename_target_appearing_beside_the_folder_is_seen(
    tmp_path: Path, cache: ResultCache
) -> None:
    # name-folder-mismatch suggests renaming the folder only when nothing is in the way:
    # a question about a path outside the folder, asked again before a result is reused.
    folder = _skill(tmp_path)
    (folder / "SKILL.md").write_text(skill_md(name="pdf-reader"))
    before = _json([str(folder)], cache)
    (folder.parent / "pdf-reader").mkdir()
    fresh = _json([str(folder)], None)
    assert fresh != before
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh


@pytest.mark.parametrize("change", ["sibling file", "plugin manifest"])
def test_a_plugin_link_changing_outside_the_folder_is_seen(
    tmp_path: Path, cache: ResultCache, change: str
) -> None:
    # link-outside-skill asks whether the skill sits in a plugin and the target exists.
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text("{}\n")
    (plugin / "skills" / "other").mkdir(parents=True)
    (plugin / "skills" / "other" / "notes.md").write_text("# Notes\n")
    folder = _skill(plugin)  # plugin/skills/pdf-tools
    (folder / "SKILL.md").write_text(skill_md(body="See [notes](../other/notes.md).\n"))
    before = _json([str(folder)], cache)
    if change == "sibling file":
        (plugin / "skills" / "other" / "notes.md").unlink()
    else:
        (plugin / ".claude-plugin" / "plugin.json").unlink()
    fresh = _json([str(folder)], None)
    assert fresh != before
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh


def test_an_edited_plugin_instruction_file_is_seen(tmp_path: Path, cache: ResultCache) -> None:
    # unreferenced-file reads the plugin's GEMINI.md: its text is an answer asked again.
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "gemini-extension.json").write_text("{}\n")
    (plugin / "GEMINI.md").write_text("@./skills/pdf-tools/references/extra.md\n")
    folder = _skill(plugin)
    (folder / "references" / "extra.md").write_text("# Extra\n")
    before = _json([str(folder)], cache)
    assert "unreferenced-file" not in json.dumps(before)
    (plugin / "GEMINI.md").write_text("Nothing here.\n")
    fresh = _json([str(folder)], None)
    assert "unreferenced-file" in json.dumps(fresh)
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh


def test_findings_name_files_as_the_folder_was_given(
    tmp_path: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _skill(tmp_path)
    (folder / "SKILL.md").write_text(skill_md(name="PDF", body="See references/guide.md.\n"))
    absolute = _json([str(folder)], cache)
    monkeypatch.chdir(folder.parent)
    relative = _json(["pdf-tools"], cache)
    assert relative == _json(["pdf-tools"], None)
    assert {d["file"] for d in relative["diagnostics"]} == {"pdf-tools/SKILL.md"}
    assert {d["file"] for d in absolute["diagnostics"]} == {str(folder / "SKILL.md")}
    monkeypatch.chdir(folder)
    assert _json(["."], cache) == _json(["."], None)  # '.' takes the folder's real name


def test_configuration_applies_to_results_read_back(tmp_path: Path, cache: ResultCache) -> None:
    folder = _skill(tmp_path)
    (folder / "SKILL.md").write_text(skill_md(name="PDF-Tools"))
    everything = _json([str(folder)], cache)
    rules = {d["rule"] for d in everything["diagnostics"]}
    assert "name-format" in rules
    ignored = _json([str(folder)], cache, ignore=["name-format"])
    assert ignored == _json([str(folder)], None, ignore=["name-format"])
    assert "name-format" not in {d["rule"] for d in ignored["diagnostics"]}
    strict = _json([str(folder)], cache, strict=True)
    assert strict == _json([str(folder)], None, strict=True)
    assert _json([str(folder)], cache) == everything


def test_host_verdicts_are_kept_apart(tmp_path: Path, cache: ResultCache) -> None:
    folder = _skill(tmp_path)
    with_hosts = run_check([str(folder)], hosts=True, cache=cache).run.reports[0].hosts
    assert with_hosts
    assert run_check([str(folder)], hosts=False, cache=cache).run.reports[0].hosts == ()
    again = run_check([str(folder)], hosts=True, cache=cache).run.reports[0].hosts
    assert again == with_hosts


def test_other_code_does_not_read_the_results(
    tmp_path: Path, cache: ResultCache, counted: Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _skill(tmp_path)
    _json([str(folder)], cache)
    monkeypatch.setattr(result_cache, "FORMAT", result_cache.FORMAT + 1)
    _json([str(folder)], ResultCache(cache.directory))
    assert counted.calls == 2


def test_the_code_version_follows_every_module_and_pyyaml(tmp_path: Path) -> None:
    module = tmp_path / "pkg" / "mod.py"
    module.parent.mkdir()
    module.write_text("A = 1\n")
    before = result_cache._files(str(tmp_path / "pkg"))
    module.write_text("A = 22\n")
    assert result_cache._files(str(tmp_path / "pkg")) != before
    folder = result_cache._yaml_folder()
    assert folder is not None and Path(folder, "__init__.py").is_file()
    import yaml

    assert Path(folder).resolve() == Path(yaml.__file__).parent.resolve()


def test_a_damaged_cache_is_ignored_and_rewritten(
    tmp_path: Path, cache: ResultCache, counted: Counted
) -> None:
    folder = _skill(tmp_path)
    fresh = _json([str(folder)], cache)
    packs = [p for p in Path(cache.directory).rglob("*") if p.is_file()]
    assert len(packs) == 1
    packs[0].write_bytes(b"\x00garbage")
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh
    assert counted.calls == 2  # checked again once, then read back


def _replace_reports(cache: ResultCache, plain: tuple) -> Path:
    """Give every entry of the cache's one pack the report ``plain`` (sealed as a check
    seals); the pack's path."""
    (pack,) = [p for p in Path(cache.directory).rglob("*") if p.is_file()]
    entries = {
        name: (key, plain, answers, written)
        for name, (key, _, answers, written) in unseal(HEADER, pack.read_bytes()).items()
    }
    pack.write_bytes(seal(HEADER, entries))
    return pack


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_another_users_pack_is_not_read(
    tmp_path: Path, cache: ResultCache, counted: Counted
) -> None:
    folder = _skill(tmp_path)
    fresh = _json([str(folder)], cache)
    pack = _replace_reports(cache, ([PLANTED], [], 0))
    os.chown(pack, 12345, 12345)
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh
    assert counted.calls == 2  # checked again, not read back


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_a_cache_folder_another_user_could_change_is_neither_read_nor_written(
    tmp_path: Path, cache: ResultCache, counted: Counted
) -> None:
    # Found by a probe: with no home, the cache is <temp>/skillkit-<uid>, a name anyone
    # may take first; a link planted under the name of the file a save writes before it
    # renames made the save overwrite whatever the link named.
    folder = _skill(tmp_path)
    fresh = _json([str(folder)], cache)
    (pack,) = [p for p in Path(cache.directory).rglob("*") if p.is_file()]
    theirs = tmp_path / "theirs"
    pack_folder = theirs / pack.parent.name
    pack_folder.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file")
    (pack_folder / f"{pack.name}.{os.getpid()}.tmp").symlink_to(victim)
    _replace_reports(cache, ([PLANTED], [], 0))
    (pack_folder / pack.name).write_bytes(pack.read_bytes())
    for made in (theirs, pack_folder, pack_folder / pack.name):
        os.chown(made, 65534, 65534)
    theirs.chmod(0o777)
    assert _json([str(folder)], ResultCache(str(theirs))) == fresh  # the planted pack unread
    assert counted.calls == 2
    assert victim.read_text() == "the user's own file"
    assert sorted(p.name for p in pack_folder.iterdir()) == sorted(
        [pack.name, f"{pack.name}.{os.getpid()}.tmp"]
    )


def test_a_cache_folder_not_there_when_first_asked_is_not_read_in_that_run(
    tmp_path: Path, cache: ResultCache
) -> None:
    # Found by a probe: "missing" was taken as "fine", and the answer kept, so a folder
    # another user made visible during the check (it was one the user could not enter
    # at first) had its packs read.
    _json([str(_skill(tmp_path))], cache)
    (pack,) = [p for p in Path(cache.directory).rglob("*") if p.is_file()]
    later = ResultCache(str(tmp_path / "later"))
    assert later._read_pack(pack.name) == {}
    (tmp_path / "later" / pack.parent.name).mkdir(parents=True, mode=0o700)
    (tmp_path / "later").chmod(0o700)
    (tmp_path / "later" / pack.parent.name / pack.name).write_bytes(pack.read_bytes())
    assert later._read_pack(pack.name) == {}
    assert ResultCache(str(tmp_path / "later"))._read_pack(pack.name) != {}


def test_stale_packs_are_removed_only_inside_the_caches_own_folders(tmp_path: Path) -> None:
    # A link named like a folder of packs would have had the files it leads to removed.
    elsewhere = tmp_path / "docs" / "sub"
    elsewhere.mkdir(parents=True)
    old = time.time() - (result_cache.STALE_DAYS + 1) * 24 * 3600
    for name in ("notes.txt", "sub/more.txt"):
        (tmp_path / "docs" / name).write_text("kept")
        os.utime(tmp_path / "docs" / name, (old, old))
    directory = tmp_path / "cache"
    (directory / "results-own").mkdir(parents=True)
    (directory / "results-own" / "stale").write_text("old")
    os.utime(directory / "results-own" / "stale", (old, old))
    (directory / "results-link").symlink_to(tmp_path / "docs")
    result_cache._remove_stale(str(directory))
    assert (tmp_path / "docs" / "notes.txt").read_text() == "kept"
    assert (tmp_path / "docs" / "sub" / "more.txt").read_text() == "kept"
    assert not (directory / "results-own").exists()


def _damaged_packs(sealed: bytes) -> dict[str, bytes]:
    changed = bytearray(sealed)
    changed[-3] ^= 0x01  # one bit: marshal would read other findings
    return {
        "one bit changed": bytes(changed),
        # A list that says it holds two billion items: marshal would allocate for them.
        "a damaged length": HEADER + b"\0\0\0\0" + b"[" + (2**31 - 1).to_bytes(4, "little"),
        "unsealed": HEADER + marshal.dumps(unseal(HEADER, sealed)),
    }


def test_a_damaged_pack_is_checked_again(
    tmp_path: Path, cache: ResultCache, counted: Counted
) -> None:
    folder = _skill(tmp_path)
    fresh = _json([str(folder)], cache)
    (pack,) = [p for p in Path(cache.directory).rglob("*") if p.is_file()]
    good = pack.read_bytes()
    for label, content in _damaged_packs(good).items():
        pack.write_bytes(content)
        calls = counted.calls
        assert _json([str(folder)], ResultCache(cache.directory)) == fresh, label
        assert counted.calls == calls + 1, label


@pytest.mark.parametrize(
    "diagnostic",
    [
        ("r", "bogus", "m", None, None, None, None, []),
        ("r", "error", ["m"], None, None, None, None, []),
        ("r", "error", "m", None, None, ("a", "b", "c", "d"), None, []),
    ],
    ids=["unknown severity", "message not text", "range not numbers"],
)
def test_a_made_up_report_in_a_pack_is_checked_again(
    tmp_path: Path, cache: ResultCache, counted: Counted, diagnostic: tuple
) -> None:
    folder = _skill(tmp_path)
    fresh = _json([str(folder)], cache)
    _replace_reports(cache, ([diagnostic], [], 0))
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh
    assert counted.calls == 2


def test_a_save_that_cannot_replace_a_pack_leaves_nothing_behind(
    tmp_path: Path, cache: ResultCache
) -> None:
    folder = _skill(tmp_path)
    _json([str(folder)], cache)
    (pack,) = [p for p in Path(cache.directory).rglob("*") if p.is_file()]
    pack.unlink()
    pack.mkdir()  # a folder where the pack goes
    _json([str(folder)], ResultCache(cache.directory))
    assert [p.name for p in pack.parent.iterdir()] == [pack.name]


def test_an_unwritable_cache_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    folder = _skill(tmp_path)
    cache = ResultCache(str(blocked / "cache"))
    assert _json([str(folder)], cache) == _json([str(folder)], None)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() == 0, reason="root reads all")
def test_a_folder_with_something_unreadable_is_not_cached(
    tmp_path: Path, cache: ResultCache, counted: Counted
) -> None:
    folder = _skill(tmp_path)
    secret = folder / "private"
    secret.mkdir()
    secret.chmod(0)
    try:
        first = _json([str(folder)], cache)
        assert _json([str(folder)], cache) == first
        assert counted.calls == 2
    finally:
        secret.chmod(0o755)


def test_a_folder_that_cannot_be_listed_whole_is_not_cached(
    tmp_path: Path, cache: ResultCache, counted: Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a folder without read permission (which root, running this, could still read).
    folder = _skill(tmp_path)
    (folder / "private").mkdir()
    scandir = os.scandir

    def refusing(path: str) -> object:
        if str(path).endswith("private"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    first = _json([str(folder)], cache)
    assert "unreadable-path" in {d["rule"] for d in first["diagnostics"]}
    assert _json([str(folder)], cache) == first
    assert counted.calls == 2


def test_a_rule_that_failed_is_run_again(
    tmp_path: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillkit_core.lint.rules import manifest_name_format

    folder = _skill(tmp_path)
    fresh = _json([str(folder)], None)

    def failing(target: object) -> list[object]:
        raise RuntimeError("out of luck")

    from skillkit_core.lint import registry

    broken = manifest_name_format.RULE._replace(check=failing)
    rules = tuple(broken if rule.id == "name-format" else rule for rule in registry.MANIFEST_RULES)
    monkeypatch.setattr(registry, "MANIFEST_RULES", rules)
    failed = _json([str(folder)], cache)
    assert any("internal error in rule" in d["message"] for d in failed["diagnostics"])
    monkeypatch.undo()
    assert _json([str(folder)], ResultCache(cache.directory)) == fresh


def test_a_folder_whose_listing_is_cut_short_is_not_cached(
    tmp_path: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillkit_core.manifest import listing

    folder = _skill(tmp_path)
    monkeypatch.setattr(listing, "MAX_FILES", 2)
    assert cache.key(str(folder), False) is None
    monkeypatch.setattr(listing, "MAX_FILES", 5000)
    assert cache.key(str(folder), False) is not None


def test_a_fifo_in_the_folder_is_never_waited_on(tmp_path: Path, cache: ResultCache) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    folder = _skill(tmp_path)
    os.mkfifo(folder / "references" / "pipe.md")
    assert _json([str(folder)], cache) == _json([str(folder)], None)


def test_many_folders_shared_with_helpers_are_kept_and_read_back(
    tmp_path: Path, cache: ResultCache
) -> None:
    # Folders checked in forked processes hand their results to the caller, which saves.
    for index in range(40):
        name = f"skill-{index:02d}"
        make_skill(tmp_path / "many", name, {"SKILL.md": skill_md(name=name.upper())})
    root = str(tmp_path / "many")
    fresh = _json([root], None)
    assert _json([root], cache) == fresh
    again = ResultCache(cache.directory)
    for index in range(40):  # every folder's findings were kept, whoever checked it
        _slot, plain = again.find(str(tmp_path / "many" / f"skill-{index:02d}"), False)
        assert plain is not None
    assert _json([root], again) == fresh


CHECK_THEN_SAVE_AT_ONCE = r"""
import os, sys, time
from skillkit_core.lint.check_paths import run_check
from skillkit_core.lint.result_cache import ResultCache
directory, folder, go = sys.argv[1:]
cache = ResultCache(directory)
save = cache.save

def save_on_go():
    while not os.path.exists(go):
        time.sleep(0.001)
    save()

cache.save = save_on_go
run_check([folder], hosts=False, cache=cache)
"""


def test_checks_saving_at_once_keep_every_ones_results(tmp_path: Path) -> None:
    # Sibling folders share a pack: each check reads it, adds its folder and writes it.
    folders = [
        make_skill(
            tmp_path / "many", f"skill-{index}", {"SKILL.md": skill_md(name=f"skill-{index}")}
        )
        for index in range(8)
    ]
    directory, go = tmp_path / "cache", tmp_path / "go"
    directory.mkdir(mode=0o700)  # as an earlier check left it (one made now is not read)
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CHECK_THEN_SAVE_AT_ONCE, str(directory), str(folder), str(go)]
        )
        for folder in folders
    ]
    time.sleep(2.0)  # every check has run and waits to save
    go.touch()
    assert [process.wait(timeout=120) for process in processes] == [0] * 8
    kept = ResultCache(str(directory))
    assert [kept.find(str(folder), False)[1] is not None for folder in folders] == [True] * 8


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no ../shared/corpus here")
def test_the_corpus_read_back_equals_a_fresh_check(tmp_path: Path, cache: ResultCache) -> None:
    fresh = _json([str(CORPUS)], None)
    assert _json([str(CORPUS)], cache) == fresh
    assert _json([str(CORPUS)], ResultCache(cache.directory)) == fresh


def _command(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillkit_core", "check", *args, "--format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )


def test_the_command_keeps_results_in_the_users_cache_folder(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    home = tmp_path / "home-cache"
    env = {"XDG_CACHE_HOME": str(home), "SKILLKIT_CACHE_DIR": "", "SKILLKIT_NO_CACHE": ""}
    first = _command(str(folder), env=env)
    assert first.returncode == 0, first.stderr
    assert list((home / "skillkit" / "check").rglob("results-*"))
    second = _command(str(folder), env=env)
    assert second.stdout == first.stdout


@pytest.mark.parametrize(
    ("args", "env"),
    [(("--no-cache",), {}), ((), {"SKILLKIT_NO_CACHE": "1"})],
    ids=["--no-cache", "SKILLKIT_NO_CACHE"],
)
def test_the_cache_can_be_turned_off(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str]
) -> None:
    folder = _skill(tmp_path)
    directory = tmp_path / "cache"
    done = _command(str(folder), *args, env={"SKILLKIT_CACHE_DIR": str(directory), **env})
    assert done.returncode == 0, done.stderr
    # No findings kept; compiled patterns may be, as bytecode is (docs/guides/linting.md).
    kept = [path.name for path in directory.rglob("*") if path.is_file()]
    assert all(name.startswith("patterns-") for name in kept), kept


def test_a_check_read_back_imports_neither_the_rules_nor_yaml(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    env = {"SKILLKIT_CACHE_DIR": str(tmp_path / "cache"), "SKILLKIT_NO_CACHE": ""}
    assert _command(str(folder), env=env).returncode == 0
    program = (
        "import sys, runpy; sys.argv = ['skillkit', 'check', sys.argv[1], '--format', 'json'];"
        "import atexit; atexit.register(lambda: print(sorted(m for m in sys.modules "
        "if m == 'yaml' or m.startswith('skillkit_core.lint.rules')), file=sys.stderr));"
        "runpy.run_module('skillkit_core', run_name='__main__')"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(folder)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "[]"


def test_skillkit_cache_dir_keeps_results_in_its_check_folder(tmp_path: Path) -> None:
    # SKILLKIT_CACHE_DIR is skillkit's whole cache: wheels and bundles live there too.
    folder = _skill(tmp_path)
    env = {"SKILLKIT_CACHE_DIR": str(tmp_path / "cache"), "SKILLKIT_NO_CACHE": ""}
    assert _command(str(folder), env=env).returncode == 0
    assert [path.name for path in (tmp_path / "cache").iterdir()] == ["check"]
    assert list((tmp_path / "cache" / "check").glob("results-*"))


def test_the_command_says_once_why_results_are_not_kept(tmp_path: Path) -> None:
    # As pip does of a cache folder it cannot trust: silence would leave a user whose
    # ~/.cache is group-writable (umask 002) wondering why every check is a first one.
    folder = _skill(tmp_path)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache").chmod(0o777)
    env = {"SKILLKIT_CACHE_DIR": str(tmp_path / "cache"), "SKILLKIT_NO_CACHE": ""}
    done = _command(str(folder), env=env)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: results are not kept: ")
    assert "another user could change" in warnings[0]
    assert list((tmp_path / "cache").iterdir()) == []
    quiet = _command(str(folder), env={**env, "SKILLKIT_NO_CACHE": "1"})
    assert "warning" not in quiet.stderr
    # A cache that cannot be written for other reasons (a read-only home in a sandbox,
    # a file in the way) is kept quiet, as before.
    (tmp_path / "a-file").write_text("")
    blocked = _command(str(folder), env={**env, "SKILLKIT_CACHE_DIR": str(tmp_path / "a-file")})
    assert blocked.returncode == 0 and "warning" not in blocked.stderr, blocked.stderr

"""Compiled patterns kept between runs (``skillkit_core.pattern_cache``).

Each case runs in a fresh interpreter: opening the cache changes that process's ``re``
(its cache, and the recording of ``_sre.compile``), which the test process must keep as
it is.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillkit_core.pattern_cache import _HEADER as HEADER
from skillkit_core.pattern_cache import LIMIT, MAX_RECORDED, file_name
from skillkit_core.sealed import seal, unseal

ROOT = Path(__file__).parents[2]
# SKILL.md folders of many shapes (broken YAML, odd names, hidden folders, scripts).
SKILLS = ROOT / "tests" / "runtime" / "skills"

# Patterns of every shape the engine compiles differently: flags given and inline, named
# groups and back references, bytes, verbose, look-arounds, repeats, Unicode classes.
ASSORTED = r"""
import re
ASSORTED = [
    (r"(?P<word>\w+)\s+(?P=word)", 0),
    (r"^\s*#\s*(.*?)\s*$", re.MULTILINE),
    (r"(?i)select\b", 0),
    (r"colou?r", re.IGNORECASE),
    (r"a{2,5}?b*+c?", 0),
    (r"(?<=\$)\d+(?=\.)", 0),
    (r"[\u00e0-\u00ff]+|\N{EM DASH}", 0),
    (r"\d+ # digits", re.VERBOSE),
    (rb"\x00[\x80-\xff]{2}", 0),
    (r"(a)|(b)|(?P<c>c)", re.ASCII),
    (r".", re.DOTALL),
]
"""

FIRST_RUN = (
    ASSORTED
    + r"""
import sys
import time
from skillkit_core.pattern_cache import PatternCache
cache = PatternCache.open(sys.argv[1])
from skillkit_core.lint.check_paths import check_paths
check_paths([sys.argv[2]])
for text, flags in ASSORTED:
    re.compile(text, flags)
cache.save()
print(len(cache.kept))
"""
)

# A second run: every kept pattern must be in re's cache, equal (flags, groups and the
# engine's code: Pattern.__eq__ compares them) to what compiling it gives, and match alike.
SECOND_RUN = (
    ASSORTED
    + r"""
import json, re, sys
from re import _compiler
from skillkit_core.pattern_cache import PatternCache
cache = PatternCache.open(sys.argv[1])
checked, differ = 0, []
for (text, flags), _arguments in cache.kept.items():
    loaded = re._cache[type(text), text, flags]
    fresh = _compiler.compile(text, flags)
    sample = text[:40] if isinstance(text, str) else bytes(text[:40])
    same = (
        loaded == fresh
        and loaded.groupindex == fresh.groupindex
        and loaded.groups == fresh.groups
        and loaded.flags == fresh.flags
        and [m.span() for m in loaded.finditer(sample)]
        == [m.span() for m in fresh.finditer(sample)]
    )
    checked += 1
    if not same:
        differ.append(repr(text))
assorted = all(re.compile(t, f) is re._cache[type(t), t, f] for t, f in ASSORTED)
kept = all((t, f) in cache.kept for t, f in ASSORTED)
print(json.dumps({"checked": checked, "differ": differ, "assorted": assorted,
                  "kept": kept, "new": len(cache.new())}))
"""
)


def _python(code: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def _cache_file(folder: Path) -> Path:
    name = file_name()
    assert name is not None
    return folder / name


def test_kept_patterns_are_the_patterns_re_compiles(tmp_path: Path) -> None:
    first = _python(FIRST_RUN, str(tmp_path), str(SKILLS))
    assert first.returncode == 0, first.stderr
    assert int(first.stdout) > 50  # the rules' patterns and the assorted ones
    assert _cache_file(tmp_path).is_file()

    second = _python(SECOND_RUN, str(tmp_path))
    assert second.returncode == 0, second.stderr
    report = json.loads(second.stdout)
    assert report["checked"] > 50
    assert report["differ"] == []
    assert report["assorted"] and report["kept"]
    assert report["new"] == 0  # nothing compiled again


DAMAGED_RUN = (
    ASSORTED
    + r"""
import json, re, sys
from skillkit_core.pattern_cache import PatternCache
cache = PatternCache.open(sys.argv[1])
results = [
    [m.span() for m in re.compile(t, f).finditer("colour color aa b $12.5 select x")]
    if isinstance(t, str) else re.compile(t, f).pattern.hex()
    for t, f in ASSORTED
]
print(json.dumps({"opened": cache is not None, "kept": len(cache.kept), "results": results}))
"""
)


def _damaged_tables(good: dict) -> dict[str, bytes]:
    """Files a damaged or foreign cache could hold, each with the right name."""
    (text, flags), arguments = next(iter(good.items()))
    pattern, final_flags, code, groups, groupindex, indexgroup = arguments
    garbage_code = (pattern, final_flags, [999999] * len(code), groups, groupindex, indexgroup)
    short_code = (pattern, final_flags, code[:3], groups, groupindex, indexgroup)
    other_text = ("something else", *arguments[1:])
    sealed = seal(HEADER, good)
    changed = bytearray(sealed)
    changed[len(sealed) // 2] ^= 0x01  # one bit: marshal would read another table
    return {
        "empty": b"",
        "no header": marshal.dumps(good),
        "unsealed": HEADER + marshal.dumps(good),
        "truncated": sealed[:-7],
        "one bit changed": bytes(changed),
        # A list that says it holds two billion items: marshal would allocate for them.
        "a damaged length": HEADER + b"\0\0\0\0" + b"[" + (2**31 - 1).to_bytes(4, "little"),
        "random": HEADER + os.urandom(4096),
        # Sealed as a save seals, but not what a save writes.
        "not a dict": seal(HEADER, [1, 2, 3]),
        "bad keys": seal(HEADER, {1: 2, ("x",): (), ("x", "0"): ("x",)}),
        "bad arguments": seal(HEADER, {(text, flags): ("too", "few")}),
        "garbage code": seal(HEADER, {(text, flags): garbage_code}),
        "short code": seal(HEADER, {(text, flags): short_code}),
        "another pattern's key": seal(HEADER, {(text, flags): other_text}),
        "wrong types": seal(HEADER, {(text, flags): (text, "0", code, 0, [], [])}),
    }


def test_a_damaged_file_changes_nothing(tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    baseline = _python(DAMAGED_RUN, str(clean), PYTHONDONTWRITEBYTECODE="1")
    assert baseline.returncode == 0, baseline.stderr
    expected = json.loads(baseline.stdout)["results"]

    made = tmp_path / "made"
    first = _python(FIRST_RUN, str(made), str(SKILLS))
    assert first.returncode == 0, first.stderr
    good = unseal(HEADER, _cache_file(made).read_bytes())
    assorted_keys = [key for key in good if key[0] == r"(?P<word>\w+)\s+(?P=word)"]
    good = {assorted_keys[0]: good[assorted_keys[0]], **good}

    for label, content in _damaged_tables(good).items():
        folder = tmp_path / label.replace(" ", "-").replace("'", "")
        folder.mkdir()
        _cache_file(folder).write_bytes(content)
        run = _python(DAMAGED_RUN, str(folder))
        assert run.returncode == 0, (label, run.stderr)
        report = json.loads(run.stdout)
        assert report["opened"], label
        assert report["kept"] == 0, label  # no entry of these is taken
        assert report["results"] == expected, label


SAVE_RUN = r"""
import os, re, sys
from skillkit_core.pattern_cache import PatternCache
cache = PatternCache.open(sys.argv[1])
for index in range(int(sys.argv[2])):
    re.compile(f"pattern {index} x*")
cache.save()
print(len(cache.kept))
"""


def test_nothing_is_written_when_python_writes_no_bytecode(tmp_path: Path) -> None:
    run = _python(SAVE_RUN, str(tmp_path), "3", PYTHONDONTWRITEBYTECODE="1")
    assert run.returncode == 0, run.stderr
    assert not _cache_file(tmp_path).exists()


def test_a_run_with_nothing_new_does_not_write(tmp_path: Path) -> None:
    assert _python(SAVE_RUN, str(tmp_path), "3").stdout.strip() == "3"
    path = _cache_file(tmp_path)
    os.utime(path, (1_000_000, 1_000_000))
    assert _python(SAVE_RUN, str(tmp_path), "3").stdout.strip() == "3"
    assert path.stat().st_mtime == 1_000_000


def test_the_file_keeps_at_most_the_limit(tmp_path: Path) -> None:
    run = _python(SAVE_RUN, str(tmp_path), str(LIMIT + 50))
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) == LIMIT
    table = unseal(HEADER, _cache_file(tmp_path).read_bytes())
    assert len(table) == LIMIT
    # The fifty it had no room for are not new again: a save does not rewrite the file.
    path = _cache_file(tmp_path)
    os.utime(path, (1_000_000, 1_000_000))
    again = _python(SAVE_TWICE, str(tmp_path), str(LIMIT + 50))
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["wrote", "same"]


SAVE_TWICE = r"""
import os, re, sys
from skillkit_core.pattern_cache import PatternCache
cache = PatternCache.open(sys.argv[1])
for index in range(int(sys.argv[2])):
    re.compile(f"pattern {index} x*")
re.compile("one more")
cache.save()
print("wrote" if os.stat(cache.path).st_mtime != 1_000_000 else "same")
os.utime(cache.path, (1_000_000, 1_000_000))
cache.save()
print("wrote" if os.stat(cache.path).st_mtime != 1_000_000 else "same")
"""


RECORDS_RUN = r"""
import re, sys
from skillkit_core import pattern_cache
from skillkit_core.pattern_cache import PatternCache
cache = PatternCache.open(sys.argv[1])
for index in range(20_000):
    re.compile(f"made once {index}")
print(len(pattern_cache._recorded))
"""


def test_a_process_compiling_ever_new_patterns_keeps_few_alive(tmp_path: Path) -> None:
    # The language server's worker runs the author's code, which may compile a new
    # pattern for every document it sees.
    run = _python(RECORDS_RUN, str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) <= MAX_RECORDED + 1


def test_a_save_that_cannot_replace_the_file_leaves_nothing_behind(tmp_path: Path) -> None:
    _cache_file(tmp_path).mkdir(parents=True)  # a folder where the file goes
    for _ in range(2):
        run = _python(SAVE_RUN, str(tmp_path), "3")
        assert run.returncode == 0, run.stderr
    assert [path.name for path in tmp_path.iterdir()] == [_cache_file(tmp_path).name]


def test_an_unwritable_cache_folder_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    run = _python(SAVE_RUN, str(blocker / "patterns"), "3")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0" and "Traceback" not in run.stderr


def _check(folder: Path, cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment |= {"SKILLKIT_CACHE_DIR": str(cache), **env}
    return subprocess.run(
        [sys.executable, "-m", "skillkit_core", "check", str(folder), "--no-cache"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def test_skillkit_check_keeps_its_patterns_and_reports_alike(tmp_path: Path) -> None:
    folder = SKILLS
    without = _check(folder, tmp_path / "off", PYTHONDONTWRITEBYTECODE="1")
    assert not (tmp_path / "off").exists()
    first = _check(folder, tmp_path / "on")
    path = _cache_file(tmp_path / "on" / "check")
    assert path.is_file()
    second = _check(folder, tmp_path / "on")
    for run in (first, second):
        assert (run.returncode, run.stdout, run.stderr) == (
            without.returncode,
            without.stdout,
            without.stderr,
        )


def test_an_re_that_caches_otherwise_turns_the_cache_off() -> None:
    import re
    from types import SimpleNamespace

    from skillkit_core.pattern_cache import _keyed_as_expected

    assert _keyed_as_expected(re)
    # Another layout of re's cache (a key of another shape, or no dict at all): the
    # cache is not used, so nothing would be put where re never looks.
    other: dict = {}

    def compiling(text: str) -> object:
        other[("key", text)] = compiled = object()
        return compiled

    assert not _keyed_as_expected(SimpleNamespace(_cache=other, compile=compiling))
    assert not _keyed_as_expected(SimpleNamespace(_cache=None, compile=compiling))


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0, reason="needs root to chown")
def test_another_users_file_is_not_read(tmp_path: Path) -> None:
    assert _python(SAVE_RUN, str(tmp_path), "3").stdout.strip() == "3"
    opened = "import sys\nfrom skillkit_core.pattern_cache import PatternCache\n"
    opened += "print(len(PatternCache.open(sys.argv[1]).kept))"
    assert _python(opened, str(tmp_path)).stdout.strip() == "3"
    os.chown(_cache_file(tmp_path), 12345, 12345)
    run = _python(opened, str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0"  # its patterns would run in this process


def test_a_folder_another_user_could_change_is_neither_read_nor_written(tmp_path: Path) -> None:
    # A file planted there would be read (its patterns run here), and a link planted
    # where a save writes would be written through.
    assert _python(SAVE_RUN, str(tmp_path), "3").stdout.strip() == "3"
    kept = _cache_file(tmp_path).read_bytes()
    tmp_path.chmod(0o777)
    opened = "import sys\nfrom skillkit_core.pattern_cache import PatternCache\n"
    opened += "print(len(PatternCache.open(sys.argv[1]).kept))"
    run = _python(opened, str(tmp_path))
    assert (run.returncode, run.stdout.strip()) == (0, "0"), run.stderr
    run = _python(SAVE_RUN, str(tmp_path / "check"), "3")  # below it: not made
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert not (tmp_path / "check").exists()
    assert _cache_file(tmp_path).read_bytes() == kept


REOPEN_RUN = r"""
import os, sys
from skillkit_core import pattern_cache
from skillkit_core.pattern_cache import PatternCache
first = PatternCache.open(sys.argv[1])
reads = []
real = pattern_cache._read
pattern_cache._read = lambda path: reads.append(path) or real(path)
again = PatternCache.open(sys.argv[1], write=False)
print(again is first, again.write, reads == [])
"""


def test_opening_a_cache_again_gives_it_unread(tmp_path: Path) -> None:
    assert _python(SAVE_RUN, str(tmp_path), "3").stdout.strip() == "3"
    run = _python(REOPEN_RUN, str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "False", "True"]


SAVE_AT_ONCE = r"""
import os, re, sys, time
from skillkit_core.pattern_cache import PatternCache
folder, index, go = sys.argv[1:]
cache = PatternCache.open(folder)
re.compile(f"only-process-{index}-[0-9]+")
while not os.path.exists(go):
    time.sleep(0.001)
cache.save()
"""


def test_processes_saving_at_once_keep_every_ones_patterns(tmp_path: Path) -> None:
    folder, go = tmp_path / "cache", tmp_path / "go"
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", SAVE_AT_ONCE, str(folder), str(index), str(go)],
            env=environment,
        )
        for index in range(8)
    ]
    time.sleep(1.0)  # every process has opened the (empty) cache and waits
    go.touch()
    assert [process.wait(timeout=60) for process in processes] == [0] * 8
    kept = unseal(HEADER, _cache_file(folder).read_bytes())
    assert {(f"only-process-{index}-[0-9]+", 0) for index in range(8)} <= set(kept)

"""The bundle's code cache: the code that dataclasses and typing compile from generated
text on every start is compiled once per interpreter and reused by later calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillkit_core.build import boot
from skillkit_core.sealed import seal
from tests.build.conftest import agent_env
from tests.protocol.support import DEPLOY_CHECK

# What dataclasses 3.11 passes to exec for an __init__ (annotations evaluated eagerly).
INIT = "def __create_fn__(x):\n def __init__(self, y: x = 2):\n  self.y = y\n return __init__"


def _no_compile(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("compiled again")


def test_generated_code_is_compiled_once_and_reused_by_the_next_call(tmp_path: Path) -> None:
    path = str(tmp_path / "code.bin")
    first = boot.CodeCache(path)
    namespace: dict = {}
    first.exec(INIT, {}, namespace)
    first.compile("list[int]", "<string>", "eval")  # a ForwardRef's
    first.save()

    later = boot.CodeCache(path)
    later._compile = _no_compile  # type: ignore[method-assign]
    again: dict = {}
    later.exec(INIT, {}, again)
    init = again["__create_fn__"](int)
    # The boot module's own `from __future__ import annotations` does not leak in.
    assert init.__annotations__ == {"y": int}
    assert init.__defaults__ == (2,)
    assert not later.added
    assert (
        later.compile("list[int]", "<string>", "eval")
        is later.table[("list[int]", "<string>", "eval")]
    )


def test_an_unreadable_or_foreign_cache_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "code.bin"
    header = boot.CodeCache(str(path)).header
    sealed = bytearray(seal(header, {(INIT, "<string>", "exec"): compile("0", "", "eval")}))
    sealed[-2] ^= 0x01  # one bit of a code object: marshal would build another
    damaged = (
        bytes(sealed),
        # A list that says it holds two billion items: marshal would allocate for them.
        header + b"\0\0\0\0[" + (2**31 - 1).to_bytes(4, "little"),
    )
    for content in (b"", b"garbage", header + b"\xff\x00", *damaged):
        path.write_bytes(content)
        cache = boot.CodeCache(str(path))
        assert cache.table == {}
        namespace: dict = {}
        cache.exec(INIT, {}, namespace)
        assert namespace["__create_fn__"](str).__annotations__ == {"y": str}
    with pytest.raises(SyntaxError):
        cache.compile("1 +", "<string>", "eval")


def test_a_fifo_in_the_cache_files_place_is_never_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "code.bin"
    os.mkfifo(path)
    cache = boot.CodeCache(str(path))  # would wait for a writer with a plain open()
    assert cache.table == {}


INSTALLED = """
import dataclasses, sys, typing
sys.path.insert(0, {root!r})
from skillkit_core.build.boot import CodeCache
cache = CodeCache({path!r})
cache.install()

@dataclasses.dataclass(frozen=True, order=True)
class Point:
    x: int
    y: int = 0
    tags: list = dataclasses.field(default_factory=list)

p = Point(1)
assert (p.x, p.y, p.tags) == (1, 0, [])
assert p == Point(1, 0) and p < Point(2) and repr(p) == "Point(x=1, y=0, tags=[])"
try:
    p.x = 2
except dataclasses.FrozenInstanceError:
    pass
else:
    raise AssertionError("not frozen")
assert typing.get_type_hints(typing.NamedTuple("N", [("a", "int")])) == {{"a": int}}
try:
    typing.ForwardRef("1 +")
except SyntaxError:
    pass
else:
    raise AssertionError("no SyntaxError")
cache.save()
print(len(cache.table), cache.added)
"""


def test_dataclasses_and_forward_references_behave_the_same_through_the_cache(
    tmp_path: Path,
) -> None:
    root = str(Path(boot.__file__).parents[2])
    script = INSTALLED.format(root=root, path=str(tmp_path / "code.bin"))
    runs = [
        subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True)
        for _ in range(2)
    ]
    for done in runs:
        assert done.returncode == 0, done.stderr
    entries, added = runs[0].stdout.split()
    assert int(entries) > 0 and added == "True"
    assert runs[1].stdout.split() == [entries, "False"], "the second run compiled nothing"


def test_a_built_skill_keeps_its_code_cache_beside_the_unpacked_bundle(
    built_skills: dict[str, Path], tmp_path: Path
) -> None:
    run = built_skills[DEPLOY_CHECK] / "scripts" / "run"
    cache_dir = tmp_path / "cache"
    env = agent_env(cache_dir)
    python_tag = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; print(f'{sys.implementation.cache_tag}-{sys.hexversion:x}')",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()

    def start() -> dict:
        # Params other than {}: the skill is loaded (a plain start is served precomputed).
        argv = [str(run), "start", "--params", '{"env": "staging"}']
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    first = start()
    [cache_file] = (cache_dir / "bundles").glob(f"python-*/_skillkit_code.{python_tag}.bin")
    written = cache_file.stat().st_mtime_ns
    assert start() == first
    assert cache_file.stat().st_mtime_ns == written, "a warm call has nothing new to save"


def test_a_built_skill_keeps_its_compiled_patterns_beside_the_unpacked_bundle(
    built_skills: dict[str, Path], tmp_path: Path
) -> None:
    # skillkit_core.pattern_cache: the regular expressions a call compiles (pydantic's,
    # the standard library's, skillkit's) are built from kept engine code by later calls.
    from skillkit_core.pattern_cache import file_name

    run = built_skills[DEPLOY_CHECK] / "scripts" / "run"
    cache_dir = tmp_path / "cache"
    env = agent_env(cache_dir, SKILLKIT_WARM="0")
    argv = [str(run), "start", "--params", '{"env": "staging"}']  # the skill is loaded
    # The first call unpacks the bundle, which compiles a few patterns before the cache
    # is open (pathlib's import of urllib.parse): the second keeps those.
    calls = [subprocess.run(argv, capture_output=True, text=True, env=env) for _ in range(2)]
    [patterns] = (cache_dir / "bundles").glob(f"python-*/{file_name()}")
    written = patterns.stat().st_mtime_ns
    calls.append(subprocess.run(argv, capture_output=True, text=True, env=env))
    for call in calls:
        assert (call.returncode, call.stderr) == (0, ""), call.stdout + call.stderr
        assert json.loads(call.stdout) == json.loads(calls[0].stdout)
    assert patterns.stat().st_mtime_ns == written, "the third call compiled nothing new"


FOLDERS = """
import sys
sys.path.insert(0, {root!r})
from skillkit_core.build.boot import import_from
import_from([{first!r}, {second!r}], {archive!r})
import colorsys, email.message, mypkg, ns.a, ns.b
assert colorsys.BUNDLED and mypkg.VALUE == 1, "the bundle wins, as if first on sys.path"
assert ns.a.A == ns.b.B == "ns", "a namespace package spans the folders"
assert not email.message.__file__.startswith({first!r})
assert sys.path[-3:] == [{first!r}, {second!r}, {archive!r}]
"""


def test_bundle_folders_win_their_names_but_sit_behind_the_standard_library(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "python", tmp_path / "native"
    for folder, files in {
        first: {"colorsys.py": "BUNDLED = True", "mypkg/__init__.py": "VALUE = 1"},
        second: {"ns/a.py": "A = 'ns'", "ns/b.py": "B = 'ns'"},
    }.items():
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
    archive = str(tmp_path / "skill.pyz")
    script = FOLDERS.format(
        root=str(Path(boot.__file__).parents[2]),
        first=str(first),
        second=str(second),
        archive=archive,
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr

"""The pipeline around the bundle: options, the output folder's safety, atomic swaps,
copied content, SKILL.md overrides and the spec check of the result."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from skills_ref.validator import validate

from skillkit_core.build.pipeline import BuildOptions, build_skill
from skillkit_core.errors import BuildError
from tests.build.conftest import BUILD_CACHE, ENTRIES

SKILL = """
from pydantic import BaseModel
from skillkit_core import skill, terminal


class Done(BaseModel):
    ok: bool


demo = (
    skill(name="demo", entry="work", description={description!r}{options})
    .step("work", prompt=lambda ctx: ctx.refs.load("guide.md"), response=Done, next=terminal)
    .build()
)
"""


def _project(root: Path, *, description: str = "Demo skill.", options: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    entry = root / "demo.py"
    entry.write_text(textwrap.dedent(SKILL.format(description=description, options=options)))
    (root / "references").mkdir(exist_ok=True)
    (root / "references" / "guide.md").write_text("Follow the guide.\n")
    return entry


def _build(entry: Path, out: Path, **options):
    options.setdefault("single", True)
    return build_skill(BuildOptions(str(entry), out, cache_dir=BUILD_CACHE, **options))


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("demo-project")
    entry = _project(root / "src")
    return entry, _build(entry, root / "dist" / "demo")


def test_the_folder_has_every_part_and_passes_the_strict_validator(built_demo) -> None:
    _, result = built_demo
    names = [name for name, _ in result.files]
    assert names == [
        "SKILL.md",
        "bin/demo.pyz",
        "package.json",
        "references/guide.md",
        "scripts/run",
    ]
    assert validate(result.out_dir) == []
    assert (result.out_dir / "scripts" / "run").stat().st_mode & 0o111
    assert result.warnings == []
    assert not list(result.out_dir.parent.glob(".demo.build-*")), "scratch folders are removed"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "zip"}, "unknown mode 'zip'"),
        ({"protocol": "carrier-pigeon"}, "unknown protocol"),
        ({"single": True, "targets": ("linux-x64",)}, "leave out --targets"),
        ({"single": False, "mode": "binary", "targets": ("windows-x64",)}, "this machine only"),
        ({"single": False, "targets": ("beos-x86",)}, "unknown target 'beos-x86'"),
        ({"single": False, "pythons": ("2.7",)}, "unsupported Python version"),
    ],
)
def test_bad_options_are_refused_before_anything_is_written(
    tmp_path: Path, options: dict, message: str
) -> None:
    entry = _project(tmp_path / "src")
    with pytest.raises(BuildError, match=message):
        _build(entry, tmp_path / "out" / "demo", **options)
    assert not (tmp_path / "out").exists()


def test_an_unrelated_folder_is_never_replaced(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src")
    precious = tmp_path / "demo"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(BuildError, match="holds no earlier build"):
        _build(entry, precious)
    assert (precious / "thesis.tex").read_text() == "years of work"


@pytest.mark.parametrize(
    "files",
    [
        {"package.json": "{}", "src/index.js": "x", "notes.txt": "y"},  # a Node project
        {"SKILL.md": "---\nname: demo\n---\nHand-written.\n", "guide.md": "z"},  # a skill
        {"scripts/run": "#!/bin/sh\necho mine\n"},  # a run script of someone else's
    ],
    ids=["node-project", "hand-written-skill", "foreign-scripts-run"],
)
def test_a_folder_that_only_looks_like_a_build_is_never_replaced(
    tmp_path: Path, files: dict[str, str]
) -> None:
    entry = _project(tmp_path / "src")
    out = tmp_path / "demo"
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    with pytest.raises(BuildError, match="holds no earlier build"):
        _build(entry, out)
    assert {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} == set(files)


def test_an_earlier_build_or_a_lone_package_json_is_replaced(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src")
    out = tmp_path / "demo"
    out.mkdir()
    (out / "package.json").write_text('{"license": "MIT"}')
    _build(entry, out)
    assert json.loads((out / "package.json").read_text())["license"] == "MIT"
    (out / "stale.txt").write_text("left by hand")
    _build(entry, out)  # an earlier build: replaced whole
    assert not (out / "stale.txt").exists() and (out / "scripts" / "run").exists()


def test_a_link_on_the_way_to_the_output_does_not_hide_the_sources(tmp_path: Path) -> None:
    _build(_project(tmp_path / "src"), tmp_path / "demo")
    entry = _project(tmp_path / "demo")  # the source, kept in that earlier build
    (tmp_path / "here").symlink_to(tmp_path)
    with pytest.raises(BuildError, match="contains the skill's source"):
        _build(entry, tmp_path / "here" / "demo")
    assert entry.exists()


@pytest.mark.parametrize(
    ("out", "reason"),
    [
        ("afile/demo", "a file stands where a folder on the way must be"),
        ("afile/deeper/demo", "a file stands where a folder on the way must be"),
        ("/proc/demo", "No such file or directory"),
    ],
)
def test_an_output_folder_that_cannot_be_made_is_a_build_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str, reason: str
) -> None:
    entry = _project(tmp_path / "src")
    (tmp_path / "afile").write_text("a file")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BuildError, match=f"cannot build into .*: {reason}"):
        _build(entry, Path(out))
    assert (tmp_path / "afile").read_text() == "a file"


def test_an_earlier_build_reached_through_a_link_vouches_for_nothing(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src")
    _build(entry, tmp_path / "earlier")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "NOTES.md").write_text("mine")
    (mine / "scripts").symlink_to(tmp_path / "earlier" / "scripts")
    with pytest.raises(BuildError, match="holds no earlier build"):
        _build(entry, mine)
    (mine / "scripts").unlink()
    (mine / "scripts").mkdir()
    (mine / "scripts" / "run").symlink_to(tmp_path / "earlier" / "scripts" / "run")
    with pytest.raises(BuildError, match="holds no earlier build"):
        _build(entry, mine)
    assert (mine / "NOTES.md").read_text() == "mine"


@pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or not shutil.which("unshare"),
    reason="bind-mounts a folder in a mount namespace of its own: needs root",
)
def test_a_bind_mount_does_not_hide_that_the_output_holds_the_sources(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src")
    _build(entry, tmp_path / "project" / "skill")  # an earlier build, then the source in it
    source = _project(tmp_path / "project" / "skill")
    (tmp_path / "alias").mkdir()
    build = (
        "from pathlib import Path; import sys; from skillkit_core.build.pipeline import "
        "BuildOptions, build_skill; build_skill(BuildOptions(sys.argv[1], Path(sys.argv[2]), "
        "single=True))"
    )
    command = f'mount --bind {tmp_path / "project"} {tmp_path / "alias"} && exec "$0" "$@"'
    done = subprocess.run(
        [
            "unshare",
            "--mount",
            "sh",
            "-c",
            command,
            sys.executable,
            "-c",
            build,
            str(source),
            str(tmp_path / "alias" / "skill"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "SKILLKIT_CACHE_DIR": str(BUILD_CACHE)},
        timeout=120,
    )
    assert done.returncode == 1
    assert "contains the skill's source" in done.stderr
    assert source.exists()


def test_a_build_stopped_mid_swap_puts_the_previous_output_back(tmp_path: Path) -> None:
    from skillkit_core.build.isolated import _keep_previous

    out = tmp_path / "demo"
    scratch = tmp_path / ".demo.build-x1"
    (scratch / "previous").mkdir(parents=True)
    (scratch / "previous" / "SKILL.md").write_text("the previous build")
    _keep_previous(scratch, out)
    assert (out / "SKILL.md").read_text() == "the previous build"
    (scratch / "previous").mkdir()
    _keep_previous(scratch, out)  # an output in place is never replaced
    assert (out / "SKILL.md").read_text() == "the previous build"


def test_building_over_the_sources_is_refused(tmp_path: Path) -> None:
    _build(_project(tmp_path / "src"), tmp_path / "demo")
    entry = _project(tmp_path / "demo")  # the source, kept in an earlier build
    with pytest.raises(BuildError, match="contains the skill's source"):
        _build(entry, tmp_path / "demo")
    assert entry.exists()


def test_a_failed_build_leaves_the_previous_output_untouched(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src")
    out = tmp_path / "dist" / "demo"
    _build(entry, out)
    before = _snapshot(out)
    # Fails late: after bundling, while writing SKILL.md.
    _project(tmp_path / "src", options=", skill_md=lambda d: 1 / 0")
    with pytest.raises(BuildError, match="skill_md= raised ZeroDivisionError"):
        _build(entry, out)
    assert _snapshot(out) == before
    # Fails at the spec check: a hand-written SKILL.md without a description.
    _project(tmp_path / "src", options=", skill_md='---\\nname: demo\\n---\\nBody\\n'")
    with pytest.raises(BuildError, match="fails the Agent Skills checks"):
        _build(entry, out)
    assert _snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["demo"]


def test_a_definition_the_spec_would_refuse_is_stopped_with_the_option_to_fix(
    tmp_path: Path,
) -> None:
    entry = _project(tmp_path / "src", description="")
    with pytest.raises(BuildError, match="pass description= to skill"):
        _build(entry, tmp_path / "out" / "demo")
    long = "x" * 1020
    entry = _project(tmp_path / "src", description=long, options=", triggers=['alpha', 'beta']")
    with pytest.raises(BuildError, match="with triggers appended is 1046 characters"):
        _build(entry, tmp_path / "out" / "demo")


def test_extension_keys_are_kept_and_reported_with_the_consumers_that_refuse_them(
    tmp_path: Path,
) -> None:
    options = ", argument_hint='[target]', model='sonnet', user_invocable=False, version='1.2.0'"
    entry = _project(tmp_path / "src", options=options)
    result = _build(entry, tmp_path / "out" / "demo")
    text = (result.out_dir / "SKILL.md").read_text()
    assert 'argument-hint: "[target]"' in text and "user-invocable: false" in text
    assert 'metadata:\n  version: "1.2.0"' in text
    (warning,) = [w for w in result.warnings if "outside the Agent Skills spec" in w]
    assert "argument-hint, model, user-invocable" in warning
    assert "strict spec validator and claude.ai / API upload refuse" in warning
    assert "; Claude Code reads them" in warning
    assert "VS Code, Codex and Gemini CLI load the folder" in warning
    (problem,) = validate(result.out_dir)  # the warning tells the truth
    assert "Unexpected fields" in problem


def test_a_folder_not_named_after_the_skill_is_a_warning(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src")
    result = _build(entry, tmp_path / "out" / "some-other-name")
    (warning,) = [w for w in result.warnings if "name the output folder" in w]
    assert "name the output folder after the skill (-o …/demo)" in warning


def test_hosts_that_refuse_the_folder_for_its_name_are_not_blamed_on_extension_keys(
    tmp_path: Path,
) -> None:
    entry = _project(tmp_path / "src", options=", argument_hint='[target]'")
    result = _build(entry, tmp_path / "out" / "elsewhere")
    (warning,) = [w for w in result.warnings if "outside the Agent Skills spec" in w]
    assert "strict spec validator and claude.ai / API upload refuse the folder" in warning
    assert "VS Code" not in warning  # it refuses the folder for its name, not the key
    assert "; Codex and Gemini CLI load the folder and ignore them." in warning


def test_skill_md_overrides_replace_the_body_or_the_whole_file(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src", options=", skill_md='# Mine\\n\\nCall scripts/run.'")
    text = (_build(entry, tmp_path / "a" / "demo").out_dir / "SKILL.md").read_text()
    assert text.startswith("---\nname: demo\n")
    assert text.endswith("---\n\n# Mine\n\nCall scripts/run.\n")
    own = "---\\nname: {d.name}\\ndescription: Own.\\n---\\n\\nOwn body.\\n"
    options = f", skill_md=lambda d: f'{own}'"
    entry = _project(tmp_path / "src", options=options)
    text = (_build(entry, tmp_path / "b" / "demo").out_dir / "SKILL.md").read_text()
    assert text == "---\nname: demo\ndescription: Own.\n---\n\nOwn body.\n"


def test_package_json_merges_with_the_previous_build(tmp_path: Path) -> None:
    entry = _project(tmp_path / "src", options=", version='2.0.0', package={'license': 'MIT'}")
    out = tmp_path / "dist" / "demo"
    out.mkdir(parents=True)
    (out / "package.json").write_text(json.dumps({"name": "x", "private": True, "license": "0BSD"}))
    data = json.loads((_build(entry, out).out_dir / "package.json").read_text())
    assert data["name"] == "demo" and data["version"] == "2.0.0"
    assert data["private"] is True and data["license"] == "MIT"


COMPOSITE = """
import sys
sys.path.insert(0, {other!r})
from sub import sub
from skillkit_core import skill

demo = (
    skill(name="demo", entry="route", description="Demo.")
    .step("route", prompt="Route.", next="subskill:sub")
    .subskill("sub", sub)
    .build()
)
"""


def test_references_of_sub_skills_come_along_but_clashes_are_refused(tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "references").mkdir(parents=True)
    (other / "references" / "sub-notes.md").write_text("Notes of the sub-skill.\n")
    (other / "sub.py").write_text(
        "from skillkit_core import skill, terminal\n"
        "sub = skill(name='sub', entry='s', description='Sub.')"
        ".step('s', prompt='Go.', next=terminal).build()\n"
    )
    entry = _project(tmp_path / "src")
    entry.write_text(COMPOSITE.format(other=str(other)))
    result = _build(entry, tmp_path / "out" / "demo")
    names = [name for name, _ in result.files if name.startswith("references/")]
    assert names == ["references/guide.md", "references/sub-notes.md"]
    (other / "references" / "guide.md").write_text("A different guide.\n")
    with pytest.raises(BuildError, match="exists in two places with different content"):
        _build(entry, tmp_path / "out" / "demo")


def test_every_example_and_fixture_passes_the_strict_validator(
    built_skills: dict[str, Path],
) -> None:
    assert set(built_skills) == set(ENTRIES)
    for folder in built_skills.values():
        assert validate(folder) == [], folder.name


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_a_build_cache_another_user_could_change_is_not_used(tmp_path: Path) -> None:
    # Found by a probe: a .pyc planted in the bytecode cache (named by its source's hash,
    # checked against nothing) went into the built skill, and ran as whoever ran it.
    from skillkit_core.build.pipeline import BuildResult, _build_cache
    from skillkit_core.build.wheels import private_cache

    mine = private_cache(tmp_path / "mine")
    assert sorted(p.name for p in mine.iterdir()) == ["bytecode", "wheels", "zips"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in (mine, *mine.iterdir())} == {0o700}
    theirs = tmp_path / "theirs"
    (theirs / "bytecode").mkdir(parents=True)
    os.chown(theirs, 65534, 65534)
    result = BuildResult(tmp_path / "out", "skill", "pyz", ())
    with _build_cache(theirs, result) as cache:
        assert cache != theirs and cache.is_dir() and not list(cache.iterdir())
    assert not cache.exists()
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith("built without the build cache: ")
    assert "another user could change" in result.warnings[0]
    assert sorted(p.name for p in theirs.iterdir()) == ["bytecode"]
    with _build_cache(tmp_path / "mine", result) as cache:
        assert cache == mine


def test_references_are_shipped_as_check_reads_them_and_the_rest_is_named(
    tmp_path: Path,
) -> None:
    # A link to a folder inside was dropped unsaid, and so were a link to /etc, a FIFO and
    # dangling links, while a link to a file outside stopped the build.
    from skillkit_core.build.pipeline import _material

    base = tmp_path / "references"
    (base / "sub").mkdir(parents=True)
    (base / "a.md").write_text("a")
    (base / "sub" / "b.md").write_text("b")
    (base / "alias").symlink_to("sub")
    (base / "sub" / "up").symlink_to("..")  # back to a folder the walk is in: not walked
    (base / ".hidden.md").write_text("h")
    names = sorted(name for name, _ in _material(base))
    assert names == ["a.md", "alias/b.md", "sub/b.md"]
    for bad, made, said in [
        ("etc", lambda p: p.symlink_to("/etc"), "links outside"),
        ("pipe.md", os.mkfifo, r"cannot be shipped: not a regular file \(a FIFO\)"),
        ("dangling.md", lambda p: p.symlink_to("nowhere.md"), "leads nowhere"),
        ("loop.md", lambda p: p.symlink_to("loop.md"), "too many levels of symbolic links"),
    ]:
        made(base / "sub" / bad)
        with pytest.raises(BuildError, match=said):
            list(_material(base))
        (base / "sub" / bad).unlink()


def _immutable(path: Path, on: bool) -> bool:
    """chattr ±i on ``path``: whether the file system and the user allow it."""
    if shutil.which("chattr") is None:
        return False
    done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    return done.returncode == 0


def test_an_output_that_cannot_be_replaced_is_a_build_error_and_stays(tmp_path: Path) -> None:
    # An immutable output folder was "error[internal]: PermissionError"; an immutable
    # file in the previous build left the scratch folder behind without a word.
    entry = _project(tmp_path / "src")
    out = tmp_path / "dist" / "demo"
    _build(entry, out)
    before = _snapshot(out)
    if not _immutable(out, True):
        pytest.skip("chattr +i is not available here")
    try:
        with pytest.raises(BuildError, match=f"cannot replace {out}: .*; it is left as it was"):
            _build(entry, out)
    finally:
        _immutable(out, False)
    assert _snapshot(out) == before
    _immutable(out / "SKILL.md", True)
    try:
        result = _build(entry, out)
    finally:
        for left in tmp_path.glob("dist/.demo.build-*/previous/SKILL.md"):
            _immutable(left, False)
        _immutable(out / "SKILL.md", False)
    assert any("could not be removed whole; remove it by hand" in w for w in result.warnings)

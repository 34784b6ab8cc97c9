"""package.json fields, the merge with an existing file, and resolve_version."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from skillkit_core import reference, skill, terminal
from skillkit_core.build.package_json import (
    default_files,
    merged_package_json,
    resolve_version,
    skill_version,
)
from skillkit_core.errors import BuildError


def _skill(**options):
    return (
        skill(name="demo", entry="a", description="Demo skill.", **options)
        .step("a", prompt="Do it.", next=terminal)
        .build()
    )


def test_fields_come_from_the_skill_and_its_package_config() -> None:
    definition = _skill(
        version="1.2.3",
        package={"name": "@org/skill-demo", "license": "MIT", "keywords": ["a"], "version": "9"},
    )
    data = json.loads(merged_package_json(definition, "1.2.3", default_files(True, False), None))
    assert data == {
        "name": "@org/skill-demo",
        "version": "1.2.3",
        "description": "Demo skill.",
        "files": ["SKILL.md", "scripts/", "bin/", "references/"],
        "license": "MIT",
        "keywords": ["a"],
    }


def test_package_files_override_the_default_list() -> None:
    definition = _skill(package={"files": ["SKILL.md", "scripts/**", "bin/**"]})
    data = json.loads(merged_package_json(definition, "0.0.0", default_files(False, False), None))
    assert data["files"] == ["SKILL.md", "scripts/**", "bin/**"]


def test_existing_fields_stay_config_overrides_and_name_version_are_authoritative(
    tmp_path: Path,
) -> None:
    existing = tmp_path / "package.json"
    existing.write_text(
        json.dumps(
            {
                "name": "old-name",
                "version": "0.0.1",
                "private": True,
                "license": "Apache-2.0",
                "scripts": {"x": "y"},
            }
        )
    )
    definition = _skill(version="2.0.0", package={"license": "MIT"})
    data = json.loads(merged_package_json(definition, "2.0.0", ["SKILL.md"], existing))
    assert data["name"] == "demo" and data["version"] == "2.0.0"
    assert data["private"] is True and data["scripts"] == {"x": "y"}
    assert data["license"] == "MIT"
    assert list(data)[:5] == ["name", "version", "private", "license", "scripts"]


def test_a_broken_existing_package_json_is_an_error_not_overwritten(tmp_path: Path) -> None:
    existing = tmp_path / "package.json"
    existing.write_text("{not json")
    with pytest.raises(BuildError, match=r"package\.json"):
        merged_package_json(_skill(), "0.0.0", [], existing)


def test_values_json_cannot_hold_are_reported() -> None:
    with pytest.raises(BuildError, match="package="):
        merged_package_json(_skill(package={"when": object()}), "0.0.0", [], None)


def test_resolve_version_takes_the_nearest_pyproject_or_package_json(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "3.1.4"\n')
    inner = tmp_path / "pkg" / "skills"
    inner.mkdir(parents=True)
    assert resolve_version(inner / "skill.py") == "3.1.4"
    (tmp_path / "pkg" / "package.json").write_text('{"version": "5.0.0"}')
    assert resolve_version(inner / "skill.py") == "5.0.0"
    (inner / "pyproject.toml").write_text("[tool.other]\nx = 1\n")  # no [project]: skipped
    assert resolve_version(inner / "skill.py") == "5.0.0"


def test_resolve_version_errors_are_precise(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndynamic = ["version"]\n')
    with pytest.raises(BuildError, match="dynamic version"):
        resolve_version(tmp_path)
    lonely = tmp_path.parent / f"{tmp_path.name}-lonely"
    lonely.mkdir()
    above = [p for p in lonely.parents if (p / "pyproject.toml").exists()]
    above += [p for p in lonely.parents if (p / "package.json").exists()]
    if above:
        pytest.skip(f"a project file above the temp folder: {above[0]}")
    with pytest.raises(BuildError, match=r"no pyproject\.toml"):
        resolve_version(lonely)


def test_skill_version_order_explicit_resolved_default(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"version": "7.7.7"}')
    entry = tmp_path / "skill.py"
    assert skill_version(_skill(version="1.0.0"), entry) == "1.0.0"
    assert skill_version(_skill(resolve_version=True), entry) == "7.7.7"
    assert skill_version(_skill(), entry) == "0.0.0"
    handbook = (
        reference(name="book", description="d", resolve_version=True)
        .topic("t", label="T", content="x")
        .build()
    )
    assert skill_version(handbook, entry) == "7.7.7"


@pytest.mark.parametrize(
    ("given", "written"),
    [
        ("1.2.3", "1.2.3"),
        ("1.2.3-beta.1+build.5", "1.2.3-beta.1+build.5"),
        ("1.0", "1.0.0"),
        ("2024.1", "2024.1.0"),
        ("1.2rc1", "1.2.0-rc.1"),
        ("1.0a2", "1.0.0-alpha.2"),
        ("1.0.dev3", "1.0.0-dev.3"),
        ("1.0.post1", "1.0.0+post.1"),
        ("1.0+local.7", "1.0.0+local.7"),
    ],
)
def test_python_versions_are_written_in_their_semver_form(given: str, written: str) -> None:
    # npm takes a package.json only with a semantic version: `npm publish` refused
    # "1.2rc1", which resolve_version read from a pyproject.toml.
    from skillkit_core.build.package_json import npm_fields

    version, warnings = npm_fields(_skill(version=given), given)
    assert version == written
    assert bool(warnings) is (given != written)


@pytest.mark.parametrize("given", ["latest", "1!2.0", "1.2.3.4"])
def test_a_version_npm_cannot_carry_is_a_build_error(given: str) -> None:
    from skillkit_core.build.package_json import npm_fields

    with pytest.raises(BuildError, match="neither a semantic version"):
        npm_fields(_skill(version=given), given)


def test_npm_names_the_skill_cannot_have_warn_and_package_names_fail() -> None:
    from skillkit_core.build.package_json import npm_fields

    def named(name: str, **options):
        return (
            skill(name=name, entry="a", description="Demo.", **options)
            .step("a", prompt="Do it.", next=terminal)
            .build()
        )

    for name in ("café", "http"):  # the spec allows them; npm does not
        _, warnings = npm_fields(named(name), "1.0.0")
        assert any(f"npm refuses the package name '{name}'" in w for w in warnings), warnings
    assert npm_fields(named("pdf-tools"), "1.0.0") == ("1.0.0", [])
    assert npm_fields(named("pdf", package={"name": "@org/pdf-tools"}), "1.0.0")[1] == []
    # Reserved and core names are of the whole name: a scope makes them npm's to take.
    assert npm_fields(named("http", package={"name": "@myorg/http"}), "1.0.0")[1] == []
    with pytest.raises(BuildError, match="package= name 'Bad Name!' is no name npm takes"):
        npm_fields(named("pdf", package={"name": "Bad Name!"}), "1.0.0")


def _npm_pack(folder: Path, scratch: Path) -> dict:
    """What ``npm pack`` would put in the package of ``folder`` (npm itself, the oracle)."""
    done = subprocess.run(
        ["npm", "pack", "--dry-run", "--json"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "npm_config_cache": str(scratch / "npm-cache")},
    )
    assert done.returncode == 0, done.stderr
    (packed,) = json.loads(done.stdout)
    return packed


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_packs_a_skill_built_with_a_python_version(tmp_path: Path) -> None:
    from tests.build.conftest import build

    entry = tmp_path / "rc_skill.py"
    entry.write_text(
        "from skillkit_core import skill, terminal\n"
        "rc = (skill(name='rc-skill', entry='a', description='Demo. Use for tests.',"
        " version='1.2rc1').step('a', prompt='Do it.', next=terminal).build())\n"
    )
    result = build(str(entry), tmp_path / "out")
    assert any("1.2.0-rc.1, the semantic form of 1.2rc1" in w for w in result.warnings)
    packed = _npm_pack(result.out_dir, tmp_path)
    assert (packed["name"], packed["version"]) == ("rc-skill", "1.2.0-rc.1")
    shipped = {file["path"] for file in packed["files"]}
    assert {"SKILL.md", "scripts/run", "package.json"} <= shipped


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_what_npm_would_leave_out_is_a_warning(tmp_path: Path) -> None:
    # A reference named notes.orig was linked from SKILL.md but never packed; a files list
    # in package= that left out bin/ shipped a skill that could not run.
    from tests.build.conftest import build

    (tmp_path / "references").mkdir()
    (tmp_path / "references" / "notes.orig").write_text("Old notes.\n")
    (tmp_path / "references" / "notes.md").write_text("Notes.\n")
    entry = tmp_path / "left_out.py"
    entry.write_text(
        "from skillkit_core import skill, terminal\n"
        "left = (skill(name='left-out', entry='a', description='Demo. Use for tests.',"
        " version='1.0.0', package={'files': ['SKILL.md', 'scripts/', 'references/'],"
        " 'bin': {'left-out': 'nope.js'}})"
        ".step('a', prompt='Read references/notes.orig first.', next=terminal).build())\n"
    )
    result = build(str(entry), tmp_path / "out")
    warned = "\n".join(result.warnings)
    assert "files leaves out bin" in warned
    assert "names nope.js, which the built skill does not have" in warned
    assert "npm leaves references/notes.orig out of every package" in warned
    shipped = {file["path"] for file in _npm_pack(result.out_dir, tmp_path)["files"]}
    assert "references/notes.md" in shipped
    assert "references/notes.orig" not in shipped  # npm itself, the oracle

"""What goes into a bundle: the skill's own modules (also those imported lazily), the
runtime part of skillkit, and the distributions they need; not the CLI, the linter, the
editor support or anything imported only for type checkers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from skillkit_core.build.closure import compute_closure, marker_environment
from skillkit_core.errors import BuildError

MAIN = """
from typing import TYPE_CHECKING

from pydantic import BaseModel

import helper
from pkg import sub
from skillkit_core import skill, terminal, render

if TYPE_CHECKING:
    import typecheckonly


class Answer(BaseModel):
    text: str


def _later(ctx):
    import lazyhelper
    import not_installed_anywhere_xyz
    return lazyhelper.TEXT


demo = (
    skill(name="demo", entry="a", description="Demo.")
    .step("a", prompt=_later, response=Answer, next=terminal)
    .build()
)
"""


def _project(root: Path) -> Path:
    files = {
        "main.py": MAIN,
        "helper.py": "VALUE = 1\n",
        "lazyhelper.py": "from pkg.sub import NAME\nTEXT = NAME\n",
        "typecheckonly.py": "import yaml\n",
        "pkg/__init__.py": "",
        "pkg/sub.py": "NAME = 'x'\n",
        "unused.py": "import rich\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root / "main.py"


@pytest.fixture(scope="module")
def closure(tmp_path_factory: pytest.TempPathFactory):
    entry = _project(tmp_path_factory.mktemp("project"))
    return compute_closure(str(entry), [marker_environment("linux-x64", "3.11")])


def test_the_entry_module_and_attribute_are_found(closure) -> None:
    assert (closure.entry_module, closure.entry_attr) == ("main", "demo")


def test_the_skills_own_modules_come_along_even_when_imported_inside_functions(closure) -> None:
    own = {name for name in closure.modules if not name.startswith("skillkit_core")}
    assert own == {"main", "helper", "pkg", "pkg.sub", "lazyhelper"}
    assert closure.modules["pkg"].arcname == "pkg/__init__.py"


# The light part of the Agent Skills runtime that scripts/run mcp serves its own folder
# with (the MCP skills extension): records, URIs and contained reads, no SKILL.md parsing.
SKILLS_EXTENSION_MODULES = {
    "skillkit_core.runtime",
    "skillkit_core.runtime.records",
    "skillkit_core.runtime.skills_extension",
    "skillkit_core.runtime.reading",
    "skillkit_core.runtime.paths",
    "skillkit_core.runtime.errors",
}


def test_only_skillkits_runtime_is_bundled(closure) -> None:
    names = set(closure.modules)
    assert "skillkit_core.protocol" in names
    assert len([n for n in names if n.startswith("skillkit_core.protocol.")]) > 5
    assert {"skillkit_core.engine", "skillkit_core.render", "skillkit_core.loader"} <= names
    assert "skillkit_core.pattern_cache" in names  # the pyz's start-up imports it
    for heavy in ("lint", "build", "cli", "source", "simulate", "runtime", "manifest"):
        package = f"skillkit_core.{heavy}"
        found = {n for n in names if n == package or n.startswith(package + ".")}
        if heavy == "runtime":
            found -= SKILLS_EXTENSION_MODULES
        assert not found, heavy


def test_distributions_follow_imports_and_requirements_but_skip_dev_tools(closure) -> None:
    dists = {name.lower() for name in closure.distributions}
    assert {"pydantic", "pydantic-core", "typing-extensions", "annotated-types"} <= dists
    for dev_only in ("typer", "rich", "pygls", "lsprotocol", "tree-sitter", "pyyaml"):
        assert dev_only not in dists


def test_a_module_that_is_not_installed_is_a_warning_naming_the_importer(closure) -> None:
    (warning,) = [w for w in closure.warnings if "not_installed_anywhere_xyz" in w]
    assert "main.py" in warning and "not installed" in warning


def test_markers_decide_per_target_platform() -> None:
    windows = marker_environment("windows-x64", "3.12")
    assert windows["sys_platform"] == "win32" and windows["platform_machine"] == "AMD64"
    assert marker_environment("darwin-arm64", "3.13")["platform_system"] == "Darwin"


def test_an_entry_that_fails_to_load_is_a_build_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('nope')\n")
    with pytest.raises(BuildError, match="nope"):
        compute_closure(str(broken), [])

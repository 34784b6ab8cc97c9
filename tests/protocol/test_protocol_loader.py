"""Loading an ENTRY (``file.py`` or ``file.py:attr``) for ``skillkit run``."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from skillkit_core.loader import EntryError, load_entry, split_entry
from tests.protocol.support import DEPLOY_CHECK, HANDBOOK, HELP_DESK, TRIAGE, run

SKILL = """
from skillkit_core import skill, terminal

{name} = (
    skill(name="{skill}", entry="a")
    .step("a", prompt="A.", next=terminal)
    .build()
)
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_split_entry() -> None:
    assert split_entry("a/b.py:my_skill") == ("a/b.py", "my_skill")
    assert split_entry("a/b.py") == ("a/b.py", None)
    assert split_entry("C:/x/b.py") == ("C:/x/b.py", None)  # not an identifier after ':'


def test_composite_entry_is_the_one_definition_no_other_uses() -> None:
    assert load_entry(HELP_DESK).name == "help-desk"  # doctor and setup are its sub-skills
    assert load_entry(TRIAGE).name == "triage"
    assert load_entry(HANDBOOK).name == "handbook"


def test_attr_picks_any_definition() -> None:
    assert load_entry(f"{HELP_DESK}:doctor").name == "doctor"


def test_neighbour_modules_are_importable(tmp_path: Path) -> None:
    _write(tmp_path, "shared_steps.py", 'PROMPT = "From a neighbour."\n')
    _write(
        tmp_path,
        "uses_neighbour.py",
        """
        from shared_steps import PROMPT
        from skillkit_core import skill, terminal

        s = skill(name="n", entry="a").step("a", prompt=PROMPT, next=terminal).build()
        """,
    )
    call = run(str(tmp_path / "uses_neighbour.py"))
    assert "From a neighbour." in call.json["prompt"]


def test_several_definitions_are_listed(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "two.py",
        SKILL.format(name="one", skill="first") + SKILL.format(name="two", skill="second"),
    )
    with pytest.raises(EntryError, match=r"several skills \(one \('first'\), two \('second'\)\)"):
        load_entry(str(path))
    assert load_entry(f"{path}:two").name == "second"


def test_no_definition_hints_at_build(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "unbuilt.py",
        """
        from skillkit_core import skill, terminal

        draft = skill(name="d", entry="a").step("a", prompt="A.", next=terminal)
        """,
    )
    with pytest.raises(EntryError, match=r"no built skill.*draft still need .build\(\)"):
        load_entry(str(path))
    with pytest.raises(EntryError, match=r"draft is a SkillBuilder.*call .build\(\)"):
        load_entry(f"{path}:draft")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x = 1\ndef broken(:\n", r"SyntaxError: .*line 2"),
        ("import json\nimport not_a_module_anywhere\n", r"ModuleNotFoundError: .*line 2"),
        ("import sys\nsys.exit(3)\n", r"called exit\(3\)"),
    ],
)
def test_import_failures_name_the_error_and_line(tmp_path: Path, source: str, message: str) -> None:
    path = _write(tmp_path, "bad.py", source)
    with pytest.raises(EntryError, match=message):
        load_entry(str(path))


def test_missing_files_and_attrs(tmp_path: Path) -> None:
    with pytest.raises(EntryError, match="no such file"):
        load_entry(str(tmp_path / "nope.py"))
    with pytest.raises(EntryError, match="it is a folder"):
        load_entry(str(tmp_path))
    with pytest.raises(EntryError, match=r"no attribute 'ghost' \(definitions: .*help_desk"):
        load_entry(f"{HELP_DESK}:ghost")


def test_an_entry_that_is_no_file_says_what_it_is(tmp_path: Path) -> None:
    (tmp_path / "loop.py").symlink_to("loop.py")
    (tmp_path / "dangling.py").symlink_to("gone.py")
    os.mkfifo(tmp_path / "pipe.py")
    expected = {
        "loop.py": "too many levels of symbolic links",
        "dangling.py": "a symbolic link to a file that does not exist",
        "pipe.py": "not a regular file",
    }
    for name, reason in expected.items():
        with pytest.raises(EntryError) as caught:
            load_entry(str(tmp_path / name))
        assert caught.value.message == f"cannot load {tmp_path / name}: {reason}"


def test_a_file_named_like_a_stdlib_module_does_not_shadow_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "json.py", SKILL.format(name="s", skill="shadow"))
    import json

    assert load_entry(str(path)).name == "shadow"
    import sys

    assert sys.modules["json"] is json


def test_load_errors_are_json_errors_on_the_command_line(tmp_path: Path) -> None:
    for via in ("module", "skillkit"):
        call = run(str(tmp_path / "missing.py"), "start", via=via)
        assert call.code == 1 and call.json["error"] == "entry", call.describe()
    missing = run("", via="skillkit")
    assert missing.code == 1 and missing.json["error"] in ("entry", "usage")


def test_skillkit_run_through_typer_passes_every_argument_through() -> None:
    from typer.testing import CliRunner

    from skillkit_core.cli import app

    args = ["advance", "--step", "choose", "--output", '{"target": "staging"}', "--history", "[]"]
    result = CliRunner().invoke(app, ["run", DEPLOY_CHECK, *args])
    assert result.exit_code == 0, result.output
    assert '"step":"verify"' in result.output

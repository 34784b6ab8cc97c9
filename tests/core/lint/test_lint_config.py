"""[tool.skillkit] configuration and its merge with command-line flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillkit_core.errors import UsageError
from skillkit_core.lint.config import (
    ConfigError,
    LintConfig,
    find_pyproject,
    load_config,
    merged,
    validate_patterns,
)
from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.registry import RULES

IDS = [rule.id for rule in RULES]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_select_ignore_strict_and_severity(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[tool.skillkit]\nselect = ["name-*", "broken-link"]\nignore = ["name-folder-mismatch"]\n'
        'strict = true\nbuild = "ignored: another command\'s key"\n'
        '[tool.skillkit.severity]\nbroken-link = "warning"\n',
    )
    config = load_config(path)
    assert config.select == ("name-*", "broken-link")
    assert config.strict is True
    assert config.enabled("name-format")
    assert not config.enabled("name-folder-mismatch")
    assert not config.enabled("unknown-key")
    found = config.apply([LintDiagnostic("broken-link", "error", "m")])
    assert [d.severity for d in found] == ["warning"]


def test_missing_table_is_an_empty_config(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "[project]\nname = 'x'\n")) == LintConfig(
        source=str(tmp_path / "pyproject.toml")
    )
    assert load_config(None) == LintConfig()


@pytest.mark.parametrize(
    "text",
    [
        "[tool.skillkit]\nselect = 3\n",
        "[tool.skillkit]\nstrict = 'yes'\n",
        "[tool.skillkit.severity]\nbroken-link = 'fatal'\n",
        "[tool.skillkit\n",
    ],
)
def test_malformed_config_is_a_config_error(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    assert caught.value.code == "config"
    assert "pyproject.toml" in caught.value.message


def test_flags_replace_select_and_add_ignores() -> None:
    base = LintConfig(select=("name-*",), ignore=("unknown-key",))
    result = merged(base, select=["broken-link,body-*"], ignore=["name-format"], strict=True)
    assert result.select == ("broken-link", "body-*")
    assert result.ignore == ("unknown-key", "name-format")
    assert result.strict is True
    assert merged(base).select == ("name-*",)


def test_unknown_rule_ids_and_empty_patterns_are_usage_errors() -> None:
    validate_patterns(LintConfig(select=("name-*",), ignore=("broken-link",)), IDS)
    with pytest.raises(UsageError, match="unknown lint rule 'brokn-link'"):
        validate_patterns(LintConfig(ignore=("brokn-link",)), IDS)
    with pytest.raises(UsageError, match="matches no rule"):
        validate_patterns(LintConfig(select=("zzz-*",)), IDS)


def test_find_pyproject_walks_up(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_pyproject(nested) == str(path)


@pytest.mark.parametrize(
    "text",
    [
        '[tool.skillkit]\nselect = ["name-*"]\n',
        '[ tool . "skillkit" ]\nselect = ["name-*"]\n',
        "[tool]\nskillkit = { select = ['name-*'] }\n",
        "[tool]\nskillkit.select = ['name-*']\n",
        "tool.skillkit.select = ['name-*']\n",
        "tool = { skillkit = { select = ['name-*'] } }\n",
        '["tool".skillkit]\nselect = ["name-*"]\n',
        '[tool."\\u0073killkit"]\nselect = ["name-*"]\n',
    ],
)
def test_every_toml_spelling_of_the_table_is_read(tmp_path: Path, text: str) -> None:
    assert load_config(write(tmp_path, text)).select == ("name-*",)


def test_a_pyproject_that_cannot_configure_skillkit_is_not_parsed(tmp_path: Path) -> None:
    # Other tools' tables are theirs to validate: a broken one is not our usage error.
    text = "[project]\nname = 'skillkit-helper'\n[tool.ruff]\nline-length = \n"
    assert load_config(write(tmp_path, text)) == LintConfig(source=str(tmp_path / "pyproject.toml"))


def test_a_file_given_with_config_is_parsed_whatever_it_holds(tmp_path: Path) -> None:
    # `--config notes.txt` (no TOML at all) was skipped unread, as a found pyproject.toml
    # without our table is, so a typo in the flag went unnoticed.
    text = "[project]\nname = 'skillkit-helper'\n[tool.ruff]\nline-length = \n"
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config(write(tmp_path, text), given=True)

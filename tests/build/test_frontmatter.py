"""Frontmatter YAML: every value reads back unchanged in a plain YAML parser and in the
strict spec validator's StrictYAML, whatever characters a description holds."""

from __future__ import annotations

import pytest
import strictyaml
import yaml
from skills_ref.parser import parse_frontmatter

from skillkit_core.build import frontmatter

TRICKY = [
    "Deploy: check the release, then ship.",
    "Fix CI # not a comment",
    "He said \"ship it\" and 'left'",
    "line one\nline two\n\nparagraph",
    "--- looks like a delimiter --- and ----- more",
    "- starts like a list item",
    "@at *star &amp !tag %percent {brace} [bracket] |pipe >fold",
    "yes",
    "null",
    "1.10",
    "tab\tand backslash \\ and unicode é ✓",
    "separators \u2028 and \u2029 and \x85 next line",
    "   leading and trailing spaces   ",
    "",
]


def _parse(text: str) -> dict:
    inner = text.split("---\n", 2)[1]
    return yaml.safe_load(inner)


@pytest.mark.parametrize("value", TRICKY)
def test_quoted_values_read_back_unchanged_by_yaml_and_strictyaml(value: str) -> None:
    block = frontmatter.render([("name", "demo"), ("description", value)])
    assert _parse(block)["description"] == value
    strict = strictyaml.load(block.split("---\n", 2)[1]).data
    assert strict["description"] == value


@pytest.mark.parametrize("value", TRICKY[:7])
def test_the_spec_validators_splitter_sees_one_frontmatter_block(value: str) -> None:
    text = frontmatter.render([("name", "demo"), ("description", value)]) + "\n# Body\n"
    metadata, body = parse_frontmatter(text)
    assert metadata["description"] == value
    assert body == "# Body"


def test_names_are_bare_unless_yaml_would_read_them_as_something_else() -> None:
    assert frontmatter.scalar("deploy-check") == "deploy-check"
    for name in ("yes", "null", "123", "1-2", "true", "on"):
        rendered = frontmatter.scalar(name)
        assert rendered.startswith('"'), name
        assert yaml.safe_load(f"k: {rendered}")["k"] == name


def test_lists_mappings_and_booleans_are_block_style() -> None:
    block = frontmatter.render(
        [
            ("name", "demo"),
            ("metadata", {"version": "1.10"}),
            ("allowed-tools", ["Bash(scripts/run *)", "Read"]),
            ("user-invocable", False),
        ]
    )
    assert "[" not in block and "{" not in block
    assert block.splitlines() == [
        "---",
        "name: demo",
        "metadata:",
        '  version: "1.10"',
        "allowed-tools:",
        '  - "Bash(scripts/run *)"',
        '  - "Read"',
        "user-invocable: false",
        "---",
    ]
    data = _parse(block)
    assert data["metadata"] == {"version": "1.10"}
    assert data["user-invocable"] is False

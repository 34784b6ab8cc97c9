"""The generated SKILL.md: frontmatter fields, the body an agent reads (golden files under
tests/golden/build/, re-bless with SKILLKIT_BLESS=1), and the parameters table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
import yaml
from pydantic import BaseModel, Field

from skillkit_core import branch, reference, skill, terminal
from skillkit_core.build.skill_md import (
    example_params,
    frontmatter_fields,
    parameter_rows,
    render_skill_md,
)
from skillkit_core.hosts import Handshake
from skillkit_core.loader import load_entry
from skillkit_core.protocol.mcp_tools import SkillTools
from tests.build.conftest import ENTRIES
from tests.golden_util import assert_golden
from tests.protocol.support import DEPLOY_CHECK, HELP_DESK, REPO_DOCTOR


def _frontmatter(text: str) -> dict:
    return yaml.safe_load(text.split("---\n", 2)[1])


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: Path(e).stem)
def test_skill_md_of_every_example_matches_its_golden_file(entry: str) -> None:
    definition = load_entry(entry)
    references = sorted(p.name for p in (Path(entry).parent / "references").glob("*.md"))
    text = render_skill_md(definition, version="0.0.0", references=references).text
    assert_golden(f"build/{definition.name}.SKILL.md", text)


def test_stateless_protocol_changes_only_the_command_line_instructions() -> None:
    definition = load_entry(DEPLOY_CHECK)
    session = render_skill_md(definition, version="0.0.0").text
    stateless = render_skill_md(definition, version="0.0.0", protocol="stateless").text
    assert_golden("build/deploy-check.stateless.SKILL.md", stateless)
    assert "--session new" in session and "--session new" not in stateless
    assert "--history 'HISTORY'" in stateless
    assert (
        session.split("### From the command line")[0]
        == stateless.split("### From the command line")[0]
    )


def test_the_body_says_how_to_call_it_mcp_first_with_an_absolute_path() -> None:
    text = render_skill_md(load_entry(REPO_DOCTOR), version="0.0.0").text
    assert text.index("MCP tools (preferred)") < text.index("From the command line")
    assert "absolute path" in text and "/repo-doctor/scripts/run" in text
    assert 'Example: `--params \'{"repo_path": "."}\'`' in text
    assert "`remediate`: answer with `fixed`, `notes`, at most 3 times" in text


def test_frontmatter_has_the_defaults_and_the_author_fields() -> None:
    definition = (
        skill(
            name="demo",
            entry="a",
            description="Ship it: safely # really",
            triggers=["deploy", "release"],
            allowed_tools="Bash(git diff *) Read",
            license="MIT",
            compatibility="Needs git",
            argument_hint="[env]",
            arguments=["env", "region"],
            paths="src/**",
            context="fork",
            agent="general-purpose",
            model="sonnet",
            effort="high",
            disable_model_invocation=True,
            user_invocable=False,
        )
        .step("a", prompt="x", next=terminal)
        .build()
    )
    text = render_skill_md(definition, version="1.4.0").text
    data = _frontmatter(text)
    assert list(data) == [
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "argument-hint",
        "arguments",
        "paths",
        "context",
        "agent",
        "model",
        "effort",
        "disable-model-invocation",
        "user-invocable",
    ]
    assert data["description"] == "Ship it: safely # really. Use it for: deploy, release."
    assert data["metadata"] == {"version": "1.4.0"}
    assert data["allowed-tools"] == [
        "Bash(git diff *)",
        "Read",
        "Bash(scripts/run *)",
        "Bash(*/demo/scripts/run *)",
        "mcp__demo__start",
        "mcp__demo__advance",
    ]
    assert data["arguments"] == ["env", "region"] and data["paths"] == ["src/**"]
    assert data["disable-model-invocation"] is True and data["user-invocable"] is False
    assert render_skill_md(definition, version="1.4.0").extension_keys == (
        "argument-hint",
        "arguments",
        "paths",
        "context",
        "agent",
        "model",
        "effort",
        "disable-model-invocation",
        "user-invocable",
    )


def test_version_zero_is_left_out_and_composites_and_references_get_their_tools() -> None:
    fields = dict(frontmatter_fields(load_entry(HELP_DESK), "0.0.0"))
    assert "metadata" not in fields
    assert fields["allowed-tools"] == [
        "Bash(scripts/run *)",
        "Bash(*/help-desk/scripts/run *)",
        "Read",
        "mcp__help-desk__start",
        "mcp__help-desk__advance",
        "mcp__help-desk__topics",
        "mcp__help-desk__topic",
    ]
    book = reference(name="book", description="Terms.").topic("t", label="T", content="x").build()
    tools = dict(frontmatter_fields(book, "0.0.0"))["allowed-tools"]
    assert tools == [
        "Bash(scripts/run *)",
        "Bash(*/book/scripts/run *)",
        "Read",
        "mcp__book__topics",
        "mcp__book__topic",
    ]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: Path(e).stem)
def test_allowed_mcp_tools_are_the_tools_the_mcp_server_lists(entry: str) -> None:
    definition = load_entry(entry)
    served = [spec.name for spec in SkillTools(definition, Handshake()).specs()]
    tools = dict(frontmatter_fields(definition, "0.0.0"))["allowed-tools"]
    prefix = f"mcp__{definition.name}__"
    assert [t.removeprefix(prefix) for t in tools if t.startswith(prefix)] == served


class Address(BaseModel):
    city: str


class Params(BaseModel):
    target: Literal["staging", "production"] = Field(description="Where | to ship")
    replicas: int
    tags: list[str] = []
    address: Address | None = None
    dry_run: bool = False


def test_parameter_table_and_example_cover_the_schema() -> None:
    schema = Params.model_json_schema()
    rows = {row[0]: row[1:] for row in parameter_rows(schema)}
    assert rows["`target`"] == ('"staging" or "production"', "yes", "—", "Where | to ship")
    assert rows["`replicas`"] == ("integer", "yes", "—", "")
    assert rows["`tags`"] == ("list of string", "no", "[]", "")
    assert rows["`address`"] == ("Address or null", "no", "null", "")
    assert example_params(schema) == {
        "target": "staging",
        "replicas": 1,
        "tags": [],
        "address": {"city": "city"},
        "dry_run": False,
    }
    demo = (
        skill(name="demo", entry="a", description="d", params=Params)
        .step("a", prompt="x", next=terminal)
        .build()
    )
    text = render_skill_md(demo, version="0.0.0").text
    assert '| `target` | "staging" or "production" | yes | — | Where \\| to ship |' in text
    example = text.split("Example: `--params '")[1].split("'`")[0]
    assert Params.model_validate(json.loads(example))


def test_the_steps_map_is_complete_for_loops_routes_and_composites() -> None:
    """The map used to leave out the loop guard's target, say only 'the workflow decides'
    for a route built with an f-string, offer `RUN SUB start` without the params the
    sub-skill requires, and not say what a topic's final result holds."""
    retry = (
        skill(name="retry", entry="run-tests", description="Run and fix tests.")
        .step(
            "run-tests",
            prompt="Run the tests.",
            next=[branch("fix-tests", when=lambda ctx: True), branch("review-code")],
            max_visits=3,
            on_max_visits="review-code",
        )
        .step("fix-tests", prompt="Fix them.", next="run-tests")
        .step("review-code", prompt="Review.", next=terminal)
        .build()
    )
    text = render_skill_md(retry, version="0.0.0").text
    assert (
        "`run-tests`: needs no structured answer (submit `{}`), at most 3 times; then "
        "`fix-tests` or `review-code`; once the visit limit is reached, `review-code`."
    ) in text
    desk = render_skill_md(load_entry(HELP_DESK), version="0.0.0").text
    assert (
        "then the sub-skill `doctor`, the sub-skill `setup`, the topic `auth` or the topic "
        "`rate-limits`, as the workflow decides."
    ) in desk
    assert 'Start it directly: `RUN setup start --params \'{"project": "project"}\'`.' in desk
    assert 'finishes with `finalOutput` `{"topic": NAME, "content": TEXT}`' in desk

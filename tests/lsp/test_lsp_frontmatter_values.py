"""Completion of SKILL.md frontmatter values: closed values of a key, model aliases and
tool names from the host inventory, each with who reads the key."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from skillkit_core.hosts import HOSTS
from skillkit_core.manifest.spec import EFFORT_LEVELS, MODEL_ALIASES
from tests.lsp.support import LINKED_SKILLS, open_file, position, replace_all, span_text

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")
READERS = (
    "Refused by strict spec validator, claude.ai / API upload.\n\nRead by Claude Code.\n\n"
    "Ignored by VS Code, Codex, Gemini CLI."
)


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def _complete(
    client: LanguageClient, relative: str, text: str, needle: str, shift: int, version: int
) -> list[types.CompletionItem]:
    path = client.root / relative
    uri = open_file(client, path, path.read_text(encoding="utf-8"))
    replace_all(client, uri, text, version)
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=_doc(uri), position=position(text, needle, client.encoding, shift=shift)
        )
    )
    return list(found.items) if found is not None else []


def _text(client: LanguageClient, relative: str) -> str:
    return (client.root / relative).read_text(encoding="utf-8")


async def test_effort_values_replace_the_written_one(client: LanguageClient) -> None:
    text = _text(client, "pdf-tools/SKILL.md")
    items = await _complete(client, "pdf-tools/SKILL.md", text, "effort: ", 8, 2)
    assert [item.label for item in items] == list(EFFORT_LEVELS)
    medium = items[1]
    assert span_text(text, medium.text_edit.range, client.encoding) == "medium"
    assert medium.detail == "effort value · read by Claude Code"
    assert medium.documentation.value == f"`effort: medium`\n\n{READERS}"


@pytest.mark.parametrize(
    ("relative", "line", "labels"),
    [
        ("report-writer/SKILL.md", "context: ", ["fork"]),
        ("release-notes/SKILL.md", "disable-model-invocation: ", ["true", "false"]),
        ("release-notes/SKILL.md", "user-invocable: ", ["true", "false"]),
        ("report-writer/SKILL.md", "shell: ", ["bash", "powershell"]),
        ("report-writer/SKILL.md", "model: ", list(MODEL_ALIASES)),
    ],
)
async def test_closed_values_of_each_key(
    client: LanguageClient, relative: str, line: str, labels: list[str]
) -> None:
    saved = _text(client, relative)
    text = saved if line in saved else saved.replace("---\n\n", f"{line}\n---\n\n", 1)
    items = await _complete(client, relative, text, line, len(line), 5)
    assert [item.label for item in items] == labels
    assert all(item.detail.endswith("read by Claude Code") for item in items)


def _host_tools() -> dict[str, list[str]]:
    having: dict[str, list[str]] = {}
    for host in HOSTS:
        for tool in host.tools:
            having.setdefault(tool, []).append(host.name)
    return having


async def test_allowed_tools_offer_the_host_inventory(client: LanguageClient) -> None:
    saved = _text(client, "pdf-tools/SKILL.md")
    text = saved.replace("Bash(python:*)", "Bash(python:*) Gr")
    items = await _complete(client, "pdf-tools/SKILL.md", text, "Bash(python:*) Gr", 17, 7)
    having = _host_tools()
    assert {item.label for item in items} == set(having) - {"Read", "Bash"}
    claude_code = next(host for host in HOSTS if host.id == "claude-code")
    # The selected host's tools first (claude-code by default).
    first = [item.label for item in items[: len(claude_code.tools) - 2]]
    assert set(first) <= set(claude_code.tools)
    grep = next(item for item in items if item.label == "Grep")
    assert span_text(text, grep.text_edit.range, client.encoding) == "Gr"
    assert grep.detail == "tool of " + ", ".join(having["Grep"])
    assert "`allowed-tools`: Read by strict spec validator" not in grep.documentation.value
    assert "`allowed-tools`: Accepted by strict spec validator" in grep.documentation.value


async def test_tools_in_a_yaml_list_and_none_inside_a_rule(client: LanguageClient) -> None:
    saved = _text(client, "pdf-tools/SKILL.md")
    listed = saved.replace("allowed-tools: Read Bash(python:*)", "allowed-tools:\n  - Read\n  - ")
    items = await _complete(client, "pdf-tools/SKILL.md", listed, "  - \n", 4, 9)
    assert "Grep" in {item.label for item in items} and items[0].text_edit.new_text
    inside = saved.replace("Bash(python:*)", "Bash(pyt")
    assert await _complete(client, "pdf-tools/SKILL.md", inside, "Bash(pyt", 8, 11) == []


async def test_key_items_say_who_reads_the_key(client: LanguageClient) -> None:
    saved = _text(client, "report-writer/SKILL.md")
    text = saved.replace("context: fork\n", "context: fork\nef\n")
    items = await _complete(client, "report-writer/SKILL.md", text, "\nef\n", 3, 13)
    effort = next(item for item in items if item.label == "effort")
    assert effort.documentation.value.endswith(READERS)


async def test_a_value_right_after_the_colon_gets_its_space(client: LanguageClient) -> None:
    saved = _text(client, "report-writer/SKILL.md")
    text = saved.replace("context: fork\n", "context: fork\nmodel:\n")
    items = await _complete(client, "report-writer/SKILL.md", text, "model:\n", 6, 17)
    assert [item.text_edit.new_text for item in items] == [f" {v}" for v in MODEL_ALIASES]
    tools = saved.replace("context: fork\n", "context: fork\nallowed-tools:\n")
    items = await _complete(client, "report-writer/SKILL.md", tools, "allowed-tools:\n", 14, 19)
    assert items and all(item.text_edit.new_text.startswith(" ") for item in items)


async def _hover(client: LanguageClient, relative: str, needle: str, shift: int) -> str | None:
    path = client.root / relative
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=_doc(uri), position=position(text, needle, client.encoding, shift=shift)
        )
    )
    return found.contents.value if found is not None else None


async def test_hover_on_values_and_tool_entries(client: LanguageClient) -> None:
    effort = await _hover(client, "pdf-tools/SKILL.md", "effort: medium", 10)
    assert effort == (
        "**`effort: medium`** is one of `low`, `medium`, `high`, `xhigh`, `max`.\n\n" + READERS
    )
    flag = await _hover(client, "release-notes/SKILL.md", "invocation: true", 13)
    assert flag is not None and flag.startswith("**`disable-model-invocation: true`** is one of")
    having = ", ".join(host.name for host in HOSTS if "Bash" in host.evidence)
    bash = await _hover(client, "pdf-tools/SKILL.md", "Bash(python:*)", 6)
    assert bash == f"**`Bash(python:*)`** · tool `Bash`\n\nHosts with this tool: {having}."


async def test_a_key_completed_before_a_written_key_replaces_it(client: LanguageClient) -> None:
    # At the start of a key line the item was inserted in front of the key written there:
    # `effort: context: fork`, which is no YAML.
    from tests.lsp.support import apply_text_edits

    saved = _text(client, "report-writer/SKILL.md")
    text = saved.replace("context: fork\n", "context: fork\nmodel: opus\n")
    items = await _complete(client, "report-writer/SKILL.md", text, "\nmodel: opus", 1, 23)
    effort = next(item for item in items if item.label == "effort")
    edited = apply_text_edits(text, [effort.text_edit], client.encoding)
    assert "\neffort: opus\n" in edited and "model" not in edited.split("---")[1]


async def test_codex_and_gemini_cli_read_only_the_keys_their_loaders_take(
    client: LanguageClient,
) -> None:
    # Codex deserialises name, description and metadata (core-skills loader.rs), Gemini CLI
    # takes name and description (skillLoader.ts): the items said Codex read license too.
    saved = _text(client, "report-writer/SKILL.md")
    text = saved.replace("context: fork\n", "context: fork\nlic\n")
    items = await _complete(client, "report-writer/SKILL.md", text, "\nlic\n", 3, 13)
    license_key = next(item for item in items if item.label == "license")
    assert license_key.documentation.value.endswith(
        "Read by Claude Code, VS Code.\n\nIgnored by Codex, Gemini CLI."
    )


@pytest.mark.parametrize("quote", ['"', "'"])
async def test_a_tool_completed_in_a_quoted_value_keeps_its_quotes(
    client: LanguageClient, quote: str
) -> None:
    # The replaced range took the closing quote: `allowed-tools: "Read Grep` no longer
    # parsed (skills-ref and check: frontmatter-invalid-yaml).
    saved = _text(client, "pdf-tools/SKILL.md")
    for written, needle, shift in (
        (f"{quote}Read Gr{quote}", f"Read Gr{quote}", 7),
        (f"{quote}Gr Read{quote}", f"{quote}Gr Read", 3),
    ):
        text = saved.replace("allowed-tools: Read Bash(python:*)", f"allowed-tools: {written}")
        items = await _complete(client, "pdf-tools/SKILL.md", text, needle, shift, 30 + shift)
        grep = next(item for item in items if item.label == "Grep")
        assert span_text(text, grep.text_edit.range, client.encoding) == "Gr"

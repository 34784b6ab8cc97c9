"""Facts of the Agent Skills format and of the hosts that extend it: limits, keys, names.

One place for the numbers and key sets every SKILL.md rule and host verdict uses.
"""

from __future__ import annotations

import re
import unicodedata

NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
BODY_LINES_MAX = 500
BODY_TOKENS_MAX = 5000
# Rough characters per token for English prose and code; good enough for a warning.
CHARS_PER_TOKEN = 4
# Claude Code lists "description - when_to_use" cut to 1,535 characters and "…" beyond
# this (2.1.332's bundled source; the skillListingMaxDescChars setting changes it).
LISTING_CHARS_MAX = 1536
# Claude Code's budget for the whole skill listing, in characters: 1% of the context
# window, 8,000 when the window is not known (code.claude.com/docs/en/skills, "Skill
# descriptions are cut short"; SLASH_COMMAND_TOOL_CHAR_BUDGET overrides it).
CLAUDE_CODE_LISTING_BUDGET = 8_000
# Codex shows the model a description (made one line) cut to this many characters, "..."
# included (openai/codex codex-rs/core-skills/src/model_visible.rs: it refused longer
# ones until 2026). It lists every skill as a line "- name: description (file:
# rN/folder/SKILL.md)" within a budget of UTF-8 bytes, 8% of the model's context window
# (2% of its tokens at 4 bytes each), shortening descriptions, then leaving skills out:
# 21,760 bytes for a 272,000-token window, what it assumes for a model it does not know
# (its default model's larger window gives 40,000). Measured with codex-cli 0.171.0,
# `codex debug prompt-input` (-c model_context_window=N), 2026-11-29.
CODEX_DESCRIPTION_SHOWN = 1024
CODEX_LISTING_BUDGET = 21_760

SPEC_KEYS = frozenset(
    {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
)
REQUIRED_KEYS = ("name", "description")

# Frontmatter keys Claude Code understands beyond the specification.
CLAUDE_CODE_KEYS = frozenset(
    {
        "when_to_use",
        "argument-hint",
        "arguments",
        "disable-model-invocation",
        "user-invocable",
        "disallowed-tools",
        "model",
        "effort",
        "context",
        "agent",
        "hooks",
        "paths",
        "shell",
        # Read by Claude Code 2.1.332's skill loader (its bundled source), not documented.
        "background",
        "fallback",
        "disallowedTools",
    }
)
# Keys other hosts read (VS Code's prompt files and older Claude Code versions).
OTHER_HOST_KEYS = frozenset({"version", "mode"})
KNOWN_KEYS = SPEC_KEYS | CLAUDE_CODE_KEYS | OTHER_HOST_KEYS

EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
CONTEXT_VALUES = ("fork",)
SHELL_VALUES = ("bash", "powershell")
# Model aliases Claude Code accepts where a model is named (`/model`, `--model`, a skill's
# or agent's `model:`); a full model name works too. Read in Claude Code's model
# configuration page (https://docs.claude.com/en/docs/claude-code/model-config: default,
# sonnet, opus, haiku, sonnet[1m], opusplan) and its sub-agents page (inherit: the
# model of the conversation).
MODEL_ALIASES = ("sonnet", "opus", "haiku", "inherit", "opusplan", "sonnet[1m]", "default")

# Words claude.ai / the API refuse in a skill name.
RESERVED_NAME_WORDS = ("anthropic", "claude")
ASCII_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
XML_TAG = re.compile(r"<[A-Za-z/][^<>]*>")


def normalized(name: str) -> str:
    """The form names are compared in: NFKC, surrounding whitespace dropped."""
    return unicodedata.normalize("NFKC", name.strip())


def name_problems(name: str) -> list[str]:
    """Every way ``name`` breaks the spec's naming rule, as short messages.

    Letters may be any Unicode letters without an upper case form (the reference
    validator allows them); digits and single inner hyphens are allowed.
    """
    value = normalized(name)
    problems: list[str] = []
    if not value:
        return ["name must not be empty"]
    if len(value) > NAME_MAX:
        problems.append(f"name is {len(value)} characters long; the limit is {NAME_MAX}")
    if value != value.lower():
        problems.append(f"name '{value}' must be lowercase")
    bad = sorted({c for c in value if not (c.isalnum() or c == "-")})
    if bad:
        shown = " ".join(repr(c) for c in bad[:5])
        problems.append(f"name '{value}' may only hold letters, digits and hyphens; found {shown}")
    if value.startswith("-") or value.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in value:
        problems.append("name must not contain consecutive hyphens")
    return problems


def suggested_name(name: str) -> str:
    """A name that follows the spec, derived from ``name`` (may be empty)."""
    value = normalized(name).lower()
    value = re.sub(r"[^\w-]+|_+", "-", value)
    value = re.sub(r"-{2,}", "-", value).strip("-")
    return value[:NAME_MAX].rstrip("-")


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: characters divided by ``CHARS_PER_TOKEN``, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def listed_text(description: str, when_to_use: str | None) -> str:
    """The text Claude Code lists for a skill before cutting it at ``LISTING_CHARS_MAX``:
    the description, and ``when_to_use`` after `` - `` when there is one."""
    return f"{description} - {when_to_use}" if when_to_use else description

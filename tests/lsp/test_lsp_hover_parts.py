"""Hover text built from the semantic layer's answer, without a server."""

from __future__ import annotations

from skill_lsp.features.hover import MAX_PROMPT_CHARS, _semantic_step_parts


def test_a_huge_rendered_prompt_is_cut_in_the_hover() -> None:
    # A prompt function returning 100 MB was sent whole, and other files' requests waited.
    parts = _semantic_step_parts({"prompt": "p" * (MAX_PROMPT_CHARS + 5)}, "claude-code")
    assert len(parts[0]) < MAX_PROMPT_CHARS + 200
    assert f"its first {MAX_PROMPT_CHARS:,} characters (5 more: preview it)" in parts[0]


def test_a_prompt_the_worker_could_not_render_says_why() -> None:
    parts = _semantic_step_parts(
        {"prompt": None, "notes": ["rendering failed: the analysis worker exited (exit code 3)"]},
        "claude-code",
    )
    assert parts[-1] == "*rendering failed: the analysis worker exited (exit code 3)*"

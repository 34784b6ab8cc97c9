"""The links-only scan stands in for the whole scan where that cannot find more: the
same links always, and no path mention in a text without a skill folder's name."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillkit_core.manifest.markdown import may_mention_paths, scan_links, scan_markdown

PIECES = st.sampled_from(
    [
        "see ",
        "[guide](references/guide.md)",
        "[a](b.md)",
        "`scripts/run.py`",
        "scripts/",
        "assets/logo.png",
        "references",
        "/",
        "```\n",
        "~~~\n",
        "[x]: notes.md\n",
        "\n",
        "`",
        "](",
        " ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_links_only_scan_agrees_with_the_whole_scan(text: str) -> None:
    whole = scan_markdown(text.split("\n"))
    assert scan_links(text).links == whole.links
    if not may_mention_paths(text):
        assert whole.mentions == []

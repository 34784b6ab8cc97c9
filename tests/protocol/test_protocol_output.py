"""``json_line``: every result is one line of UTF-8 JSON, whatever its strings hold."""

from __future__ import annotations

import json

import pytest

from skillkit_core.protocol.output import json_line


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"])
def test_unicode_line_breaks_are_escaped_so_the_result_stays_one_line(brk: str) -> None:
    # JSON allows them raw, but str.splitlines (and Unicode) split there.
    data = {"prompt": f"one{brk}two", "é": "ü"}
    text = json_line(data)
    assert text.splitlines() == [text]
    assert json.loads(text) == data
    assert "é" in text  # the rest stays as written


def test_a_lone_surrogate_is_written_as_an_escape_of_what_it_stood_for() -> None:
    text = json_line({"step": "ch\udcffoose", "other": "\ud800", "ok": "é"})
    text.encode("utf-8")  # would raise with the surrogates left in
    assert json.loads(text) == {"step": "ch\\xffoose", "other": "\\ud800", "ok": "é"}


def test_plain_text_is_unchanged() -> None:
    data = {"kind": "prompt", "prompt": "<prompt>\nDo it.\n</prompt>", "n": [1, 2.5, None]}
    assert json_line(data) == json.dumps(data, separators=(",", ":"), ensure_ascii=False)

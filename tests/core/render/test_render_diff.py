from hypothesis import given
from hypothesis import strategies as st

from skillkit_core import render


def test_insertion_shows_as_a_single_added_line():
    assert render.diff("a\nb\nc", "a\nx\nb\nc") == "--- before\n+++ after\n a\n+x\n b\n c"


def test_changed_and_removed_lines():
    assert render.diff("keep\nold\ngone\nend", "keep\nnew\nend") == (
        "--- before\n+++ after\n keep\n-old\n-gone\n+new\n end"
    )


def test_identical_texts_have_only_context_lines():
    assert render.diff("a\nb", "a\nb") == "--- before\n+++ after\n a\n b"


def test_empty_texts():
    assert render.diff("", "") == "--- before\n+++ after"
    assert render.diff("", "a") == "--- before\n+++ after\n+a"


lines = st.lists(st.sampled_from(["a", "b", "c", "d", ""]), max_size=12)


@given(before=lines, after=lines)
def test_diff_reconstructs_both_sides(before, after):
    body = render.diff("\n".join(before), "\n".join(after)).split("\n")[2:]
    old = [line[1:] for line in body if line[0] in " -"]
    new = [line[1:] for line in body if line[0] in " +"]
    assert old == "\n".join(before).splitlines()
    assert new == "\n".join(after).splitlines()


def test_front_insertion_keeps_all_old_lines():
    body = render.diff("a\nb\nc\nd", "z\na\nb\nc\nd").split("\n")[2:]
    assert body == ["+z", " a", " b", " c", " d"]

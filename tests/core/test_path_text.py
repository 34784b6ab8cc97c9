"""path_text writes paths exactly as pathlib does, for any text."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from skillkit_core import path_text

pytestmark = pytest.mark.skipif(not path_text._POSIX, reason="the string forms are POSIX's")

PATHS = st.text(alphabet="/.ab", max_size=10)


@given(PATHS)
@example("./")
@example(".//a")
@example("//a/b")
@example("///a")
def test_pure_name_and_parent_are_pathlibs(text: str) -> None:
    path = PurePosixPath(text)
    assert path_text.pure(text) == str(path)
    assert path_text.name(text) == path.name
    assert path_text.parent(text) == str(path.parent)


@given(PATHS, PATHS)
def test_join_is_pathlibs(base: str, relative: str) -> None:
    assert path_text.join(base, relative) == str(PurePosixPath(base) / relative)


def test_paths_pathlib_already_wrote_need_no_pathlib() -> None:
    for text in ("skills/pdf-tools", "/tmp/a/b", "a", ".", "/", "//x", "../corpus"):
        assert path_text._written_as_pathlib_would(text)
    for text in ("a/", "a//b", "a/./b", "a/.", "", "///a"):
        assert not path_text._written_as_pathlib_would(text)


# Paths found under one root, as a walk finds them.
WALKED = st.lists(st.text(alphabet="ab-", min_size=1, max_size=3), min_size=1, max_size=4).map(
    lambda parts: path_text.join("root", "/".join(parts))
)


@given(st.lists(WALKED))
@example(["root/a-b", "root/a/b", "root/a"])
def test_sort_key_orders_as_pathlib(texts: list[str]) -> None:
    by_pathlib = [str(path) for path in sorted(map(PurePosixPath, texts))]
    assert sorted(texts, key=path_text.sort_key) == by_pathlib

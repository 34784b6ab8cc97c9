"""skillkit_core.named_tuple: typing.NamedTuple's class syntax, without importing typing."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from skillkit_core.named_tuple import NamedTuple


class Span(NamedTuple):
    """Where something is."""

    line: int
    column: int = 0
    file: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file or '?'}:{self.line}:{self.column}"

    def moved(self, lines: int) -> Span:
        return self._replace(line=self.line + lines)


class TypedSpan(typing.NamedTuple):
    """Where something is."""

    line: int
    column: int = 0
    file: str | None = None


def test_a_class_is_a_named_tuple_with_its_fields_defaults_and_members() -> None:
    span = Span(3, file="SKILL.md")
    assert span == (3, 0, "SKILL.md") and isinstance(span, tuple)
    assert Span._fields == ("line", "column", "file")
    assert Span._field_defaults == {"column": 0, "file": None}
    assert span.where == "SKILL.md:3:0"
    assert span.moved(2) == Span(5, 0, "SKILL.md")
    assert Span.__doc__ == "Where something is."
    assert Span.__module__ == __name__
    assert Span.__qualname__ == "Span"
    line, column, file = span
    assert (line, column, file) == (3, 0, "SKILL.md")


def test_it_behaves_as_typing_named_tuple_does() -> None:
    ours, theirs = Span(1, 2, "a"), TypedSpan(1, 2, "a")
    assert repr(ours).replace("Span", "TypedSpan") == repr(theirs)
    assert ours == theirs and hash(ours) == hash(theirs)
    assert ours._asdict() == theirs._asdict()
    assert Span._make([1, 2, "a"]) == TypedSpan._make([1, 2, "a"])
    assert Span._field_defaults == TypedSpan._field_defaults
    with pytest.raises(AttributeError):
        ours.line = 4  # type: ignore[misc]


def test_annotations_are_kept_as_written() -> None:
    # Nothing is evaluated or compiled when the class is made.
    assert Span.__annotations__ == {"line": "int", "column": "int", "file": "str | None"}


def test_values_pickle_by_their_class() -> None:
    span = Span(1, 2, "x")
    assert pickle.loads(pickle.dumps(span)) == span
    assert type(pickle.loads(pickle.dumps(span))) is Span


def test_a_field_without_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Bad(NamedTuple):
            a: int = 0
            b: int


def test_the_named_tuple_machinery_cannot_be_replaced() -> None:
    with pytest.raises(AttributeError, match="_replace"):

        class Bad(NamedTuple):
            a: int

            def _replace(self, **changes: object) -> Bad:
                return self


def test_importing_it_imports_no_typing() -> None:
    program = "import sys, skillkit_core.named_tuple; print('typing' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-S", "-c", program],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": ".", "PATH": ""},
        cwd=Path(__file__).parents[2],
    )
    assert done.stdout.strip() == "False", done.stderr

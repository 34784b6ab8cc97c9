"""The diagnostic value every lint rule returns, and the positions and fixes it carries.

These are named tuples, not dataclasses: ``skillkit check`` creates them by the thousand
in a process that must start fast, and a named tuple class costs a fraction of a
dataclass to define (and importing ``dataclasses`` pulls in ``inspect``). They are
immutable; derive a changed copy with ``value._replace(field=...)``. Like every module
``skillkit check`` imports, this one takes ``NamedTuple`` from
:mod:`skillkit_core.named_tuple` and imports nothing from :mod:`typing` at run time (tests
in ``tests/cli/test_entry.py`` keep it so).
"""

from __future__ import annotations

from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Severity = Literal["error", "warning", "info"]

# The finding for a file or folder that cannot be read (no rule of the registry makes it:
# it says what was not checked; ``skillkit check`` also uses it for its paths).
UNREADABLE = "unreadable-path"


class SourceRange(NamedTuple):
    """A span in a text file: 0-based lines, 0-based columns counted in code points.

    Faces convert columns to what their client wants (UTF-16 for VS Code, bytes for
    Neovim, 1-based for humans); the core never does.
    """

    line: int
    column: int
    end_line: int
    end_column: int


class TextEdit(NamedTuple):
    """Replace ``range`` of ``file`` (or of the diagnostic's file) with ``new_text``."""

    range: SourceRange
    new_text: str
    file: str | None = None


class Fix(NamedTuple):
    """A mechanical fix for one diagnostic: text edits, files to make executable
    (``chmod +x``; an editor that can only edit text applies the edits) and paths to
    rename (``(old, new)``, a folder included: an editor applies it as a file operation).

    A diagnostic's ``fix`` is safe (``skillkit check --fix`` applies it); its
    ``suggestions`` are fixes that may change what the skill means (a public name, a
    loop's way out): offered to choose from, never applied by ``--fix``.

    ``based_on`` pairs each file the edits change with the digest of its text as the
    check read it (:func:`text_digest`): ``--fix`` refuses a file that changed since,
    where the edits' positions no longer hold."""

    title: str
    edits: tuple[TextEdit, ...]
    executable: tuple[str, ...] = ()
    renames: tuple[tuple[str, str], ...] = ()
    based_on: tuple[tuple[str, str], ...] = ()


class LintDiagnostic(NamedTuple):
    """One finding: which rule, how bad, what and where, an optional safe fix and the
    fixes to choose from that ``--fix`` leaves alone."""

    rule: str
    severity: Severity
    message: str
    step: str | None = None
    file: str | None = None
    range: SourceRange | None = None
    fix: Fix | None = None
    suggestions: tuple[Fix, ...] = ()


def text_digest(text: str) -> str:
    """The digest ``Fix.based_on`` keeps of a file's text (after any byte-order mark)."""
    from skillkit_core.fast_hash import blake2b

    data = text.removeprefix("\ufeff").encode("utf-8", "surrogatepass")
    return blake2b(data, digest_size=16).hexdigest()

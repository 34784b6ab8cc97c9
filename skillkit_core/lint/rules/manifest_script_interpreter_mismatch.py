"""script-interpreter-mismatch: a script's ``#!`` interpreter fits its file extension."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.rules.manifest_script_shebang import runnable_scripts
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.scripts import (
    compatible,
    extension_family,
    interpreter,
    interpreter_family,
)


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    for file, text in runnable_scripts(folder):
        first = text.split("\n", 1)[0].rstrip("\r")
        program = interpreter(first)
        expected = extension_family(file.relative)
        if program is None or expected is None:
            continue
        actual = interpreter_family(program)
        if actual is None or compatible(actual, expected):
            continue
        yield RULE.diagnostic(
            f"{file.relative} is a {expected} file but its '#!' line runs {program} ({actual})",
            range=SourceRange(0, 0, 0, len(first)),
            file=folder.display(file),
        )


RULE = Rule(
    id="script-interpreter-mismatch",
    severity="warning",
    summary="A script's #! interpreter does not match its file extension.",
    rationale=(
        "A .py file with '#!/bin/bash' fails when run directly and works when run with "
        "python; agents do both, so one of them breaks."
    ),
    bad="scripts/report.py starting with '#!/bin/bash'",
    good="scripts/report.py starting with '#!/usr/bin/env python3'",
    check=_check,
    target="manifest",
)

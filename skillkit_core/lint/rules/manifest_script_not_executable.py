"""script-not-executable: scripts with a ``#!`` line have the executable bit (unless the
skill runs them through their interpreter: ``uv run scripts/x.py``, ``bash x.sh``)."""

from __future__ import annotations

import os
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.rules.manifest_script_shebang import run_by_interpreter, runnable_scripts
from skillkit_core.manifest.folder import SkillFolder


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or os.name == "nt":
        return  # Windows has no executable bit
    for file, text in runnable_scripts(folder):
        if text.startswith("#!") and not file.mode & 0o111:
            if run_by_interpreter(folder, file):
                continue  # started as 'uv run scripts/x.py': the bit is never needed
            first = text.split("\n", 1)[0].rstrip("\r")
            yield RULE.diagnostic(
                f"{file.relative} has a '#!' line but is not executable; run "
                f"'chmod +x {file.relative}'",
                range=SourceRange(0, 0, 0, len(first)),
                file=folder.display(file),
            )


RULE = Rule(
    id="script-not-executable",
    severity="warning",
    summary="A script with a #! line lacks the executable permission.",
    rationale=(
        "An agent that runs scripts/tool.sh directly gets 'permission denied'; the bit is "
        "easy to lose when files are copied or unzipped. A script the skill runs through "
        "its interpreter (uv run scripts/x.py, bash scripts/x.sh) does not need it."
    ),
    bad="-rw-r--r-- scripts/tool.sh",
    good="-rwxr-xr-x scripts/tool.sh",
    check=_check,
    target="manifest",
)

"""load-error: the skill module could not be imported (reported by the loader)."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule


def _check(_context: object) -> Iterator[LintDiagnostic]:
    # Nothing to check on a definition: if there is one, the module loaded. The
    # loader (skillkit_core.lint.load_worker) reports this rule's findings.
    return iter(())


RULE = Rule(
    id="load-error",
    severity="error",
    summary="Importing the skill module raised, exited, or did not finish in time.",
    rationale=(
        "skillkit check imports each skill module in a separate process with a time limit "
        "(default 10 s, SKILLKIT_CHECK_TIMEOUT to change it), so that a module that fails "
        "or hangs is reported with its exception and line instead of stopping the check."
    ),
    bad='import requests\nCONFIG = requests.get("https://example.com/config").json()  # at import',
    good="def load_config(ctx):\n    ...  # fetch inside an action, when the step runs",
    check=_check,
    target="workflow",
)

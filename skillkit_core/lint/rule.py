"""What a lint rule is: a small immutable value with an id, a severity, docs and a check.

A rule file defines one :class:`Rule` named ``RULE``; the registry lists them. A rule's
``check`` receives the target it was written for (``target="manifest"``: a
:class:`~skillkit_core.manifest.folder.SkillFolder`; ``target="workflow"``: the workflow
linter's context) and yields :class:`LintDiagnostic` values, one per problem, usually made
with :meth:`Rule.diagnostic`. ``fix``, when present, computes a safe :class:`Fix` for one
of the rule's own diagnostics; ``suggest`` the fixes that may change the skill's meaning,
for a person to choose from (``--fix`` never applies them); the driver attaches both.
"""

from __future__ import annotations

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange
from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, Literal

    from skillkit_core.lint.diagnostic import Severity

    RuleTarget = Literal["manifest", "workflow"]
    CheckFunction = Callable[[Any], Iterable[LintDiagnostic]]
    FixFunction = Callable[[Any, LintDiagnostic], Fix | None]
    SuggestFunction = Callable[[Any, LintDiagnostic], tuple[Fix, ...]]


class Rule(NamedTuple):
    """One lint rule.

    ``id`` is kebab-case and stable (configuration and suppressions name it);
    ``severity`` is the default severity of its diagnostics; ``summary`` is one line;
    ``rationale`` says why the rule exists; ``bad`` and ``good`` are short examples;
    ``target`` says what the rule checks; ``spec`` marks rules that enforce the Agent
    Skills specification itself (as opposed to advice beyond it).
    """

    id: str
    severity: Severity
    summary: str
    rationale: str
    bad: str
    good: str
    check: CheckFunction
    target: RuleTarget
    fix: FixFunction | None = None
    spec: bool = False
    suggest: SuggestFunction | None = None

    @property
    def fixable(self) -> bool:
        """True when the rule can offer a safe fix."""
        return self.fix is not None

    def diagnostic(
        self,
        message: str,
        *,
        range: SourceRange | None = None,
        file: str | None = None,
        step: str | None = None,
        fix: Fix | None = None,
        severity: Severity | None = None,
    ) -> LintDiagnostic:
        """A diagnostic of this rule, at its default severity unless told otherwise."""
        return LintDiagnostic(
            rule=self.id,
            severity=severity or self.severity,
            message=message,
            step=step,
            file=file,
            range=range,
            fix=fix,
        )

    def run(self, target: Any) -> list[LintDiagnostic]:
        """Run ``check`` on ``target`` and attach fixes from ``fix`` where it has one."""
        found = list(self.check(target))
        if self.fix is None and self.suggest is None:
            return found
        fixed: list[LintDiagnostic] = []
        for diagnostic in found:
            if diagnostic.fix is None and self.fix is not None:
                fix = self.fix(target, diagnostic)
                if fix is not None:
                    diagnostic = diagnostic._replace(fix=fix)
            if not diagnostic.suggestions and self.suggest is not None:
                diagnostic = diagnostic._replace(suggestions=self.suggest(target, diagnostic))
            fixed.append(diagnostic)
        return fixed

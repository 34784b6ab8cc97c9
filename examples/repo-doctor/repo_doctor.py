"""repo-doctor: diagnose a repository, fix what fails once the user approves (recording each
fix with an action), and report. Shows actions, ``save``, sub-stores, a prompt-less routing
gate and a destructive confirm before the skill changes any files."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from skillkit_core import act, action, branch, render, skill, terminal, view


class Params(BaseModel):
    repo_path: str = "."


class Check(BaseModel):
    name: str
    status: Literal["pass", "fail"]
    detail: str = ""


class Diagnosis(BaseModel):
    checks: list[Check]


class Approval(BaseModel):
    approved: bool


class Remedy(BaseModel):
    fixed: list[str]
    notes: str = ""


class FixLog(BaseModel):
    log_path: str
    entries: int


class Progress(BaseModel):
    fixed: list[str] = []


class Report(BaseModel):
    summary: str


class Review(BaseModel):
    approved: bool
    findings: list[str]


class LogInput(BaseModel):
    repo_path: str
    fixed: list[str]


def _write_log(ctx) -> dict:
    """Append the fixes to .repo-doctor.log in the repository (the skill's only side effect)."""
    log = Path(ctx.input.repo_path) / ".repo-doctor.log"
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    with log.open("a", encoding="utf-8") as handle:
        for name in ctx.input.fixed:
            handle.write(f"{stamp} fixed {name}\n")
    return {"log_path": str(log), "entries": len(ctx.input.fixed)}


record_fixes = action("record-fixes", input=LogInput, output=FixLog, run=_write_log)


def _failing(ctx) -> list[str]:
    fixed = set(ctx.store.progress.get("fixed", ()))
    checks = ctx.store.steps["diagnose"].checks
    return [c.name for c in checks if c.status == "fail" and c.name not in fixed]


repo_doctor = (
    skill(
        name="repo-doctor",
        entry="diagnose",
        description="Diagnose a repository's health checks, fix the failures and report.",
        params=Params,
        stores={"progress": Progress},
        triggers=["repo health", "fix ci"],
    )
    .step(
        "diagnose",
        prompt=lambda ctx: (
            f"Inspect the repository at {ctx.params.repo_path}: CI config, linting, tests, "
            "README. Report each check as pass or fail with a short detail."
        ),
        response=Diagnosis,
        next="gate",
    )
    .step(
        "gate",
        next=lambda ctx: "confirm-fixes" if _failing(ctx) else "report-clean",
    )
    .step(
        "confirm-fixes",
        prompt=lambda ctx: [
            act.confirm(
                f"Edit the files of {ctx.params.repo_path} to fix {', '.join(_failing(ctx))}? "
                "This changes the repository in place; uncommitted work in those files can be "
                "overwritten.",
                destructive=True,
            ),
            "Answer with approved true only if the user said yes.",
        ],
        response=Approval,
        next=[branch("remediate", when=lambda ctx: ctx.response.approved), branch("report")],
    )
    .step(
        "remediate",
        prompt=lambda ctx: [
            act.checklist(create=[{"title": name, "status": "pending"} for name in _failing(ctx)]),
            "Fix the failing checks above, one at a time. List the ones you fixed.",
        ],
        response=Remedy,
        action={
            "run": record_fixes,
            "map_input": lambda ctx: {
                "repo_path": ctx.params.repo_path,
                "fixed": ctx.response.fixed,
            },
        },
        save=lambda ctx: {
            "step": {"fixed": ctx.response.fixed, "log": ctx.action_result.log_path},
            "progress": {"fixed": [*ctx.store.progress.get("fixed", ()), *ctx.response.fixed]},
        },
        next=[branch("remediate", when=lambda ctx: bool(_failing(ctx))), branch("review")],
        max_visits=3,
        on_max_visits="review",
    )
    .step(
        "review",
        prompt=lambda ctx: act.subagent(
            prompt=(
                f"Review the fixes for {', '.join(ctx.store.progress.get('fixed', ()))} in "
                f"{ctx.params.repo_path}. Look for regressions and unrelated changes."
            ),
            output=Review,
        ),
        response=Review,
        next="report",
    )
    .step(
        "report",
        prompt=lambda ctx: [
            view(
                "report",
                render.table(
                    [c.to_data() for c in ctx.store.steps["diagnose"].checks],
                    columns=["name", "status", "detail"],
                ),
            ),
            f"Fixed: {', '.join(ctx.store.progress.get('fixed', ())) or 'nothing'}. "
            "Show the report above exactly as rendered, then summarise what is left.",
        ],
        response=Report,
        next=terminal,
    )
    .step(
        "report-clean",
        prompt="Every check passes. Tell the user the repository is healthy.",
        response=Report,
        next=terminal,
    )
    .build()
)

"""help-desk: classify a question, then route it to a sub-skill or answer from a topic.

A composite skill: the dispatcher's ``classify`` step routes to ``doctor`` (health checks
with a routing gate), ``setup`` (a guarded configuration loop with mapped params) or to one
of two reference topics read from ``references/``.
"""

from typing import Literal

from pydantic import BaseModel

from skillkit_core import act, branch, skill, terminal


class Intent(BaseModel):
    intent: Literal["doctor", "setup", "rate-limits", "auth"]
    project: str = "."


class Checks(BaseModel):
    failing: list[str]


class Summary(BaseModel):
    summary: str


class SetupParams(BaseModel):
    project: str


class Setting(BaseModel):
    key: str
    value: str
    more: bool


doctor = (
    skill(name="doctor", entry="diagnose", description="Diagnose a project's health.")
    .step(
        "diagnose",
        prompt="Run the health checks and list the failing ones.",
        response=Checks,
        next="gate",
    )
    .step(
        "gate",
        next=lambda ctx: "report-issues" if ctx.store.steps["diagnose"].failing else "report-clean",
    )
    .step(
        "report-issues",
        prompt=lambda ctx: f"Explain how to fix: {', '.join(ctx.store.steps['diagnose'].failing)}.",
        response=Summary,
        next=terminal,
    )
    .step(
        "report-clean",
        prompt="Tell the user everything is healthy.",
        response=Summary,
        next=terminal,
    )
    .build()
)

setup = (
    skill(name="setup", entry="configure", description="Configure a project.", params=SetupParams)
    .step(
        "configure",
        prompt=lambda ctx: [
            act.ask_user(
                type="open", question=f"Which setting should {ctx.params.project} change next?"
            ),
            "Set `more` when the user wants to change another setting.",
        ],
        response=Setting,
        next=[branch("configure", when=lambda ctx: ctx.response.more), branch("summary")],
        max_visits=3,
        on_max_visits="summary",
    )
    .step(
        "summary",
        prompt=lambda ctx: (
            "Summarise the changes: "
            + ", ".join(f"{s.key}={s.value}" for s in ctx.store.steps.all("configure"))
        ),
        response=Summary,
        next=terminal,
    )
    .build()
)


def _route(ctx) -> str:
    intent = ctx.response.intent
    return f"subskill:{intent}" if intent in ("doctor", "setup") else f"topic:{intent}"


help_desk = (
    skill(
        name="help-desk",
        entry="classify",
        description="Answer product questions: diagnose, set up, or explain limits and auth.",
    )
    .step(
        "classify",
        prompt="Read the user's question and classify it as doctor, setup, rate-limits or "
        "auth. Give the project path when they mention one.",
        response=Intent,
        next=_route,
    )
    .subskill("doctor", doctor)
    .subskill("setup", setup, params=lambda response, store: {"project": response.project})
    .topic(
        "rate-limits", label="API rate limits", content=lambda ctx: ctx.refs.load("rate-limits.md")
    )
    .topic("auth", label="Authentication and tokens", content=lambda ctx: ctx.refs.load("auth.md"))
    .build()
)

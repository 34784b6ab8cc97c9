"""deploy-check, as the language server tests see it: non-ASCII prompts on purpose."""

from typing import Literal

from pydantic import BaseModel

from skillkit_core import act, skill, terminal


class Choose(BaseModel):
    target: Literal["production", "staging"]


class Verify(BaseModel):
    blockers: list[str]
    safe: bool


class Deployed(BaseModel):
    url: str


def route(ctx):
    if ctx.response.safe:
        return "deploy"
    return "abort"


deploy_check = (
    skill(name="deploy-check", entry="choose", description="Déployer en sécurité 🚀.")
    .step(
        "choose",
        prompt=act.ask_user(
            type="structured",
            question="Où déployer 🚀 ?",
            options=[
                {"value": "production", "label": "Production"},
                {"value": "staging", "label": "Staging"},
            ],
        ),
        response=Choose,
        next="verify",
    )
    .step(
        "verify",
        prompt=lambda ctx: f"Vérifie 🔍 {ctx.store.steps['choose'].target} avant tout.",
        response=Verify,
        next=route,
    )
    .step("deploy", prompt="Déploie ✅ maintenant.", response=Deployed, next=terminal)
    .step("abort", prompt="Explique les blocages ❌.", next=terminal)
    .build()
)

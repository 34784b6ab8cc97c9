"""deploy-check: choose an environment, verify it, then deploy or abort.

The worked example of the skill SDK: params, the store, an ask-user choice, declarative
branching and two terminal steps.
"""

from typing import Literal

from pydantic import BaseModel

from skillkit_core import act, branch, skill, terminal


class Params(BaseModel):
    env: Literal["staging"] | None = None


class Choose(BaseModel):
    target: Literal["production", "staging"]


class Verify(BaseModel):
    blockers: list[str]
    safe: bool


class Deployed(BaseModel):
    url: str


class Aborted(BaseModel):
    summary: str


deploy_check = (
    skill(
        name="deploy-check",
        entry="choose",
        description="Check a release for blockers and deploy it to staging or production.",
        params=Params,
    )
    .step(
        "choose",
        prompt=act.ask_user(
            type="structured",
            question="Which environment?",
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
        prompt=lambda ctx: (
            f"Run pre-deploy checks for {ctx.store.steps['choose'].target}. Report any blockers."
        ),
        response=Verify,
        next=[branch("deploy", when=lambda ctx: ctx.response.safe), branch("abort")],
    )
    .step("deploy", prompt="Execute the deployment.", response=Deployed, next=terminal)
    .step(
        "abort",
        prompt="Report the blockers and explain why deployment was aborted.",
        response=Aborted,
        next=terminal,
    )
    .build()
)

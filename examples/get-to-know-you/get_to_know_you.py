"""get-to-know-you: build a profile across steps with sub-stores, a guarded loop and
branches, then show it back for approval."""

from typing import Literal

from pydantic import BaseModel

from skillkit_core import PARENT, act, branch, render, skill, step, terminal, view


class Profile(BaseModel):
    name: str | None = None
    role: str | None = None
    stack: str | None = None
    hobbies: list[str] = []


class Name(BaseModel):
    name: str


class Role(BaseModel):
    role: Literal["developer", "designer", "manager"]


class Answer(BaseModel):
    answer: str


class Hobby(BaseModel):
    hobby: str
    wants_more: bool


class Approval(BaseModel):
    approved: bool


class Card(BaseModel):
    card: str


# A reusable open question; each use gives its own prompt and next step.
open_question = step(response=Answer, next=PARENT)


def _hobbies(ctx) -> list[str]:
    return [visit.hobby for visit in ctx.store.steps.all("ask-hobby")]


get_to_know_you = (
    skill(
        name="get-to-know-you",
        entry="greet",
        description="Get to know a new teammate and write them a profile card.",
        system="You are a warm, curious onboarding buddy.",
        stores={"profile": Profile},
    )
    .step(
        "greet",
        prompt=act.ask_user(type="open", question="What should we call you?"),
        response=Name,
        save=lambda ctx: {
            "step": {"name": ctx.response.name},
            "profile": {"name": ctx.response.name},
        },
        next="ask-role",
    )
    .step(
        "ask-role",
        prompt=lambda ctx: [
            act.ask_user(
                type="structured",
                header="Role",
                question=f"What do you do, {ctx.store.profile.name}?",
                options=[
                    {"value": "developer", "label": "Developer", "description": "I write code"},
                    {"value": "designer", "label": "Designer"},
                    {"value": "manager", "label": "Manager"},
                ],
            ),
        ],
        response=Role,
        save=lambda ctx: {"profile": {"role": ctx.response.role}},
        next=[
            branch("ask-stack", when=lambda ctx: ctx.response.role == "developer"),
            branch("ask-hobby"),
        ],
        max_visits=2,
        on_max_visits="write-card",
    )
    .extend(
        "ask-stack",
        open_question,
        prompt=lambda ctx: [
            act.ask_user(type="open", question="What's your tech stack?"),
            f"Ask {ctx.store.steps['greet'].name} about frameworks and build tools.",
        ],
        save=lambda ctx: {"profile": {"stack": ctx.response.answer}},
        next="ask-hobby",
    )
    .step(
        "ask-hobby",
        prompt=lambda ctx: (
            "Ask about one hobby. "
            + (f"Already heard: {', '.join(_hobbies(ctx))}. " if _hobbies(ctx) else "")
            + "Set wants_more if they want to share another."
        ),
        response=Hobby,
        save=lambda ctx: {"profile": {"hobbies": [*_hobbies(ctx), ctx.response.hobby]}},
        next=[
            branch("ask-hobby", when=lambda ctx: ctx.response.wants_more),
            branch("confirm-profile"),
        ],
        max_visits=3,
        on_max_visits="confirm-profile",
    )
    .step(
        "confirm-profile",
        prompt=lambda ctx: [
            view(
                "profile",
                render.kv(
                    {
                        "Name": ctx.store.profile.name,
                        "Role": ctx.store.profile.role,
                        "Stack": ctx.store.profile.get("stack") or "—",
                        "Hobbies": ", ".join(ctx.store.profile.hobbies) or "—",
                    }
                ),
            ),
            act.confirm(message="Is this profile right?", default_answer="yes"),
        ],
        response=Approval,
        next=[branch("write-card", when=lambda ctx: ctx.response.approved), branch("ask-role")],
    )
    .step(
        "write-card",
        prompt=lambda ctx: f"Write a two-line profile card for {ctx.store.profile.name}.",
        response=Card,
        next=terminal,
    )
    .build()
)

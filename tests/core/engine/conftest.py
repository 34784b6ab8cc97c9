"""Small skills shared by the engine tests."""

from pydantic import BaseModel

from skillkit_core import branch, skill, terminal


class Name(BaseModel):
    name: str


class Flag(BaseModel):
    ok: bool


def linear():
    return (
        skill(name="linear", entry="a")
        .step("a", prompt="Say a name.", response=Name, next="b")
        .step(
            "b",
            prompt="Is it ok?",
            response=Flag,
            next=[branch("c", when=lambda ctx: ctx.response.ok), branch("a")],
        )
        .step("c", prompt="Bye.", response=Name, next=terminal)
        .build()
    )

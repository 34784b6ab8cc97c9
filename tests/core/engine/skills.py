"""Small skills shared by the engine tests (a module, not a conftest: imported by name)."""

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


def one_answer(response: type[BaseModel], params: type[BaseModel], step: str = "gate"):
    """A skill whose entry ``step`` takes one ``response``, then ends; with ``params``."""
    return (
        skill(name="one-answer", entry=step, description="d", params=params)
        .step(step, prompt="Answer.", response=response, next="end")
        .step("end", prompt="End.", next=terminal)
        .build()
    )


async def started(definition, params: dict):
    """``definition``'s engine on the generic host, started with ``params``."""
    from skillkit_core.engine import Handshake, WorkflowEngine

    engine = WorkflowEngine(definition, Handshake(host="generic"), params)
    await engine.start()
    return engine

"""The workflow engine: state machine, store, results, graph analysis."""

from skillkit_core.engine.context import CancellationSignal, StepContext
from skillkit_core.engine.results import (
    DoneResult,
    EngineResult,
    ErrorResult,
    PromptResult,
    RedirectResult,
    StepResult,
)
from skillkit_core.engine.workflow import WorkflowEngine
from skillkit_core.hosts import Handshake

__all__ = [
    "CancellationSignal",
    "DoneResult",
    "EngineResult",
    "ErrorResult",
    "Handshake",
    "PromptResult",
    "RedirectResult",
    "StepContext",
    "StepResult",
    "WorkflowEngine",
]

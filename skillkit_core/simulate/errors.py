"""Errors of preview, simulation and graph rendering (each with a machine ``code``)."""

from __future__ import annotations

from skillkit_core.errors import SkillkitError


class ExampleError(SkillkitError):
    """No valid example value could be generated for a schema."""

    code = "example"


class SimulationError(SkillkitError):
    """A simulation request cannot be carried out (bad steering, bad fixture file...)."""

    code = "simulate"


class GraphvizError(SkillkitError):
    """Graphviz's ``dot`` is missing or failed to render the graph."""

    code = "graphviz"

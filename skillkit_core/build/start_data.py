"""The precomputed first result of a skill whose ``start`` cannot depend on anything but
the host: computed at build time, served by :mod:`skillkit_core.protocol.precomputed_start`
without importing the skill's module or pydantic (which are most of a call's time).

A skill qualifies only when a ``start`` with default params runs none of the author's
code and its result is fixed by the host alone:

- a plain workflow (not a composite, not a reference skill) without definition problems,
  observers (``on_step_start`` would run author code) or stores;
- an entry step with a prompt that is not a function (so no prompt-less step runs first,
  and rendering it reads nothing from the run);
- params that are absent, or a pydantic model whose empty-object validation only fills in
  plain defaults: no validators or serializers (decorated or ``Annotated``), computed
  fields or default factories, and no ``validate_default``.

The data holds, per host, the exact result line of the real engine, the params and run
snapshot a session header and sidecar record, and the host-detection table, all produced
by the same code that serves the full path (so the two cannot drift apart unnoticed: the
tests compare them call by call).
"""

from __future__ import annotations

from typing import Any

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition

Definition = SkillDefinition | ReferenceDefinition


def precompute_start(definition: Definition) -> dict[str, Any] | None:
    """The data of a precomputed ``start`` for ``definition``, or ``None`` when its start
    may depend on more than the host (see the module docstring)."""
    if not _qualifies(definition):
        return None
    assert isinstance(definition, SkillDefinition)
    from skillkit_core.hosts import GENERIC, KNOWN_HOST_IDS
    from skillkit_core.protocol.engines import make_handshake, open_engine, run_sync
    from skillkit_core.protocol.output import json_line
    from skillkit_core.protocol.session import SIDECAR_VERSION

    lines: dict[str, str] = {}
    params_data: Any = None
    snapshot: Any = None
    for host in sorted({*KNOWN_HOST_IDS, GENERIC}):
        engine = open_engine(definition, make_handshake(host, None, False), None)
        wire = run_sync(engine.start(), event_loop=False).to_wire()
        if wire.get("kind") != "prompt" or "completed" in wire or "autoAdvanced" in wire:
            return None
        if snapshot is not None and (engine.snapshot(), engine.params_data) != (
            snapshot,
            params_data,
        ):
            return None  # the run's state depends on the host: serve nothing precomputed
        snapshot, params_data = engine.snapshot(), engine.params_data
        lines[host] = json_line(wire)
    return {
        "skill": definition.name,
        "lines": lines,
        "params": params_data,
        "snapshot": snapshot,
        "sidecarVersion": SIDECAR_VERSION,
        "detect": detection_table(),
    }


def detection_table() -> list[list[str]]:
    """``[variable, host, reason]`` in the order ``hosts.detect_host`` tries them, each
    with the host and reason ``detect_host`` gives when that variable is set."""
    from skillkit_core.hosts import HOSTS_BY_ID, detect_host
    from skillkit_core.hosts_data import DETECT_ORDER

    table = []
    for host_id in DETECT_ORDER:
        for variable, _evidence in HOSTS_BY_ID[host_id].detect:
            found = detect_host({variable: "1"})
            if found is not None:
                table.append([variable, found[0], found[1]])
    return table


def _qualifies(definition: Definition) -> bool:
    if not isinstance(definition, SkillDefinition):
        return False
    if definition.is_composite or definition.subskills or definition.problems:
        return False
    if definition.observers or definition.stores:
        return False
    entry = definition.steps.get(definition.entry)
    if entry is None or not entry.has_prompt:
        return False
    if callable(entry.prompt):
        return False
    return definition.params is None or _plain_defaults(definition.params.source)


def _plain_defaults(model: Any) -> bool:
    """Whether validating ``{}`` against ``model`` can only fill in plain defaults."""
    from pydantic import BaseModel

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return False
    if model.model_config.get("validate_default"):
        return False
    decorators = model.__pydantic_decorators__
    hooks = (
        decorators.validators,
        decorators.field_validators,
        decorators.root_validators,
        decorators.field_serializers,
        decorators.model_serializers,
        decorators.model_validators,
        decorators.computed_fields,
    )
    if any(hooks):
        return False
    for field in model.model_fields.values():
        if field.default_factory is not None or field.validate_default:
            return False
        if any(hasattr(item, "func") for item in field.metadata):
            return False  # an Annotated validator or serializer: author code
        if field.is_required():
            return False  # {} fails: the full path reports it
    return True

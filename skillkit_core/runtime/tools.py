"""The four runtime tools: their specs and what a call does, independent of MCP.

The runtime seed names them ``skills.load``, ``skills.unload``, ``skills.read`` and
``skills.run_script``; some MCP hosts reject dots in tool names, so they are served as
``skills_load``, ``skills_unload``, ``skills_read`` and ``skills_run_script``
(:data:`SEED_NAMES` maps one to the other). Inputs and outputs keep the seed's shapes:

- ``skills_load {names, mode?: "replace"|"add"}`` and ``skills_unload {names} | {all: true}``
  return the receipt ``{"active_skills": [{name, location, root_dir, digest, properties}]}``;
  a load also returns the loaded skills' SKILL.md bodies in ``<active_skills>``, for hosts
  that cannot inject them into their instructions.
- ``skills_read {path, skill?}`` returns the file (text, or bytes for binary files) or, for
  a folder, its listing.
- ``skills_run_script {path, args?, env?, workdir?, skill?}`` returns
  ``{path, exit_code, stdout, stderr}`` plus ``timed_out``, ``stdout_truncated``,
  ``stderr_truncated`` and ``duration_ms``. A script that fails or times out is a normal
  result (read ``exit_code``); a refused call is a tool error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skillkit_core.runtime.config import RuntimeConfig
from skillkit_core.runtime.errors import ToolArgumentsError, TooManyRunsError
from skillkit_core.runtime.prompt import render_active_skills
from skillkit_core.runtime.reading import SkillFile, read_skill_file
from skillkit_core.runtime.scripts import INTERPRETERS, ScriptLimits, prepare_script, run_script
from skillkit_core.runtime.session import RuntimeSession

LOAD = "skills_load"
UNLOAD = "skills_unload"
READ = "skills_read"
RUN_SCRIPT = "skills_run_script"
SEED_NAMES: dict[str, str] = {
    LOAD: "skills.load",
    UNLOAD: "skills.unload",
    READ: "skills.read",
    RUN_SCRIPT: "skills.run_script",
}


@dataclass(frozen=True)
class ToolSpec:
    """A tool as listed to the agent."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    read_only: bool

    @property
    def seed_name(self) -> str:
        """The runtime seed's dotted name for this tool."""
        return SEED_NAMES[self.name]


@dataclass(frozen=True)
class ToolOutcome:
    """A successful call: JSON data, text blocks, an optional binary file."""

    structured: dict[str, Any] | None
    texts: tuple[str, ...] = ()
    file: SkillFile | None = None
    changed_active: bool = False
    file_uri: str | None = None
    """The ``skill://`` URI of ``file``, as ``resources/read`` takes it."""


_STRINGS = {"type": "array", "items": {"type": "string"}}
_SKILL_ARG = {
    "type": "string",
    "description": "Which loaded skill to use; defaults to the most recently loaded one. "
    "Required on a connection of MCP 2026-07-28, where nothing stays loaded between "
    "requests.",
}
_RECEIPT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "active_skills": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "location": {"type": "string"},
                    "root_dir": {"type": "string"},
                    "digest": {"type": "string"},
                    "properties": {"type": "object"},
                },
                "required": ["name", "location", "root_dir", "digest", "properties"],
            },
        }
    },
    "required": ["active_skills"],
}
_RUN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "exit_code": {"type": ["integer", "null"]},
        "stdout": {"type": "string"},
        "stderr": {"type": "string"},
        "timed_out": {"type": "boolean"},
        "stdout_truncated": {"type": "boolean"},
        "stderr_truncated": {"type": "boolean"},
        "duration_ms": {"type": "integer"},
    },
    "required": ["path", "exit_code", "stdout", "stderr"],
}


def tool_specs(config: RuntimeConfig) -> tuple[ToolSpec, ...]:
    """The four tools, with the server's limits written into their descriptions."""
    suffixes = ", ".join(f"{suffix} via {kind}" for suffix, kind in INTERPRETERS.items())
    limits = config.limits
    return (
        ToolSpec(
            LOAD,
            "Load Agent Skills by name (skills.load in the Agent Skills runtime protocol) "
            "before using their instructions, files or scripts. Returns the receipt of "
            "loaded skills and the SKILL.md instructions of the skills just loaded. "
            f'mode "replace" (default) sets the loaded set to names; "add" keeps the '
            f"skills already loaded. At most {config.max_active} skills can be loaded at once.",
            {
                "type": "object",
                "properties": {
                    "names": {**_STRINGS, "minItems": 1, "description": "Skill names to load."},
                    "mode": {"type": "string", "enum": ["replace", "add"], "default": "replace"},
                },
                "required": ["names"],
            },
            _RECEIPT_SCHEMA,
            read_only=False,
        ),
        ToolSpec(
            UNLOAD,
            "Unload skills (skills.unload in the Agent Skills runtime protocol): pass names "
            "to unload those, or all: true to unload every skill. Returns the receipt of the "
            "skills still loaded.",
            {
                "type": "object",
                "properties": {
                    "names": {**_STRINGS, "description": "Skill names to unload."},
                    "all": {"type": "boolean", "description": "Unload every skill."},
                },
            },
            _RECEIPT_SCHEMA,
            read_only=False,
        ),
        ToolSpec(
            READ,
            "Read a file of a loaded skill (skills.read in the Agent Skills runtime "
            "protocol), such as references/guide.md or assets/template.json; a folder path "
            "returns its listing. Paths are relative to the skill folder; absolute paths, "
            "'..' and symlinks leading outside the skill folder are refused.",
            {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path relative to the skill."},
                    "skill": _SKILL_ARG,
                },
                "required": ["path"],
            },
            None,
            read_only=True,
        ),
        ToolSpec(
            RUN_SCRIPT,
            "Run a script from a loaded skill's scripts/ folder (skills.run_script in the "
            f"Agent Skills runtime protocol). Interpreters: {suffixes}; other files run "
            "directly if executable. Arguments are passed as-is (no shell). Runs in the "
            "skill folder (or workdir inside it) with a minimal environment plus env (which "
            "may not set variables that change how a shell, loader or interpreter starts, "
            f"such as BASH_ENV, PYTHONPATH or LD_PRELOAD), for at most {limits.timeout:g} s"
            f"{_resource_limits(limits)}; stdout and stderr are each capped at "
            f"{limits.max_output} bytes; at most {config.max_concurrent_scripts} run at once. "
            "Every process the script starts ends with the call. Returns path, exit_code, "
            "stdout and stderr.",
            {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "e.g. scripts/extract.py"},
                    "args": {**_STRINGS, "description": "Command-line arguments."},
                    "env": {
                        "type": "object",
                        "additionalProperties": {"type": "string"},
                        "description": "Extra environment variables.",
                    },
                    "workdir": {
                        "type": "string",
                        "description": "Working folder relative to the skill (default: it).",
                    },
                    "skill": _SKILL_ARG,
                },
                "required": ["path"],
            },
            _RUN_SCHEMA,
            read_only=False,
        ),
    )


async def call_tool(
    session: RuntimeSession,
    config: RuntimeConfig,
    name: str,
    arguments: Mapping[str, Any] | None,
) -> ToolOutcome:
    """Run tool ``name``; raises a ``SkillkitError`` for any refused call."""
    args = dict(arguments or {})
    if name == LOAD:
        return _load(session, args)
    if name == UNLOAD:
        return _unload(session, args)
    if name == READ:
        return _read(session, config, args)
    if name == RUN_SCRIPT:
        return await _run(session, config, args)
    from skillkit_core.errors import UnknownToolError

    raise UnknownToolError(f"Unknown tool: {name} (this server has {', '.join(SEED_NAMES)})")


def _load(session: RuntimeSession, args: dict[str, Any]) -> ToolOutcome:
    _only(LOAD, args, {"names", "mode"})
    loaded = session.load(_required(LOAD, args, "names"), args.get("mode") or "replace")
    receipt = session.receipt()
    block = render_active_skills([(record.name, record.body) for record in loaded])
    return ToolOutcome(receipt, (_json(receipt), block), changed_active=True)


def _unload(session: RuntimeSession, args: dict[str, Any]) -> ToolOutcome:
    _only(UNLOAD, args, {"names", "all"})
    unload_all = args.get("all", False)
    if not isinstance(unload_all, bool):
        raise ToolArgumentsError(f"{UNLOAD}: 'all' must be true or false, not {unload_all!r}")
    session.unload(args.get("names"), unload_all=unload_all)
    receipt = session.receipt()
    return ToolOutcome(receipt, (_json(receipt),), changed_active=True)


def _read(session: RuntimeSession, config: RuntimeConfig, args: dict[str, Any]) -> ToolOutcome:
    _only(READ, args, {"path", "skill"})
    record = session.select(_optional_str(READ, args, "skill"))
    path = _required_str(READ, args, "path")
    found = read_skill_file(record.root_dir, path, skill=record.name, max_bytes=config.max_read)
    if found.listing is not None:
        header = f"{path} in skill '{record.name}' contains:"
        return ToolOutcome(None, ("\n".join((header, *found.listing)),))
    if found.text is not None:
        return ToolOutcome(None, (found.text,))
    from skillkit_core.runtime.skills_extension import file_uri

    return ToolOutcome(None, (), file=found, file_uri=file_uri(record, found.path))


async def _run(session: RuntimeSession, config: RuntimeConfig, args: dict[str, Any]) -> ToolOutcome:
    _only(RUN_SCRIPT, args, {"path", "args", "env", "workdir", "skill"})
    record = session.select(_optional_str(RUN_SCRIPT, args, "skill"))
    script_args = args.get("args") or []
    if not isinstance(script_args, list):
        raise ToolArgumentsError(f"{RUN_SCRIPT}: 'args' must be a list of strings")
    env = args.get("env") or {}
    if not isinstance(env, dict):
        raise ToolArgumentsError(f"{RUN_SCRIPT}: 'env' must be an object of strings")
    command = prepare_script(
        record.root_dir,
        _required_str(RUN_SCRIPT, args, "path"),
        skill=record.name,
        args=script_args,
        env=env,
        workdir=_optional_str(RUN_SCRIPT, args, "workdir"),
    )
    if session.running_scripts >= config.max_concurrent_scripts:
        raise TooManyRunsError(
            f"{config.max_concurrent_scripts} script(s) of this session are already running, "
            "the most this server allows at once; wait for one to finish, then call again"
        )
    session.running_scripts += 1
    try:
        result = (await run_script(command, config.limits)).to_wire()
    finally:
        session.running_scripts -= 1
    return ToolOutcome(result, (_json(result),))


def _resource_limits(limits: ScriptLimits) -> str:
    """The CPU, memory and process limits, as the run tool's description states them."""
    parts = []
    if limits.cpu_seconds is not None:
        parts.append(f"{limits.cpu_seconds} s of CPU time per process")
    if limits.memory_bytes is not None:
        parts.append(f"{limits.memory_bytes // (1024 * 1024)} MiB of memory per process")
    if limits.processes is not None:
        parts.append(f"{limits.processes} processes")
    return f" and {', '.join(parts)}" if parts else ""


def _only(tool: str, args: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(args) - allowed)
    if extra:
        raise ToolArgumentsError(
            f"{tool}: unexpected argument(s) {', '.join(extra)}; it takes "
            f"{', '.join(sorted(allowed))}"
        )


def _required(tool: str, args: dict[str, Any], key: str) -> Any:
    if args.get(key) is None:
        raise ToolArgumentsError(f"{tool}: the argument '{key}' is required")
    return args[key]


def _required_str(tool: str, args: dict[str, Any], key: str) -> str:
    value = _required(tool, args, key)
    if not isinstance(value, str):
        raise ToolArgumentsError(f"{tool}: '{key}' must be a string, not {value!r}")
    return value


def _optional_str(tool: str, args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolArgumentsError(f"{tool}: '{key}' must be a string, not {value!r}")
    return value


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)

"""SKILL.md of a built skill: frontmatter from the definition, a body that teaches an
agent how to drive ``scripts/run`` (or the MCP tools) through the workflow.

The body is written for the agent, not the author: what the skill does, how to call it
(MCP first, then the command line in the chosen protocol), where ``scripts/run`` is, the
parameters with an example, the steps, sub-skills, topics and reference files. An
author's ``skill_md=`` replaces the body (or, when it brings its own frontmatter, the
whole file).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skillkit_core.build import frontmatter
from skillkit_core.definitions import (
    Branch,
    ReferenceDefinition,
    SkillDefinition,
    StepDefinition,
    Terminal,
)
from skillkit_core.errors import BuildError
from skillkit_core.hosts import Handshake
from skillkit_core.manifest.spec import SPEC_KEYS

if TYPE_CHECKING:
    from skillkit_core.engine.graph import SkillGraph
from skillkit_core.protocol.mcp_tools import SkillTools

Definition = SkillDefinition | ReferenceDefinition
Protocol = str  # "session" or "stateless"

_TEXT = json.JSONEncoder(ensure_ascii=False)
"""The encoder of the JSON examples SKILL.md shows, made before a skill's module is
imported: one that rebinds ``json.dumps`` (to indent) must not change them."""

NO_VERSION = "0.0.0"

# Optional frontmatter fields: (SkillMeta attribute, SKILL.md key), in the order written.
_OPTIONAL_FIELDS = (
    ("license", "license"),
    ("compatibility", "compatibility"),
    ("argument_hint", "argument-hint"),
    ("arguments", "arguments"),
    ("paths", "paths"),
    ("context", "context"),
    ("agent", "agent"),
    ("model", "model"),
    ("effort", "effort"),
    ("disable_model_invocation", "disable-model-invocation"),
    ("user_invocable", "user-invocable"),
)


@dataclass(frozen=True)
class SkillMd:
    """The generated file and the frontmatter keys it holds outside the spec."""

    text: str
    extension_keys: tuple[str, ...]


def full_description(definition: Definition) -> str:
    """The description with the author's ``triggers`` appended."""
    description = (definition.meta.description or "").strip()
    triggers = [t.strip() for t in definition.meta.triggers if t.strip()]
    if triggers:
        joiner = " " if description.endswith((".", "!", "?")) or not description else ". "
        description = f"{description}{joiner}Use it for: {', '.join(triggers)}."
    return description.strip()


def default_allowed_tools(definition: Definition) -> list[str]:
    """The tools an agent needs to drive the skill: ``scripts/run`` through Bash (by the
    relative path and by an absolute path ending in the skill's folder), ``Read`` for
    session files and references, and the skill's MCP tools."""
    name = definition.name
    tools = ["Bash(scripts/run *)", f"Bash(*/{name}/scripts/run *)", "Read"]
    for tool in mcp_tool_names(definition):
        tools.append(f"mcp__{name}__{tool}")
    return tools


def split_tools(text: str) -> list[str]:
    """Tool entries of an ``allowed-tools`` string: separated by spaces or commas outside
    parentheses, so ``Bash(git diff *)`` stays one entry."""
    entries: list[str] = []
    depth, current = 0, ""
    for char in text + " ":
        depth += (char == "(") - (char == ")" and depth > 0)
        if depth == 0 and (char.isspace() or char == ","):
            if current:
                entries.append(current)
            current = ""
        else:
            current += char
    return entries


def mcp_tool_names(definition: Definition) -> list[str]:
    """The MCP tools ``scripts/run mcp`` serves for this skill: the names its server
    lists (the server's own decision, not a copy of it)."""
    return [spec.name for spec in SkillTools(definition, Handshake()).specs()]


def frontmatter_fields(definition: Definition, version: str) -> list[tuple[str, Any]]:
    """``(key, value)`` pairs of the frontmatter, in the order written."""
    meta = definition.meta
    fields: list[tuple[str, Any]] = [
        ("name", definition.name),
        ("description", full_description(definition)),
    ]
    for attribute, key in _OPTIONAL_FIELDS[:2]:
        value = getattr(meta, attribute)
        if value is not None:
            fields.append((key, value))
    if version and version != NO_VERSION:
        fields.append(("metadata", {"version": version}))
    author_tools = [tool for text in meta.allowed_tools for tool in split_tools(text)]
    tools = list(dict.fromkeys([*author_tools, *default_allowed_tools(definition)]))
    fields.append(("allowed-tools", tools))
    for attribute, key in _OPTIONAL_FIELDS[2:]:
        value = getattr(meta, attribute)
        if value is None or value == ():
            continue
        fields.append((key, value if isinstance(value, str | bool) else list(value)))
    return fields


def render_skill_md(
    definition: Definition,
    *,
    version: str,
    protocol: Protocol = "session",
    references: Sequence[str] = (),
) -> SkillMd:
    """SKILL.md for ``definition``; ``references`` are the copied files under
    ``references/`` (relative names)."""
    fields = frontmatter_fields(definition, version)
    extension = tuple(key for key, _ in fields if key not in SPEC_KEYS)
    head = frontmatter.render(fields)
    custom = _custom(definition)
    if custom is not None:
        if custom.lstrip().startswith("---"):
            return SkillMd(_ending(custom), _keys_outside_spec(custom))
        return SkillMd(head + "\n" + _ending(custom.strip("\n")), extension)
    body = render_body(definition, protocol=protocol, references=references)
    return SkillMd(head + "\n" + body, extension)


def _custom(definition: Definition) -> str | None:
    override = definition.meta.skill_md
    if override is None:
        return None
    if callable(override):
        try:
            text = override(definition)
        except Exception as error:
            raise BuildError(
                f"skill '{definition.name}': skill_md= raised {type(error).__name__}: {error}"
            ) from None
    else:
        text = override
    if not isinstance(text, str) or not text.strip():
        raise BuildError(
            f"skill '{definition.name}': skill_md= must give the SKILL.md text (a non-empty "
            f"string); got {type(text).__name__}"
        )
    return text


def _keys_outside_spec(text: str) -> tuple[str, ...]:
    from skillkit_core.manifest import parse_skill_md

    parsed = parse_skill_md(text)
    return tuple(key for key in parsed.fields if key not in SPEC_KEYS)


def _ending(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


# -- the body ------------------------------------------------------------------------------


def render_body(
    definition: Definition, *, protocol: Protocol = "session", references: Sequence[str] = ()
) -> str:
    """The Markdown body of the generated SKILL.md."""
    parts = [f"# {definition.name}\n", full_description(definition) + "\n"]
    if isinstance(definition, ReferenceDefinition):
        parts += _reference_usage(definition)
    else:
        parts += _workflow_usage(definition, protocol)
        parts += _parameters(definition)
        parts += _steps(definition)
        parts += _subskills(definition)
        parts += _topics(definition)
    parts += _reference_files(references)
    return "\n".join(parts)


def _location_note(name: str) -> str:
    return (
        f"`scripts/run` is in this skill's folder, the folder that holds this SKILL.md. "
        f"Always call it by its absolute path, for example "
        f"`/home/me/.claude/skills/{name}/scripts/run`: your working directory stays the "
        f"user's project, which is what the skill works on. Never run the files in `bin/` "
        f"directly. Below, `RUN` stands for that absolute path."
    )


def _workflow_usage(definition: SkillDefinition, protocol: Protocol) -> list[str]:
    name = definition.name
    topic_tool = (
        ", and `topics` to list the topics and `topic` to read one" if definition.topics else ""
    )
    parts = [
        "## How to run it\n",
        "This skill is a workflow run by a small program. It gives you one step at a time: "
        "do what the step's prompt asks, then answer with JSON that matches the step's "
        "schema. The program decides what comes next; do not skip, reorder or invent "
        "steps. The first prompt comes with a preamble that says how to handle the XML "
        "tags in prompts (which of your tools to use for each); follow it for the whole "
        "run.\n",
        _location_note(name) + "\n",
        "### With the MCP tools (preferred)\n",
        f"If you have the tools `mcp__{name}__start` and `mcp__{name}__advance`{topic_tool}:\n",
        '1. Call `start` with `{"params": PARAMS}` (see Parameters).\n'
        "2. The result holds `session`, `step`, `prompt` and `schema`. Do what `prompt` "
        "says.\n"
        '3. Call `advance` with `{"session": …, "step": …, "output": …}`; `output` '
        "matches `schema`.\n"
        "4. Repeat until `status` is `done`: `finalOutput` is the result. When `status` "
        "is `error` and `retry` is true, correct your output and call `advance` again.\n",
        "The tools come from the MCP server `RUN mcp --host HOST` (stdio); add it to "
        "your MCP settings to get them.\n",
    ]
    if protocol == "stateless":
        parts += _stateless_usage(name)
    else:
        parts += _session_usage(name)
    parts.append(
        "`HOST` names your agent so prompts refer to your own tools: "
        f"{_host_ids()} (anything else counts as `generic`). A subagent adds "
        "`--subagent --tools A,B` with the tools it really has.\n"
    )
    return parts


def _session_usage(name: str) -> list[str]:
    return [
        "### From the command line\n",
        "1. Start a session: `RUN start --params 'PARAMS' --host HOST --session new`. It "
        'prints `{"sessionId": …, "file": …, "line": N}`.\n'
        "2. Read line N of `file` (a JSON object): do what its `prompt` says; `schema` is "
        "the shape of your answer.\n"
        "3. Append your answer to `file` as one line: "
        '`{"type":"output","step":"STEP","output":{…}}`.\n'
        "4. Run `RUN advance --session SESSION_ID`. It prints the number of the next line "
        "to read.\n"
        '5. Repeat from 2 until that line has `"type":"done"`: its `finalOutput` is the '
        'result. A line with `"type":"error"` answers your output line: read `message`; '
        'with `"retry":true`, append a corrected output line and advance again. If '
        '`advance` prints a JSON error instead of a line number: with `"retry":true`, do '
        "what its `message` says and advance again; otherwise the session itself cannot be "
        "used (unknown id, damaged file): start a new one.\n"
        "6. When you are done with a session, `RUN cleanup --session SESSION_ID` removes its "
        "files.\n",
        _large_json_note("--params"),
    ]


def _stateless_usage(name: str) -> list[str]:
    return [
        "### From the command line\n",
        "1. Start: `RUN start --params 'PARAMS' --host HOST`. It prints one JSON result: "
        '`{"kind": "prompt", "step": …, "prompt": …, "schema": …}`.\n'
        "2. Do what `prompt` says, then submit your answer with every earlier step's "
        "record: `RUN advance --step STEP --output 'ANSWER' --params 'PARAMS' --history "
        "'HISTORY' --host HOST`. `HISTORY` is a JSON array of every `completed` object "
        "and every `autoAdvanced` entry you have received so far, in order (`[]` on the "
        "first advance).\n"
        '3. Repeat until the result has `"kind": "done"`: its `finalOutput` is the result. '
        'A result with `"kind": "error"` and `"retry": true` means a corrected call can '
        "succeed: read `message` and submit a corrected answer.\n",
        _large_json_note("--output"),
    ]


def _large_json_note(flag: str) -> str:
    return (
        "JSON that holds an apostrophe (it cannot stand inside '…' in a shell) or is larger "
        f"than about 100 KB goes in a file: `{flag} @FILE` (every JSON flag takes `@FILE`, "
        "or `-` for standard input).\n"
    )


def _host_ids() -> str:
    from skillkit_core.hosts import HOSTS

    return ", ".join(f"`{host.id}`" for host in HOSTS)


def _reference_usage(definition: ReferenceDefinition) -> list[str]:
    name = definition.name
    lines = [
        "## How to use it\n",
        "This skill is reference material split into topics. Read only the topics the "
        "task needs.\n",
        _location_note(name) + "\n",
        f"- With MCP tools: `mcp__{name}__topics` lists the topics, `mcp__{name}__topic` "
        'with `{"name": TOPIC}` returns one (the server is `RUN mcp`).\n'
        "- From the command line: `RUN topics` prints one `name: label` line per topic; "
        "`RUN topic TOPIC` prints one topic.\n",
        "## Topics\n",
        _topic_list(definition.topics),
    ]
    return lines


def _topic_list(topics: Sequence[Any]) -> str:
    return "\n".join(f"- `{t.name}`: {t.label}" for t in topics) + "\n"


def _parameters(definition: SkillDefinition) -> list[str]:
    if definition.params is None:
        return [
            "## Parameters\n",
            "This skill takes no parameters: pass `--params '{}'` (or leave the flag out).\n",
        ]
    schema = definition.params.json_schema()
    rows = parameter_rows(schema)
    if not rows:
        return ["## Parameters\n", "Pass a JSON object as `--params`.\n"]
    table = [
        "| Name | Type | Required | Default | Description |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        table.append("| " + " | ".join(_cell(value) for value in row) + " |")
    example = _TEXT.encode(example_params(schema))
    return [
        "## Parameters\n",
        "`PARAMS` is a JSON object with these fields:\n",
        "\n".join(table) + "\n",
        f"Example: `--params '{_shell_single(example)}'`\n",
    ]


def parameter_rows(schema: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """One (name, type, required, default, description) row per top-level property."""
    required = set(schema.get("required", ()))
    rows = []
    for name, prop in (schema.get("properties") or {}).items():
        default = _TEXT.encode(prop["default"]) if "default" in prop else "—"
        rows.append(
            (
                f"`{name}`",
                type_label(prop, schema),
                "yes" if name in required else "no",
                default if name not in required else "—",
                str(prop.get("description", "")),
            )
        )
    return rows


def type_label(prop: dict[str, Any], root: dict[str, Any]) -> str:
    """A short human name for a JSON Schema type: ``string``, ``"a" or "b"``, ``list of
    integer``, ``Address``..."""
    prop = _resolve(prop, root)
    if "const" in prop:
        return _TEXT.encode(prop["const"])
    if "enum" in prop:
        return " or ".join(_TEXT.encode(v) for v in prop["enum"])
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return " or ".join(dict.fromkeys(type_label(p, root) for p in prop[key]))
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items")
        return f"list of {type_label(items, root)}" if items else "list"
    if kind == "object" and prop.get("title"):
        return str(prop["title"])
    if isinstance(kind, list):
        return " or ".join(kind)
    return str(kind or "any")


def example_params(schema: dict[str, Any]) -> dict[str, Any]:
    """A plausible ``--params`` object: defaults where given, else a value of the type."""
    example: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        if prop.get("default") is not None:
            example[name] = prop["default"]
        else:
            example[name] = _example_value(prop, schema, name)
    return example


def _example_value(prop: dict[str, Any], root: dict[str, Any], name: str, depth: int = 0) -> Any:
    prop = _resolve(prop, root)
    if depth > 4:
        return None
    if "const" in prop:
        return prop["const"]
    if prop.get("enum"):
        return prop["enum"][0]
    for key in ("anyOf", "oneOf"):
        options = [p for p in prop.get(key, ()) if _resolve(p, root).get("type") != "null"]
        if options:
            return _example_value(options[0], root, name, depth + 1)
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    simple = {"string": name.replace("_", " "), "integer": 1, "number": 1.5, "boolean": True}
    if kind in simple:
        return simple[kind]
    if kind == "array":
        items = prop.get("items")
        return [_example_value(items, root, name, depth + 1)] if items else []
    if kind == "object":
        return {
            key: _example_value(value, root, key, depth + 1)
            for key, value in (prop.get("properties") or {}).items()
            if key in set(prop.get("required", ()))
        }
    return None


def _resolve(prop: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    reference = prop.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        return root.get("$defs", {}).get(reference.rpartition("/")[2], prop)
    return prop


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _shell_single(text: str) -> str:
    return text.replace("'", "'\\''")


def _steps(definition: SkillDefinition) -> list[str]:
    from skillkit_core.engine.graph import analyze

    graph = analyze(definition)
    lines = []
    for index, step in enumerate(definition.steps.values(), start=1):
        lines.append(f"{index}. {_step_line(step, graph)}")
    intro = (
        f"The workflow starts at `{definition.entry}`. You see one step at a time; this "
        "list is only the map:\n"
    )
    return ["## Steps\n", intro, "\n".join(lines) + "\n"]


def _step_line(step: StepDefinition, graph: SkillGraph) -> str:
    if not step.has_prompt:
        what = "runs by itself (no answer from you)"
    elif step.response is None:
        what = "needs no structured answer (submit `{}`)"
    else:
        fields = _fields(step.response.json_schema())
        what = f"answer with {fields}" if fields else "answer with JSON"
    guard = f", at most {step.max_visits} times" if step.max_visits else ""
    line = f"`{step.name}`: {what}{guard}; then {_next_label(step, graph)}"
    if step.on_max_visits is not None:
        line += f"; once the visit limit is reached, {_target_label(step.on_max_visits)}"
    return line + "."


def _fields(schema: dict[str, Any]) -> str:
    names = list((schema.get("properties") or {}).keys())
    return ", ".join(f"`{n}`" for n in names)


def _next_label(step: StepDefinition, graph: SkillGraph) -> str:
    spec = step.next
    if isinstance(spec, Terminal):
        return "the workflow ends"
    if isinstance(spec, str):
        return _target_label(spec)
    if isinstance(spec, tuple) and all(isinstance(b, Branch) for b in spec):
        targets = list(dict.fromkeys(_target_label(b.to) for b in spec))
        return " or ".join(targets)
    # A callable: the targets the shared graph analysis reads from its code.
    found = [
        edge.target for edge in graph.edges if edge.source == step.name and edge.kind == "dynamic"
    ]
    targets = list(dict.fromkeys([*found, *graph.routes.get(step.name, ())]))
    if not targets or step.name in graph.opaque:
        return "the workflow decides"
    labels = [_target_label(t) for t in targets]
    if len(labels) == 1:
        return labels[0]
    return f"{', '.join(labels[:-1])} or {labels[-1]}, as the workflow decides"


def _target_label(target: str) -> str:
    if target == "self":
        return "the same step again"
    if target.startswith("subskill:"):
        return f"the sub-skill `{target.partition(':')[2]}`"
    if target.startswith("topic:"):
        return f"the topic `{target.partition(':')[2]}`"
    return f"`{target}`"


def _subskills(definition: SkillDefinition) -> list[str]:
    if not definition.subskills:
        return []
    items = "\n".join(
        f"- `{sub.name}`: {_sentence(sub.definition.description or 'no description')}"
        + _direct_start(sub.name, sub.definition)
        for sub in definition.subskills
    )
    return [
        "## Sub-skills\n",
        "The workflow can hand over to one of these. Their steps are named "
        "`SUBSKILL/STEP` (answer them like any other step). To start one directly, put its "
        "name before the command: `RUN SUBSKILL start …`, `RUN SUBSKILL advance …`.\n",
        items + "\n",
    ]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _direct_start(name: str, definition: SkillDefinition) -> str:
    """How to start a sub-skill directly, with the params it requires."""
    if definition.params is None:
        return f" Start it directly: `RUN {name} start`."
    schema = definition.params.json_schema()
    example = _TEXT.encode(example_params(schema))
    return f" Start it directly: `RUN {name} start --params '{_shell_single(example)}'`."


def _topics(definition: SkillDefinition) -> list[str]:
    if not definition.topics:
        return []
    return [
        "## Topics\n",
        "Reference topics the workflow may end in, readable any time: `RUN topics` lists "
        "them, `RUN topic TOPIC` prints one (MCP: the `topic` tool). A run that ends in a "
        'topic finishes with `finalOutput` `{"topic": NAME, "content": TEXT}`: read the '
        "content and use it to answer the user.\n",
        _topic_list(definition.topics),
    ]


def _reference_files(references: Sequence[str]) -> list[str]:
    if not references:
        return []
    items = "\n".join(f"- [references/{name}](references/{name})" for name in references)
    return [
        "## Reference files\n",
        "Background the skill reads from; open one only when a step or topic needs it:\n",
        items + "\n",
    ]

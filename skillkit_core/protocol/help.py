"""``--help`` texts, per subcommand (printed to stderr; stdout stays for results)."""

from __future__ import annotations

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.protocol.args import ALLOWED, FLAGS

Definition = SkillDefinition | ReferenceDefinition

_SUMMARIES = {
    "start": "Start a run and print the first prompt (the default subcommand).",
    "advance": "Submit the output of the current step and print what comes next.",
    "cleanup": "Remove a session's files (--session ID), or every finished one (--all).",
    "mcp": "Serve this skill over MCP on stdio (one tool call per step or topic).",
    "topics": "List the topics, one 'name: label' line each.",
    "topic": "Print the content of one topic.",
}

_USAGE = {
    "start": "start [--params JSON] [--host HOST] [--tools A,B] [--subagent] "
    "[--session new [--session-dir DIR] [--output-mode file|flag]]",
    "advance": "advance --step STEP --output JSON --history JSON [--params JSON] [--host HOST] "
    "[--tools A,B] [--subagent]\n       advance --session ID [--session-dir DIR] "
    "[--step STEP --output JSON]",
    "cleanup": "cleanup --session ID | --all [--session-dir DIR]",
    "mcp": "mcp [--host HOST] [--tools A,B] [--subagent]",
    "topics": "topics",
    "topic": "topic NAME",
}

_NOTES = {
    "start": (
        "Stateless: prints one JSON result (kind prompt, done or error). With --session new\n"
        "it prints {sessionId, file, line}: read that line of the file for the prompt."
    ),
    "advance": (
        "Stateless: pass the history of every completed and autoAdvanced entry so far.\n"
        'Session (file mode): append {"type":"output","step":S,"output":O} as one line\n'
        "to the session file, then call advance --session ID; it prints the line to read,\n"
        "an error about your output included. JSON flags take @FILE or - (stdin) as well.\n"
        "Exit codes: 0 for prompt, done and validation errors (and in a session for every\n"
        "answer written to the file); 1 otherwise."
    ),
    "cleanup": (
        "Prints {removed: [ID…], files: [PATH…]}; a session already gone is not an error.\n"
        "--all removes only the sessions of this skill whose run has finished."
    ),
    "mcp": "Tools: start {params?}, advance {session, step, output}; topic(s) where defined.",
    "topics": "",
    "topic": "An unknown NAME is an error result (exit 1).",
}


def help_text(definition: Definition, topic: str | None, subskill: str | None = None) -> str:
    """The help for ``topic`` (a subcommand), or the overview when ``topic`` is None."""
    if topic is None:
        return _overview(definition)
    prefix = f"{subskill} " if subskill else ""
    lines = [f"usage: scripts/run {prefix}{_USAGE[topic]}", "", _SUMMARIES[topic]]
    if subskill:
        lines.append(
            f"Runs sub-skill '{subskill}' directly (its own params); its steps are named "
            f"{subskill}/STEP."
        )
    if _NOTES[topic]:
        lines += ["", _NOTES[topic]]
    flags = ALLOWED[topic]
    if flags:
        lines += ["", "flags:"]
        for name in flags:
            flag = FLAGS[name]
            shown = f"--{name}" if flag.boolean else f"--{name} {flag.metavar}"
            lines.append(f"  {shown:<26} {flag.help}")
    lines.append("  --help                     show this help")
    return "\n".join(lines) + "\n"


def _overview(definition: Definition) -> str:
    kind = "reference skill" if isinstance(definition, ReferenceDefinition) else "skill"
    about = f": {definition.description}" if definition.description else ""
    lines = [f"{definition.name} ({kind}){about}", ""]
    lines.append("usage: scripts/run [SUBCOMMAND] [FLAGS]   (SUBCOMMAND --help for details)")
    lines += ["", "subcommands:"]
    if isinstance(definition, SkillDefinition):
        commands = ["start", "advance", "cleanup", "mcp"]
        if definition.topics:
            commands += ["topics", "topic"]
    else:
        commands = ["topics", "topic", "mcp"]
    for command in commands:
        lines.append(f"  {command:<22} {_SUMMARIES[command]}")
    if isinstance(definition, SkillDefinition):
        for sub in definition.subskills:
            lines.append(
                f"  {sub.name + ' [start|advance]':<22} Run sub-skill '{sub.name}' directly."
            )
        lines += ["", f"steps: {', '.join(definition.steps)}"]
        for sub in definition.subskills:
            lines.append(f"  {sub.name}/: {', '.join(sub.definition.steps)}")
    if definition.topics:
        lines += ["", "topics:"]
        lines += [f"  {t.name}: {t.label}" for t in definition.topics]
    return "\n".join(lines) + "\n"

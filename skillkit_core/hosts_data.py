"""The host inventory, as data: every name here was read in the host's own source or
documentation, and each one points at the place it was read.

One entry per host. Adding or correcting a host is editing its entry; ``hosts.py`` loads
this module (plain literals, so ``scripts/run`` pays only for unpickling a small code
object) and the tests check that every name has its evidence.

Keys of an entry:

- ``id``, ``name``: the ``--host`` value and the display name;
- ``version``: the host version (or branch and date) the names were read from;
- ``sources``: evidence, by key: a repository file at a commit
  (``{"repo", "path", "commit"}``) or a documentation page (``{"url", "date"}``, the
  date of the stored copy that was read), optionally with ``"facts"`` saying what was
  read there (in our words);
- ``tools``: the model-facing tool names, each with the key of its source;
- ``renamed``: an older name the host used for a tool, with the current name and the
  source of the older name (``--tools`` lists from older versions still match);
- ``retired`` (optional): names of tools the host once had and removed, with their
  source (still known names, so a guard or an allowed-tools entry on one is no typo);
- ``tags``: for each primitive tag, the host's tools that do its job (in order of
  preference) and a note the preamble adds (for instance a tool that must be enabled
  first), or ``None`` when the host has no such tool and the agent works in plain
  conversation;
- ``detect``: environment variables the host is documented (or seen in its source) to
  set for the commands it runs, as ``(variable, source key)``, checked in
  ``DETECT_ORDER``;
- ``no_names``: why the entry lists no names (only for hosts without any).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

READ_ON = "2026-11-25"

TAGS = ("ask-user", "confirm", "plan", "checklist", "subagent", "survey")

_NONE: dict[str, Any] = dict.fromkeys(TAGS)

CLAUDE_CODE: dict[str, Any] = {
    "id": "claude-code",
    "name": "Claude Code",
    "version": "2.1.332 (its bundled source, npm, 2026-11-29); anthropics/claude-code "
    "CHANGELOG at 5cfc0a19 (2026-08-22); tools reference as stored on 2026-03-25",
    "sources": {
        "tools-reference": {
            "url": "https://code.claude.com/docs/en/tools-reference",
            "date": "2026-03-25",
            "facts": "the built-in tool names, as used in permission rules and hooks",
        },
        "sdk-todo-tracking": {
            "url": "https://docs.claude.com/en/docs/claude-code/sdk/todo-tracking",
            "date": READ_ON,
            "facts": "the SDK's task list tool is TodoWrite",
        },
        "bundled-source": {
            "url": "https://www.npmjs.com/package/@anthropic-ai/claude-code",
            "date": "2026-11-29",
            "facts": "2.1.332's native binary embeds its JavaScript: the list of its tool "
            "names, the older names it still maps to current ones, and the names it has "
            "retired",
        },
        "changelog": {
            "repo": "anthropics/claude-code",
            "path": "CHANGELOG.md",
            "commit": "5cfc0a1905ce0c0a9bd81d8a90fe6b62ff614357",
            "facts": "the task tools (TaskCreate/Get/Update/List, TodoWrite) are left out "
            "on Opus 4.8, Sonnet 5 and newer models unless CLAUDE_CODE_ENABLE_TODO_TOOLS=1; "
            "the subagent tool was once Task (Task(agent_type) rules), Read once View; "
            "TeamCreate and TeamDelete were removed; "
            "stdio MCP servers it starts get CLAUDECODE=1",
        },
    },
    "tools": {
        "Agent": "tools-reference",
        "AskUserQuestion": "tools-reference",
        "Bash": "tools-reference",
        "CronCreate": "tools-reference",
        "CronDelete": "tools-reference",
        "CronList": "tools-reference",
        "Edit": "tools-reference",
        "EnterPlanMode": "tools-reference",
        "EnterWorktree": "tools-reference",
        "ExitPlanMode": "tools-reference",
        "ExitWorktree": "tools-reference",
        "Glob": "tools-reference",
        "Grep": "tools-reference",
        "ListMcpResourcesTool": "tools-reference",
        "LSP": "tools-reference",
        "NotebookEdit": "tools-reference",
        "Read": "tools-reference",
        "ReadMcpResourceTool": "tools-reference",
        "Skill": "tools-reference",
        "TaskCreate": "tools-reference",
        "TaskGet": "changelog",
        "TaskUpdate": "changelog",
        "TaskList": "changelog",
        "TodoWrite": "sdk-todo-tracking",
        "Write": "changelog",
        "WebFetch": "changelog",
        "WebSearch": "changelog",
        "PowerShell": "changelog",
        "SendMessage": "changelog",
        "ListAgents": "changelog",
        "ToolSearch": "changelog",
        "Monitor": "changelog",
        "TaskStop": "changelog",
        "EndConversation": "changelog",
        "RemoteTrigger": "changelog",
        **dict.fromkeys(
            (
                "Artifact",
                "ClaudeDesign",
                "OfferChromeSetup",
                "Projects",
                "PushNotification",
                "ReadMcpResourceDirTool",
                "ReadNotifications",
                "ReportFindings",
                "ScheduleWakeup",
                "SendFeedback",
                "SendUserFile",
                "SendUserMessage",
                "SetGoal",
                "ShareOnboardingGuide",
                "ShowOnboardingRolePicker",
                "SubagentHandback",
                "WaitForMcpServers",
                "Workflow",
                "propose_skills",
            ),
            "bundled-source",
        ),
    },
    "renamed": {
        "Task": ("Agent", "changelog"),
        "View": ("Read", "changelog"),
        "KillShell": ("TaskStop", "bundled-source"),
        "KillBash": ("TaskStop", "bundled-source"),
        "ListPeers": ("ListAgents", "bundled-source"),
        "Brief": ("SendUserMessage", "bundled-source"),
        "ListMcpResources": ("ListMcpResourcesTool", "bundled-source"),
        "ReadMcpResource": ("ReadMcpResourceTool", "bundled-source"),
        "ReadMcpResourceDir": ("ReadMcpResourceDirTool", "bundled-source"),
        "ProposeGoal": ("SetGoal", "bundled-source"),
    },
    "retired": {
        "TeamCreate": "changelog",
        "TeamDelete": "changelog",
        **dict.fromkeys(
            (
                "TaskOutput",
                "AgentOutputTool",
                "BashOutputTool",
                "AgentOutput",
                "BashOutput",
                "Frame",
                "FrameRead",
                "SuggestBackgroundPR",
                "AutofixPr",
                # In no tool list of 2.1.332: LS only in a legacy permission set,
                # SlashCommand never a tool's name there.
                "LS",
                "SlashCommand",
            ),
            "bundled-source",
        ),
    },
    "tags": {
        "ask-user": {"tools": ("AskUserQuestion",), "note": None},
        "confirm": {"tools": ("AskUserQuestion",), "note": None},
        "plan": {
            "tools": ("ExitPlanMode",),
            "note": "It presents the plan for approval from plan mode; outside plan mode, "
            "switch in with EnterPlanMode first.",
        },
        "checklist": {
            "tools": ("TaskCreate", "TodoWrite"),
            "note": "Claude Code leaves its task tools out on its newest models unless "
            "CLAUDE_CODE_ENABLE_TODO_TOOLS=1; if you do not have it, use a markdown "
            "checklist.",
        },
        "subagent": {"tools": ("Agent",), "note": None},
        "survey": {"tools": ("AskUserQuestion",), "note": None},
    },
    "detect": (("CLAUDECODE", "changelog"),),
}

CODEX: dict[str, Any] = {
    "id": "codex",
    "name": "Codex CLI",
    "version": "openai/codex main (codex-rs), files as stored at the commits cited",
    "sources": {
        "request-user-input": {
            "repo": "openai/codex",
            "path": "codex-rs/tools/src/request_user_input_tool.rs",
            "commit": "4275ad2b58d8c365f1568777ef01e59f516beee8",
            "facts": "request_user_input: one to three questions, each with options; "
            "offered only in the collaboration modes that allow it",
        },
        "plan-tool": {
            "repo": "openai/codex",
            "path": "codex-rs/tools/src/plan_tool.rs",
            "commit": "4275ad2b58d8c365f1568777ef01e59f516beee8",
            "facts": "update_plan: steps with a status each",
        },
        "agent-tool": {
            "repo": "openai/codex",
            "path": "codex-rs/tools/src/agent_tool.rs",
            "commit": "0eab4f86310adb69381252b57ef43fe20b18ac70",
            "facts": "the multi-agent tools",
        },
        "registry-plan": {
            "repo": "openai/codex",
            "path": "codex-rs/tools/src/tool_registry_plan.rs",
            "commit": "107b75aedb8c75dff1bb3fdac399df55a72bf62f",
            "facts": "which tools are registered, and under which settings",
        },
        "features": {
            "repo": "openai/codex",
            "path": "codex-rs/features/src/lib.rs",
            "commit": "5fb56e2cf1385de438c220cb2a555a7d9e8bf675",
            "facts": "multi_agent is stable and on by default; "
            "default_mode_request_user_input is under development and off",
        },
        "shell-environment": {
            "repo": "openai/codex",
            "path": "codex-rs/protocol/src/shell_environment.rs",
            "commit": "09c8e31c90a3285e6ee56a9a95992763bac470b2",
            "facts": "CODEX_THREAD_ID is put in the environment of the commands it runs",
        },
    },
    "tools": {
        "request_user_input": "request-user-input",
        "update_plan": "plan-tool",
        "spawn_agent": "agent-tool",
        "send_input": "agent-tool",
        "send_message": "agent-tool",
        "resume_agent": "agent-tool",
        "wait_agent": "agent-tool",
        "close_agent": "agent-tool",
        "list_agents": "agent-tool",
        "shell": "registry-plan",
        "shell_command": "registry-plan",
        "local_shell": "registry-plan",
        "exec_command": "registry-plan",
        "write_stdin": "registry-plan",
        "apply_patch": "registry-plan",
        "view_image": "registry-plan",
        "list_dir": "registry-plan",
        "list_mcp_resources": "registry-plan",
        "list_mcp_resource_templates": "registry-plan",
        "read_mcp_resource": "registry-plan",
        "request_permissions": "registry-plan",
        "spawn_agents_on_csv": "registry-plan",
        "report_agent_job_result": "registry-plan",
    },
    "renamed": {},
    "tags": {
        "ask-user": {
            "tools": ("request_user_input",),
            "note": "Codex offers it in Plan mode (in Default mode only with the "
            "default_mode_request_user_input feature); without it, ask in chat.",
        },
        "confirm": {
            "tools": ("request_user_input",),
            "note": "Codex offers it in Plan mode (in Default mode only with the "
            "default_mode_request_user_input feature); without it, ask in chat.",
        },
        "plan": {"tools": ("update_plan",), "note": None},
        "checklist": {"tools": ("update_plan",), "note": None},
        "subagent": {"tools": ("spawn_agent",), "note": None},
        "survey": {
            "tools": ("request_user_input",),
            "note": "It takes at most three questions a call, and Codex offers it in Plan "
            "mode (in Default mode only with the default_mode_request_user_input "
            "feature); without it, ask in chat.",
        },
    },
    "detect": (("CODEX_THREAD_ID", "shell-environment"),),
}

GEMINI_CLI: dict[str, Any] = {
    "id": "gemini-cli",
    "name": "Gemini CLI",
    "version": "0.56.0-nightly.20260806 (main at 5411f113, 2026-08-21)",
    "sources": {
        "declarations": {
            "repo": "google-gemini/gemini-cli",
            "path": "packages/core/src/tools/definitions/base-declarations.ts",
            "commit": "5411f113cafae26161b4969b0237b8e1e024e2c2",
            "facts": "the built-in tool names",
        },
        "tool-names": {
            "repo": "google-gemini/gemini-cli",
            "path": "packages/core/src/tools/tool-names.ts",
            "commit": "5411f113cafae26161b4969b0237b8e1e024e2c2",
            "facts": "tracker and agent tool names; legacy aliases (search_file_content)",
        },
        "background-tools": {
            "repo": "google-gemini/gemini-cli",
            "path": "packages/core/src/tools/shellBackgroundTools.ts",
            "commit": "5411f113cafae26161b4969b0237b8e1e024e2c2",
            "facts": "the background process tools",
        },
        "config": {
            "repo": "google-gemini/gemini-cli",
            "path": "packages/core/src/config/config.ts",
            "commit": "5411f113cafae26161b4969b0237b8e1e024e2c2",
            "facts": "write_todos is registered only for Gemini 2 models that are not "
            "previews, with the task tracker off (setting useWriteTodos); the plan-mode "
            "tools when plan mode is enabled (the default); the tracker tools only when "
            "the tracker is enabled",
        },
        "shell-docs": {
            "repo": "google-gemini/gemini-cli",
            "path": "docs/tools/shell.md",
            "commit": "5411f113cafae26161b4969b0237b8e1e024e2c2",
            "facts": "run_shell_command sets GEMINI_CLI=1 for the commands it runs",
        },
    },
    "tools": {
        "ask_user": "declarations",
        "enter_plan_mode": "declarations",
        "exit_plan_mode": "declarations",
        "write_todos": "declarations",
        "activate_skill": "declarations",
        "run_shell_command": "declarations",
        "read_file": "declarations",
        "read_many_files": "declarations",
        "write_file": "declarations",
        "replace": "declarations",
        "glob": "declarations",
        "grep_search": "declarations",
        "list_directory": "declarations",
        "google_web_search": "declarations",
        "web_fetch": "declarations",
        "get_internal_docs": "declarations",
        "update_topic": "declarations",
        "complete_task": "declarations",
        "read_mcp_resource": "declarations",
        "list_mcp_resources": "declarations",
        "invoke_agent": "tool-names",
        "tracker_create_task": "tool-names",
        "tracker_update_task": "tool-names",
        "tracker_get_task": "tool-names",
        "tracker_list_tasks": "tool-names",
        "tracker_add_dependency": "tool-names",
        "tracker_visualize": "tool-names",
        "list_background_processes": "background-tools",
        "read_background_output": "background-tools",
    },
    "renamed": {"search_file_content": ("grep_search", "tool-names")},
    "tags": {
        "ask-user": {"tools": ("ask_user",), "note": None},
        "confirm": {"tools": ("ask_user",), "note": None},
        "plan": {
            "tools": ("exit_plan_mode",),
            "note": "It works in plan mode: call enter_plan_mode first, write the plan to "
            "a file, then present that file with exit_plan_mode for approval.",
        },
        "checklist": {
            "tools": ("write_todos",),
            "note": "Gemini CLI registers it only for Gemini 2 models with the task "
            "tracker off (setting useWriteTodos); if you do not have it, use a markdown "
            "checklist.",
        },
        "subagent": {"tools": ("invoke_agent",), "note": None},
        "survey": {"tools": ("ask_user",), "note": None},
    },
    "detect": (("GEMINI_CLI", "shell-docs"),),
}

OPENCODE: dict[str, Any] = {
    "id": "opencode",
    "name": "OpenCode",
    "version": "1.18.x (anomalyco/opencode, formerly sst/opencode, dev branch; files as "
    "stored at the commits cited)",
    "sources": {
        "registry": {
            "repo": "anomalyco/opencode",
            "path": "packages/opencode/src/tool/registry.ts",
            "commit": "010bc19e3dca6e1588fd4e7ae43fec84ad839389",
            "facts": "question is registered for the app, cli and desktop clients (or "
            "with the question-tool flag); plan_exit only with experimental plan mode in "
            "the cli client; lsp only with the experimental LSP tool flag; the file tools "
            "(read, glob, grep, edit, write, apply_patch), webfetch, websearch and skill "
            "always (websearch for some providers, apply_patch instead of edit and write "
            "for GPT models); each id is the one its tool file defines",
        },
        "question": {
            "repo": "anomalyco/opencode",
            "path": "packages/opencode/src/tool/question.ts",
            "commit": "08103a5dbdeee323c05f528b3e8e735c35aac62a",
        },
        "todo": {
            "repo": "anomalyco/opencode",
            "path": "packages/opencode/src/tool/todo.ts",
            "commit": "0fbbcdb58b83edf5ccf77b4aadaecd92b76a369f",
        },
        "task": {
            "repo": "anomalyco/opencode",
            "path": "packages/opencode/src/tool/task.ts",
            "commit": "005201e9a25c7b208937f9995c02c20c3b05b222",
            "facts": "task starts a subagent; an older version also had todoread",
        },
        "plan": {
            "repo": "anomalyco/opencode",
            "path": "packages/opencode/src/tool/plan.ts",
            "commit": "00937b92a3d7d378d71a0179c0836235ee882952",
        },
        "shell-id": {
            "repo": "anomalyco/opencode",
            "path": "packages/opencode/src/tool/shell/id.ts",
            "commit": "e29cac4be917487bd16603067bed324cd1c607fa",
            "facts": "the shell tool keeps the id bash",
        },
        "entry": {
            "repo": "anomalyco/opencode",
            "path": "packages/opencode/src/index.ts",
            "commit": "037d5081f151c43e44098be1fa7e7a1ebc419214",
            "facts": "OPENCODE=1 is set in the process environment, which the commands "
            "it runs inherit",
        },
    },
    "tools": {
        "question": "question",
        "todowrite": "todo",
        "task": "task",
        "plan_exit": "plan",
        "bash": "shell-id",
        "read": "registry",
        "glob": "registry",
        "grep": "registry",
        "edit": "registry",
        "write": "registry",
        "apply_patch": "registry",
        "webfetch": "registry",
        "websearch": "registry",
        "skill": "registry",
        "lsp": "registry",
    },
    "renamed": {},
    "retired": {"todoread": "task"},
    "tags": {
        "ask-user": {
            "tools": ("question",),
            "note": "OpenCode offers it in its app, CLI and desktop clients; elsewhere, "
            "ask in chat.",
        },
        "confirm": {
            "tools": ("question",),
            "note": "OpenCode offers it in its app, CLI and desktop clients; elsewhere, "
            "ask in chat.",
        },
        "plan": None,
        "checklist": {"tools": ("todowrite",), "note": None},
        "subagent": {"tools": ("task",), "note": None},
        "survey": {
            "tools": ("question",),
            "note": "OpenCode offers it in its app, CLI and desktop clients; elsewhere, "
            "ask in chat.",
        },
    },
    "detect": (("OPENCODE", "entry"),),
}

CLINE: dict[str, Any] = {
    "id": "cline",
    "name": "Cline",
    "version": "VS Code extension 4.1.13 (main at 21cb8d25, 2026-08-22)",
    "sources": {
        "sdk-tools": {
            "repo": "cline/cline",
            "path": "sdk/packages/core/src/extensions/tools/constants.ts",
            "commit": "21cb8d2525bcedf1f4b6890b27a74a14fe7451e4",
            "facts": "the SDK's default tool names, which the 4.x extension runs on",
        },
        "spawn-agent": {
            "repo": "cline/cline",
            "path": "sdk/packages/core/src/extensions/tools/team/spawn-agent-tool.ts",
            "commit": "21cb8d2525bcedf1f4b6890b27a74a14fe7451e4",
        },
        "session-host": {
            "repo": "cline/cline",
            "path": "apps/vscode/src/sdk/vscode-session-host.ts",
            "commit": "21cb8d2525bcedf1f4b6890b27a74a14fe7451e4",
            "facts": "ask_question is the SDK's counterpart of the classic ask_followup_question",
        },
        "translator": {
            "repo": "cline/cline",
            "path": "apps/vscode/src/sdk/message-translator.ts",
            "commit": "21cb8d2525bcedf1f4b6890b27a74a14fe7451e4",
            "facts": "the SDK tool names beside the classic ones they replace",
        },
        "classic-tools": {
            "repo": "cline/cline",
            "path": "apps/vscode/src/shared/tools.ts",
            "commit": "21cb8d2525bcedf1f4b6890b27a74a14fe7451e4",
            "facts": "the classic tool names",
        },
        "subagent-setting": {
            "repo": "cline/cline",
            "path": "apps/vscode/src/core/controller/state/updateSettings.ts",
            "commit": "21cb8d2525bcedf1f4b6890b27a74a14fe7451e4",
            "facts": "subagents are a setting, off unless turned on",
        },
    },
    "tools": {
        "ask_question": "sdk-tools",
        "read_files": "sdk-tools",
        "search_codebase": "sdk-tools",
        "run_commands": "sdk-tools",
        "fetch_web_content": "sdk-tools",
        "apply_patch": "sdk-tools",
        "editor": "sdk-tools",
        "skills": "sdk-tools",
        "submit_and_exit": "sdk-tools",
        "spawn_agent": "spawn-agent",
    },
    "renamed": {
        "ask_followup_question": ("ask_question", "session-host"),
        "read_file": ("read_files", "translator"),
        "execute_command": ("run_commands", "translator"),
        "replace_in_file": ("editor", "translator"),
        "search_files": ("search_codebase", "translator"),
        "web_fetch": ("fetch_web_content", "translator"),
        "use_skill": ("skills", "translator"),
        "use_subagents": ("spawn_agent", "translator"),
    },
    "tags": {
        "ask-user": {"tools": ("ask_question",), "note": None},
        "confirm": {"tools": ("ask_question",), "note": None},
        "plan": None,
        "checklist": None,
        "subagent": {
            "tools": ("spawn_agent",),
            "note": "Cline offers it only when subagents are turned on in its settings; "
            "otherwise do the task yourself.",
        },
        "survey": {
            "tools": ("ask_question",),
            "note": "It takes one question a call: ask the questions one after another.",
        },
    },
    "detect": (),
}

ROO_CODE: dict[str, Any] = {
    "id": "roo-code",
    "name": "Roo Code",
    "version": "3.52.1 (main at cb836567, 2026-04-14)",
    "sources": {
        "tool-names": {
            "repo": "RooCodeInc/Roo-Code",
            "path": "packages/types/src/tool.ts",
            "commit": "cb836567180a3ff1da6d082f3178b90c3bd22a70",
            "facts": "the tool names",
        },
        "ask-followup": {
            "repo": "RooCodeInc/Roo-Code",
            "path": "src/core/prompts/tools/native-tools/ask_followup_question.ts",
            "commit": "cb836567180a3ff1da6d082f3178b90c3bd22a70",
            "facts": "one question a call, with two to four suggested answers",
        },
        "aliases": {
            "repo": "RooCodeInc/Roo-Code",
            "path": "src/shared/tools.ts",
            "commit": "cb836567180a3ff1da6d082f3178b90c3bd22a70",
            "facts": "alias names the host resolves to its tools",
        },
        "todo-filter": {
            "repo": "RooCodeInc/Roo-Code",
            "path": "src/core/prompts/tools/filter-tools-for-mode.ts",
            "commit": "cb836567180a3ff1da6d082f3178b90c3bd22a70",
            "facts": "update_todo_list is left out when todoListEnabled is false",
        },
    },
    "tools": {
        "execute_command": "tool-names",
        "read_file": "tool-names",
        "read_command_output": "tool-names",
        "write_to_file": "tool-names",
        "apply_diff": "tool-names",
        "edit": "tool-names",
        "search_replace": "tool-names",
        "edit_file": "tool-names",
        "apply_patch": "tool-names",
        "search_files": "tool-names",
        "list_files": "tool-names",
        "use_mcp_tool": "tool-names",
        "access_mcp_resource": "tool-names",
        "ask_followup_question": "tool-names",
        "attempt_completion": "tool-names",
        "switch_mode": "tool-names",
        "new_task": "tool-names",
        "codebase_search": "tool-names",
        "update_todo_list": "tool-names",
        "run_slash_command": "tool-names",
        "skill": "tool-names",
        "generate_image": "tool-names",
    },
    "renamed": {
        "write_file": ("write_to_file", "aliases"),
        "search_and_replace": ("edit", "aliases"),
    },
    "tags": {
        "ask-user": {"tools": ("ask_followup_question",), "note": None},
        "confirm": {"tools": ("ask_followup_question",), "note": None},
        "plan": None,
        "checklist": {"tools": ("update_todo_list",), "note": None},
        "subagent": {"tools": ("new_task",), "note": None},
        "survey": {
            "tools": ("ask_followup_question",),
            "note": "It takes one question a call: ask the questions one after another.",
        },
    },
    "detect": (),
}

KILO_CODE: dict[str, Any] = {
    "id": "kilo-code",
    "name": "Kilo Code",
    "version": "Kilo CLI 7.5.x (the OpenCode-based Kilo, which its VS Code extension "
    "runs); files as stored at the commits cited",
    "sources": {
        "registry": {
            "repo": "Kilo-Org/kilocode",
            "path": "packages/opencode/src/tool/registry.ts",
            "commit": "06b55c18f5fac7875238c9ca9f6c642f0dcc6bb1",
            "facts": "the tools registered, and when: plan_exit always (its use is gated "
            "by the agent's permissions), lsp with the experimental LSP tool flag, batch "
            "with experimental.batch_tool",
        },
        "question": {
            "repo": "Kilo-Org/kilocode",
            "path": "packages/opencode/src/tool/question.ts",
            "commit": "320abab597c3330c464e63c213fc5f10fc2327ff",
        },
        "todo": {
            "repo": "Kilo-Org/kilocode",
            "path": "packages/opencode/src/tool/todo.ts",
            "commit": "b5220452062408ac7b8f215a532d9e4f0f372e64",
        },
        "task": {
            "repo": "Kilo-Org/kilocode",
            "path": "packages/opencode/src/tool/task.ts",
            "commit": "00fe8c03622daf2247d1e6715c5e415bbf82147c",
        },
        "package": {
            "repo": "Kilo-Org/kilocode",
            "path": "packages/opencode/package.json",
            "commit": "00b359619df4447d52aa292467d83239db9af719",
            "facts": "@kilocode/cli 7.5.11",
        },
        "legacy-tools": {
            "repo": "Kilo-Org/kilocode",
            "path": "packages/types/src/tool.ts",
            "commit": "0fc86cec2299b333cb21da87b649003b19319ecc",
            "facts": "the tool names of the earlier, Roo-based extension",
        },
        "entry": {
            "repo": "Kilo-Org/kilocode",
            "path": "packages/opencode/src/index.ts",
            "commit": "000a08d0440dc6257af4f191e2c2ff93da60c604",
            "facts": "sets KILOCODE_FEATURE when it is unset, and OPENCODE=1, in the "
            "process environment the commands it runs inherit",
        },
    },
    "tools": {
        "question": "question",
        "todowrite": "todo",
        "task": "task",
        "codesearch": "registry",
        "websearch": "registry",
        "apply_patch": "registry",
        "edit": "registry",
        "write": "registry",
        "bash": "registry",
        "read": "registry",
        "glob": "registry",
        "grep": "registry",
        "webfetch": "registry",
        "skill": "registry",
        "lsp": "registry",
        "batch": "registry",
        "plan_exit": "registry",
    },
    "renamed": {
        "ask_followup_question": ("question", "legacy-tools"),
        "update_todo_list": ("todowrite", "legacy-tools"),
        "new_task": ("task", "legacy-tools"),
    },
    "tags": {
        "ask-user": {"tools": ("question",), "note": None},
        "confirm": {"tools": ("question",), "note": None},
        "plan": None,
        "checklist": {"tools": ("todowrite",), "note": None},
        "subagent": {"tools": ("task",), "note": None},
        "survey": {"tools": ("question",), "note": None},
    },
    "detect": (("KILOCODE_FEATURE", "entry"),),
}

GITHUB_COPILOT: dict[str, Any] = {
    "id": "github-copilot",
    "name": "GitHub Copilot in VS Code",
    "version": "Copilot Chat extension source (microsoft/vscode-copilot-chat, archived "
    "2026-05-20 when it moved into microsoft/vscode) at 00a45c7c",
    "sources": {
        "tool-names": {
            "repo": "microsoft/vscode-copilot-chat",
            "path": "src/extension/tools/common/toolNames.ts",
            "commit": "00a45c7cd39b2a6b28dfd1e20b1e0a20f1814783",
            "facts": "the model-facing tool names",
        },
    },
    "tools": {
        "manage_todo_list": "tool-names",
        "runSubagent": "tool-names",
        "run_in_terminal": "tool-names",
        "get_terminal_output": "tool-names",
        "read_file": "tool-names",
        "list_dir": "tool-names",
        "file_search": "tool-names",
        "grep_search": "tool-names",
        "semantic_search": "tool-names",
        "create_file": "tool-names",
        "create_directory": "tool-names",
        "apply_patch": "tool-names",
        "replace_string_in_file": "tool-names",
        "multi_replace_string_in_file": "tool-names",
        "insert_edit_into_file": "tool-names",
        "fetch_webpage": "tool-names",
        "get_errors": "tool-names",
        "memory": "tool-names",
    },
    "renamed": {},
    "tags": {
        "ask-user": None,
        "confirm": None,
        "plan": None,
        "checklist": {"tools": ("manage_todo_list",), "note": None},
        "subagent": {"tools": ("runSubagent",), "note": None},
        "survey": None,
    },
    "detect": (),
}

CURSOR: dict[str, Any] = {
    "id": "cursor",
    "name": "Cursor",
    "version": "documentation as stored on " + READ_ON,
    "sources": {
        "agent-tools": {
            "url": "https://cursor.com/docs/agent/tools",
            "date": READ_ON,
            "facts": "describes the agent's tools by what they do, without the names "
            "the model calls",
        },
    },
    "tools": {},
    "renamed": {},
    "tags": dict(_NONE),
    "detect": (),
    "no_names": "Cursor is closed source and its documentation (agent-tools) describes "
    "the tools without their model-facing names; names seen only in leaked prompts are "
    "not evidence.",
}

AMP: dict[str, Any] = {
    "id": "amp",
    "name": "Amp",
    "version": "no public source read",
    "sources": {},
    "tools": {},
    "renamed": {},
    "tags": dict(_NONE),
    "detect": (),
    "no_names": "Amp is closed source and no public documentation page naming its "
    "model-facing tools was found.",
}

GENERIC: dict[str, Any] = {
    "id": "generic",
    "name": "Generic agent",
    "version": "",
    "sources": {},
    "tools": {},
    "renamed": {},
    "tags": dict(_NONE),
    "detect": (),
    "no_names": "Any agent: it uses only the tools it reports with --tools.",
}

# The registry's order (the order hosts are listed in, and, when an agent reports tools
# its host's entry does not map, the order in which other hosts' mappings are tried).
HOSTS: tuple[dict[str, Any], ...] = (
    CLAUDE_CODE,
    CODEX,
    OPENCODE,
    GEMINI_CLI,
    CLINE,
    ROO_CODE,
    KILO_CODE,
    CURSOR,
    AMP,
    GITHUB_COPILOT,
    GENERIC,
)

# The order host detection checks hosts in: Kilo before OpenCode, since the Kilo CLI
# sets OPENCODE=1 too; Claude Code last, since its variable is documented for the MCP
# servers it starts and another agent run from a Claude Code terminal inherits it.
DETECT_ORDER = ("kilo-code", "codex", "gemini-cli", "opencode", "claude-code")

# Looked for and not added: Windsurf (closed source; its documentation names no
# model-facing tools).
NOT_LISTED = {
    "windsurf": "Windsurf is closed source and its documentation (docs.windsurf.com, "
    "Cascade) names no model-facing tools.",
}

// Which command starts the language server. Pure: no vscode import, unit-tested.

export interface ServerCommand {
  command: string;
  args: string[];
}

export interface ServerSettings {
  /** skillkit.interpreter: a Python executable, or "" */
  interpreter: string;
  /** skillkit.server.path: a full command line that starts the server, or "" */
  serverPath: string;
}

/** Split a command line on whitespace, keeping "double" or 'single' quoted parts whole. */
export function splitCommandLine(line: string): string[] {
  const parts: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    parts.push(match[1] ?? match[2] ?? match[3]);
  }
  return parts;
}

/**
 * The server command, in order of preference: skillkit.server.path as given;
 * else `<interpreter> -m skill_lsp` with skillkit.interpreter, the Python extension's
 * active interpreter, or python3.
 */
export function chooseServerCommand(
  settings: ServerSettings,
  activeInterpreter: string | undefined,
): ServerCommand {
  const custom = splitCommandLine(settings.serverPath.trim());
  if (custom.length > 0) {
    return { command: custom[0], args: custom.slice(1) };
  }
  const python = settings.interpreter.trim() || activeInterpreter?.trim() || "python3";
  return { command: python, args: ["-m", "skill_lsp"] };
}

/** The advice shown when the server cannot start with `command`. */
export function installHint(command: ServerCommand): string {
  if (command.args[0] === "-m" && command.args[1] === "skill_lsp") {
    return `Install skillkit into that interpreter: ${command.command} -m pip install pyskillkit`;
  }
  return "Check the skillkit.server.path setting.";
}

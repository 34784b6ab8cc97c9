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
 * `-P`: the server starts in the workspace folder, whose modules must not shadow the
 * server's own (`python -m skill_lsp` would otherwise import a workspace's `skill_lsp/`
 * or `pygls/` first). skillkit needs Python >= 3.11, which has the flag.
 */
export const SERVER_ARGS = ["-P", "-m", "skill_lsp"];

function inside(path: string, folder: string): boolean {
  const base = folder.replace(/[\\/]+$/, "");
  return path === base || path.startsWith(`${base}/`) || path.startsWith(`${base}\\`);
}

/**
 * The server command, in order of preference: skillkit.server.path as given;
 * else `<interpreter> -P -m skill_lsp` with skillkit.interpreter, the Python extension's
 * active interpreter, or python3.
 *
 * `untrustedFolders` are the workspace folders while the workspace is not trusted: an
 * active interpreter inside one (a `.venv` that came with the project) is the project's
 * own program, so it is not run; python3 is used instead. (VS Code already ignores the
 * workspace's values of skillkit.interpreter and skillkit.server.path then.)
 */
export function chooseServerCommand(
  settings: ServerSettings,
  activeInterpreter: string | undefined,
  untrustedFolders: readonly string[] = [],
): ServerCommand {
  const custom = splitCommandLine(settings.serverPath.trim());
  if (custom.length > 0) {
    return { command: custom[0], args: custom.slice(1) };
  }
  let active = activeInterpreter?.trim();
  if (active && untrustedFolders.some((folder) => inside(active as string, folder))) {
    active = undefined;
  }
  const python = settings.interpreter.trim() || active || "python3";
  return { command: python, args: [...SERVER_ARGS] };
}

/** The advice shown when the server cannot start with `command`. */
export function installHint(command: ServerCommand): string {
  if (command.args.join(" ") === SERVER_ARGS.join(" ")) {
    return `Install skillkit into that interpreter: ${command.command} -m pip install pyskillkit`;
  }
  return "Check the skillkit.server.path setting.";
}

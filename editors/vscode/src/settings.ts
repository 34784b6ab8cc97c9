// Settings as the server receives them. Pure: no vscode import, unit-tested.

export const KNOWN_HOSTS = [
  "claude-code",
  "codex",
  "opencode",
  "gemini-cli",
  "cline",
  "roo-code",
  "kilo-code",
  "cursor",
  "amp",
  "generic",
] as const;

export interface SkillkitSettings {
  host: string;
  tools: string[];
  executeCode: boolean;
  lint: { select: string[]; ignore: string[] };
}

/** Read-only view of a configuration section (vscode.WorkspaceConfiguration fits). */
export interface ConfigurationLike {
  get<T>(section: string, defaultValue: T): T;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The skillkit settings, with the semantic layer forced off in untrusted workspaces. */
export function readSettings(config: ConfigurationLike, trusted: boolean): SkillkitSettings {
  const host = config.get<string>("host", "claude-code");
  return {
    host: KNOWN_HOSTS.includes(host as (typeof KNOWN_HOSTS)[number]) ? host : "generic",
    tools: strings(config.get<unknown>("tools", [])),
    executeCode: trusted && config.get<boolean>("executeCode", true) === true,
    lint: {
      select: strings(config.get<unknown>("lint.select", [])),
      ignore: strings(config.get<unknown>("lint.ignore", [])),
    },
  };
}

/** What the extension sends as initializationOptions. */
export function initializationOptions(
  config: ConfigurationLike,
  trusted: boolean,
): SkillkitSettings & { workspaceTrusted: boolean } {
  return { ...readSettings(config, trusted), workspaceTrusted: trusted };
}

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
  worker: { timeout: number; memoryLimit: number };
}

/** Read-only view of a configuration section (vscode.WorkspaceConfiguration fits). */
export interface ConfigurationLike {
  get<T>(section: string, defaultValue: T): T;
}

/** A number in [min, max], else the default (the server ignores other values too). */
function bounded(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === "number" && value >= min && value <= max ? value : fallback;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** MiB, 0 for none; as the server reads it (a whole number, 0 or 64 and up). */
function memoryLimit(value: unknown): number {
  if (value === 0) {
    return 0;
  }
  return Number.isInteger(value) ? bounded(value, 64, 1048576, 1024) : 1024;
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
    worker: {
      timeout: bounded(config.get<unknown>("worker.timeout", 10), 0.1, 600, 10),
      memoryLimit: memoryLimit(config.get<unknown>("worker.memoryLimit", 1024)),
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

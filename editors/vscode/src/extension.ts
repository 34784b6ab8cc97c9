// The Skill Kit extension: starts the skillkit language server and adds palette commands.
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";

import { chooseServerCommand, installHint, type ServerCommand } from "./serverCommand";
import { initializationOptions, KNOWN_HOSTS, readSettings } from "./settings";

const SECTION = "skillkit";
let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Skill Kit", { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "skillkit.chooseHost";
  status.tooltip = "Skill Kit: agent host used for previews (click to change)";
  context.subscriptions.push(output, status);
  registerCommands(context);
  updateStatus();

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration(`${SECTION}.host`)) updateStatus();
      if (
        event.affectsConfiguration(`${SECTION}.interpreter`) ||
        event.affectsConfiguration(`${SECTION}.server.path`)
      ) {
        await restart(context);
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart(context)),
    vscode.workspace.onDidOpenTextDocument(async (document) => {
      if (!client && isSkillDocument(document)) await start(context);
    }),
  );
  if (vscode.workspace.textDocuments.some(isSkillDocument) || (await workspaceHasSkills())) {
    await start(context);
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

function isSkillDocument(document: vscode.TextDocument): boolean {
  if (document.uri.scheme !== "file") return false;
  if (document.fileName.endsWith("SKILL.md")) return true;
  return document.languageId === "python" && document.getText().includes("skillkit_core");
}

async function workspaceHasSkills(): Promise<boolean> {
  const skip = "**/{.venv,venv,node_modules,.git}/**";
  if ((await vscode.workspace.findFiles("**/SKILL.md", skip, 1)).length > 0) return true;
  for (const uri of await vscode.workspace.findFiles("**/*.py", skip, 300)) {
    const bytes = await vscode.workspace.fs.readFile(uri);
    if (Buffer.from(bytes.subarray(0, 8192)).toString("utf8").includes("skillkit_core")) {
      return true;
    }
  }
  return false;
}

async function activeInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const python = vscode.extensions.getExtension("ms-python.python");
  if (!python) return undefined;
  try {
    const api = python.isActive ? python.exports : await python.activate();
    const environment = api?.environments?.getActiveEnvironmentPath?.(resource);
    return typeof environment?.path === "string" ? environment.path : undefined;
  } catch (error) {
    output.warn(`Could not ask the Python extension for its interpreter: ${String(error)}`);
    return undefined;
  }
}

async function serverCommand(): Promise<ServerCommand> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  const untrusted = vscode.workspace.isTrusted
    ? []
    : (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  return chooseServerCommand(
    {
      interpreter: config.get<string>("interpreter", ""),
      serverPath: config.get<string>("server.path", ""),
    },
    await activeInterpreter(resource),
    untrusted,
  );
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  if (client) return;
  const command = await serverCommand();
  const trusted = vscode.workspace.isTrusted;
  const serverOptions: ServerOptions = { command: command.command, args: command.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "file", pattern: "**/SKILL.md" },
      // A skill's reference files: their links, paths and skill names are the server's too.
      { scheme: "file", language: "markdown", pattern: "**/references/**/*.md" },
    ],
    synchronize: { configurationSection: SECTION },
    initializationOptions: initializationOptions(
      vscode.workspace.getConfiguration(SECTION),
      trusted,
    ),
    outputChannel: output,
    middleware: {
      workspace: {
        // The server reads settings through workspace/configuration; trust caps executeCode.
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) return answers;
          return params.items.map((item, i) =>
            item.section === SECTION
              ? readSettings(vscode.workspace.getConfiguration(SECTION), vscode.workspace.isTrusted)
              : answers[i],
          );
        },
      },
    },
  };
  client = new LanguageClient("skillkit", "Skill Kit", serverOptions, clientOptions);
  output.info(`Starting: ${command.command} ${command.args.join(" ")}`);
  try {
    await client.start();
    context.subscriptions.push(client);
  } catch (error) {
    client = undefined;
    const hint = installHint(command);
    output.error(`The skillkit language server did not start: ${String(error)}. ${hint}`);
    const choice = await vscode.window.showErrorMessage(
      `Skill Kit: the language server did not start (${command.command}). ${hint}`,
      "Show logs",
    );
    if (choice === "Show logs") output.show();
  }
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  const old = client;
  client = undefined;
  await old?.stop();
  await start(context);
}

function updateStatus(): void {
  const host = vscode.workspace.getConfiguration(SECTION).get<string>("host", "claude-code");
  status.text = `$(hubot) ${host}`;
  status.show();
}

async function runServerCommand<T>(command: string, args: unknown[]): Promise<T | undefined> {
  if (!client) {
    void vscode.window.showWarningMessage("Skill Kit: the language server is not running.");
    return undefined;
  }
  return (await client.sendRequest(ExecuteCommandRequest.type, {
    command,
    arguments: args,
  })) as T;
}

function activeUri(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showWarningMessage("Skill Kit: open a skill file first.");
    return undefined;
  }
  return editor.document.uri.toString();
}

// What the server's commands answer (skill_lsp/features/commands.py).
interface DocumentResult {
  markdown?: string;
  /** file URI of the Markdown the server wrote */
  uri?: string;
  /** skillkit.build: the folder written */
  output?: string;
}

async function showMarkdown(result: DocumentResult | undefined, title: string): Promise<void> {
  if (!result) return;
  let uri: vscode.Uri;
  if (result.uri) {
    uri = vscode.Uri.parse(result.uri);
  } else {
    const document = await vscode.workspace.openTextDocument({
      language: "markdown",
      content: result.markdown ?? `# ${title}\n\n(no output)`,
    });
    uri = document.uri;
  }
  await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
}

function registerCommands(context: vscode.ExtensionContext): void {
  const register = (id: string, run: () => Promise<void> | void) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));

  register("skillkit.buildSkill", async () => {
    const uri = activeUri();
    if (!uri) return;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "Skill Kit: building skill…" },
      () => runServerCommand<DocumentResult>("skillkit.build", [{ uri }]),
    );
    if (!result?.output) return;
    const choice = await vscode.window.showInformationMessage(
      `Skill built: ${result.output}`,
      "Open folder",
    );
    if (choice === "Open folder") {
      await vscode.commands.executeCommand("revealFileInOS", vscode.Uri.file(result.output));
    }
  });
  register("skillkit.simulateRun", async () => {
    const uri = activeUri();
    if (!uri) return;
    const result = await runServerCommand<DocumentResult>("skillkit.simulate", [
      { uri, show: false },
    ]);
    await showMarkdown(result, "Simulation");
  });
  register("skillkit.previewPrompts", async () => {
    const uri = activeUri();
    if (!uri) return;
    const result = await runServerCommand<DocumentResult>("skillkit.preview", [
      { uri, show: false },
    ]);
    await showMarkdown(result, "Preview");
  });
  register("skillkit.checkWorkspace", async () => {
    // The server reports the totals itself (window/showMessage).
    await runServerCommand("skillkit.check", []);
    await vscode.commands.executeCommand("workbench.actions.view.problems");
  });
  register("skillkit.chooseHost", async () => {
    const config = vscode.workspace.getConfiguration(SECTION);
    const current = config.get<string>("host", "claude-code");
    const picked = await vscode.window.showQuickPick(
      KNOWN_HOSTS.map((host) => ({ label: host, description: host === current ? "current" : "" })),
      { placeHolder: "Agent host for previews, hovers and simulations" },
    );
    if (!picked) return;
    const target = vscode.workspace.workspaceFolders
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
    await config.update("host", picked.label, target);
    await runServerCommand("skillkit.setHost", [picked.label]);
    updateStatus();
  });
  register("skillkit.restartServer", () => restart(context));
  register("skillkit.showLogs", () => output.show());
}

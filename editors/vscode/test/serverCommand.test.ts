import { strict as assert } from "node:assert";
import { test } from "node:test";

import { chooseServerCommand, installHint, splitCommandLine } from "../src/serverCommand";

test("the skillkit.interpreter setting wins over the active interpreter", () => {
  assert.deepEqual(
    chooseServerCommand({ interpreter: "/venv/bin/python", serverPath: "" }, "/usr/bin/python3"),
    { command: "/venv/bin/python", args: ["-P", "-m", "skill_lsp"] },
  );
});

test("the Python extension's interpreter is used next, then python3", () => {
  assert.equal(chooseServerCommand({ interpreter: " ", serverPath: "" }, "/env/python").command, "/env/python");
  assert.equal(chooseServerCommand({ interpreter: "", serverPath: "" }, undefined).command, "python3");
});

test("server.path is a full command line, quotes kept together", () => {
  assert.deepEqual(
    chooseServerCommand({ interpreter: "/x/python", serverPath: '"/my tools/skillkit" lsp' }, undefined),
    { command: "/my tools/skillkit", args: ["lsp"] },
  );
  assert.deepEqual(splitCommandLine("  a 'b c'  d "), ["a", "b c", "d"]);
});

test("the install hint names the interpreter's pip command", () => {
  const hint = installHint({ command: "/venv/bin/python", args: ["-P", "-m", "skill_lsp"] });
  assert.equal(hint, "Install skillkit into that interpreter: /venv/bin/python -m pip install pyskillkit");
  assert.match(installHint({ command: "skillkit", args: ["lsp"] }), /server\.path/);
});

test("the server never imports the workspace's modules in place of its own", () => {
  const { args } = chooseServerCommand({ interpreter: "", serverPath: "" }, undefined);
  assert.deepEqual(args, ["-P", "-m", "skill_lsp"]);
});

test("an untrusted workspace's own interpreter is not run", () => {
  const settings = { interpreter: "", serverPath: "" };
  const project = "/home/me/cloned";
  assert.equal(chooseServerCommand(settings, "/home/me/cloned/.venv/bin/python", [project]).command, "python3");
  assert.equal(chooseServerCommand(settings, "/home/me/cloned", [project]).command, "python3");
  assert.equal(chooseServerCommand(settings, "/home/me/cloned-2/bin/python", [project]).command, "/home/me/cloned-2/bin/python");
  assert.equal(chooseServerCommand(settings, "/usr/bin/python3.12", [project]).command, "/usr/bin/python3.12");
  // trusted: no folders given, the project's interpreter is fine
  assert.equal(chooseServerCommand(settings, "/home/me/cloned/.venv/bin/python", []).command, "/home/me/cloned/.venv/bin/python");
});

import { strict as assert } from "node:assert";
import { test } from "node:test";

import { initializationOptions, readSettings, type ConfigurationLike } from "../src/settings";

function config(values: Record<string, unknown>): ConfigurationLike {
  return {
    get<T>(section: string, defaultValue: T): T {
      return (section in values ? values[section] : defaultValue) as T;
    },
  };
}

test("defaults give claude-code with the semantic layer on", () => {
  assert.deepEqual(readSettings(config({}), true), {
    host: "claude-code",
    tools: [],
    executeCode: true,
    lint: { select: [], ignore: [] },
    worker: { timeout: 10, memoryLimit: 1024 },
  });
});

test("worker limits pass through; values the server would ignore become the defaults", () => {
  const good = readSettings(config({ "worker.timeout": 30, "worker.memoryLimit": 0 }), true);
  assert.deepEqual(good.worker, { timeout: 30, memoryLimit: 0 });
  const bad = readSettings(config({ "worker.timeout": "30", "worker.memoryLimit": 12.5 }), true);
  assert.deepEqual(bad.worker, { timeout: 10, memoryLimit: 1024 });
  const low = readSettings(config({ "worker.timeout": 0, "worker.memoryLimit": 32 }), true);
  assert.deepEqual(low.worker, { timeout: 10, memoryLimit: 1024 });
});

test("an untrusted workspace never executes code, whatever the setting says", () => {
  const options = initializationOptions(config({ executeCode: true }), false);
  assert.equal(options.executeCode, false);
  assert.equal(options.workspaceTrusted, false);
});

test("settings are cleaned: unknown hosts become generic, non-strings are dropped", () => {
  const settings = readSettings(
    config({ host: "emacs", tools: ["WebSearch", 3], "lint.ignore": ["orphan-references"] }),
    true,
  );
  assert.equal(settings.host, "generic");
  assert.deepEqual(settings.tools, ["WebSearch"]);
  assert.deepEqual(settings.lint.ignore, ["orphan-references"]);
});

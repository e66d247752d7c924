import assert from "node:assert/strict";
import { gatewayConfigSchema } from "../config/gateway_config.ts";
import { diffConfig } from "./root_watcher.ts";

const config = (value: unknown) => gatewayConfigSchema.parse(value);

Deno.test("diffConfig() of a config against itself changes nothing", () => {
  const same = config({
    mcpServers: { a: { command: "node", args: ["a.js"] } },
    apis: { pets: { openapi: "pets.yaml" } },
    tools: { kv: { settings: { path: "kv.db" } } },
  });
  assert.deepEqual(diffConfig(same, same), {
    mcpChanged: [],
    mcpRemoved: [],
    apisAdded: [],
    apisChanged: [],
    apisRemoved: [],
    toolsChanged: [],
  });
});

Deno.test("diffConfig() names new, changed and removed MCP servers; a new one counts as changed", () => {
  const before = config({
    mcpServers: {
      kept: { command: "node", args: ["kept.js"] },
      edited: { command: "node", args: ["v1.js"] },
      gone: { command: "node", args: ["gone.js"] },
    },
  });
  const after = config({
    mcpServers: {
      kept: { command: "node", args: ["kept.js"] },
      edited: { command: "node", args: ["v2.js"] },
      added: { url: "http://127.0.0.1:1/mcp" },
    },
  });
  const diff = diffConfig(before, after);
  assert.deepEqual(diff.mcpChanged, ["edited", "added"]);
  assert.deepEqual(diff.mcpRemoved, ["gone"]);
});

Deno.test("diffConfig() tells an added API from a changed one, and names removed ones", () => {
  const before = config({
    apis: { pets: { openapi: "pets.yaml" }, old: { graphql: "http://127.0.0.1:1/graphql" } },
  });
  const after = config({
    apis: { pets: { openapi: "pets-v2.yaml" }, shop: { openapi: "shop.yaml" } },
  });
  const diff = diffConfig(before, after);
  assert.deepEqual(diff.apisAdded, ["shop"]);
  assert.deepEqual(diff.apisChanged, ["pets"]);
  assert.deepEqual(diff.apisRemoved, ["old"]);
});

Deno.test("diffConfig() names tool modules whose settings appear, change or disappear", () => {
  const before = config({
    tools: { kv: { settings: { path: "a.db" } }, fs: { settings: {} }, memory: { settings: {} } },
  });
  const after = config({
    tools: { kv: { settings: { path: "b.db" } }, fs: { settings: {} }, sqlite: { settings: {} } },
  });
  assert.deepEqual(diffConfig(before, after).toolsChanged.sort(), ["kv", "memory", "sqlite"]);
});

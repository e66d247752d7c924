import assert from "node:assert/strict";
import { ConfigError } from "./config_error.ts";
import { parseForeignServers } from "./mcp_json.ts";

Deno.test("parseForeignServers() maps Claude Code's types onto gateway's transports", () => {
  const { servers, warnings } = parseForeignServers(
    JSON.stringify({
      mcpServers: {
        local: { type: "stdio", command: "npx", args: ["-y", "pkg"], env: { A: "${A}" } },
        remote: { type: "http", url: "https://h/mcp", headers: { X: "1" } },
        old: { type: "sse", url: "https://h/sse" },
        desktop: { command: "node", args: ["s.js"] },
      },
    }),
    "/p/.mcp.json",
  );
  assert.deepEqual(servers.local, { command: "npx", args: ["-y", "pkg"], env: { A: "${A}" } });
  assert.deepEqual(servers.remote, {
    url: "https://h/mcp",
    headers: { X: "1" },
    transport: "streamable-http",
  });
  assert.deepEqual(servers.old, { url: "https://h/sse", transport: "sse" });
  assert.deepEqual(servers.desktop, { command: "node", args: ["s.js"] });
  assert.deepEqual(warnings, []);
});

Deno.test("parseForeignServers() drops keys gateway has no use for, saying which", () => {
  const { servers, warnings } = parseForeignServers(
    JSON.stringify({ mcpServers: { s: { command: "x", alwaysAllow: ["a"], timeout: 5 } } }),
    "d.json",
  );
  assert.deepEqual(servers.s, { command: "x" });
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /"mcpServers\.s\.alwaysAllow" has no meaning for gateway/);
});

Deno.test("parseForeignServers() refuses a file without mcpServers or with a bad type", () => {
  assert.throws(
    () => parseForeignServers("{}", "x.json"),
    (e: unknown) => e instanceof ConfigError && /"x\.json": it has no "mcpServers"/.test(e.message),
  );
  assert.throws(
    () => parseForeignServers(`{"mcpServers": {"s": {"type": "ws", "url": "u"}}}`, "x.json"),
    (e: unknown) => e instanceof ConfigError && /"mcpServers\.s\.type" is "ws"/.test(e.message),
  );
  assert.throws(
    () => parseForeignServers("{", "x.json"),
    (e: unknown) => e instanceof ConfigError && /Invalid JSON in "x\.json"/.test(e.message),
  );
});

Deno.test("parseForeignServers() leaves out servers whose names are not printable names, saying why", () => {
  const text = JSON.stringify({
    mcpServers: {
      ok: { command: "node" },
      "": { command: "a" },
      "bell\u0007": { command: "b" },
      ["x".repeat(65)]: { command: "c" },
    },
  }).replace('"ok":', '"__proto__":{"command":"p"},"constructor":{"command":"q"},"ok":');
  const parsed = parseForeignServers(text, "/p/.mcp.json");
  assert.deepEqual(Object.keys(parsed.servers), ["ok"]);
  assert.equal(Object.getPrototypeOf(parsed.servers), null);
  assert.deepEqual(parsed.warnings.map((w) => w.replace(/^.*its name /, "")), [
    "is a name every JavaScript object has",
    "is a name every JavaScript object has",
    "is empty",
    "holds control characters",
    "is longer than 64 characters",
  ]);
  assert.match(parsed.warnings[3]!, /the server named "bell\\u\{7\}" is left out/);
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError, loadConfig } from "./config_loader.ts";
import { parseConfigText } from "./config_text.ts";
import { blockedReason } from "./config_value.ts";

Deno.test("parseConfigText() fills defaults for an empty object", () => {
  const loaded = parseConfigText("{}", { file: "gateway.json", env: {} });
  assert.equal(loaded.config.port, undefined, "no port: 9420 when free, else any free port");
  assert.deepEqual(loaded.config.exec.timeoutMs, 120_000);
});

Deno.test("parseConfigText() accepts comments and trailing commas", () => {
  const text = `{
    // the port
    "port": 0, /* any */
  }`;
  assert.deepEqual(parseConfigText(text, { file: "g.json", env: {} }).config.port, 0);
});

Deno.test("parseConfigText() names the file, key and line of an unknown key", () => {
  const text = `{\n  "exec": {\n    "timeoutMs": 5,\n    "bogus": 1\n  }\n}`;
  assert.throws(
    () => parseConfigText(text, { file: "/r/gateway.json", env: {} }),
    /"\/r\/gateway.json".*unknown key "exec.bogus" \(line 4\)/,
  );
});

Deno.test("parseConfigText() names the key path and expectation of a bad type", () => {
  const text = `{"exec": {"timeoutMs": "soon"}}`;
  assert.throws(
    () => parseConfigText(text, { file: "g.json", env: {} }),
    /"exec.timeoutMs" \(line 1\): Invalid input: expected number/,
  );
});

Deno.test("parseConfigText() reports malformed JSON with its line", () => {
  assert.throws(
    () => parseConfigText(`{\n"port": 1,,\n}`, { file: "g.json", env: {} }),
    /Invalid JSON in "g.json" at line 2/,
  );
});

Deno.test("parseConfigText() expands ${env:NAME} and remembers the value as a secret", () => {
  const text =
    `{"mcpServers": {"r": {"url": "https://h/mcp", "headers": {"A": "Bearer \${env:TOK}"}}}}`;
  const loaded = parseConfigText(text, { file: "g.json", env: { TOK: "s3cret" } });
  const server = loaded.config.mcpServers.r;
  assert.deepEqual(server && "headers" in server ? server.headers.A : undefined, "Bearer s3cret");
  assert.deepEqual(loaded.secrets, ["s3cret"]);
});

Deno.test("parseConfigText() refuses a missing environment variable outside mcpServers by key path", () => {
  const text = `{"history": {"redact": ["\${env:NOPE_X}"]}}`;
  assert.throws(
    () => parseConfigText(text, { file: "g.json", env: {} }),
    (e: unknown) =>
      e instanceof ConfigError && /"history.redact\[0\]" uses \$\{env:NOPE_X\}/.test(e.message),
  );
});

Deno.test("parseConfigText() leaves out an MCP server or an API whose variable is unset, naming it", () => {
  const text = `{"mcpServers": {
    "r": {"command": "x", "env": {"K": "\${env:NOPE_X}"}},
    "ok": {"command": "y"},
    "off": {"command": "z", "env": {"K": "\${NOPE_Z}"}, "disabled": true}
  }, "apis": {
    "pets": {"openapi": "./p.json", "headers": {"X-Key": "\${env:NOPE_K}\${env:NOPE_J}"}},
    "books": {"graphql": "http://127.0.0.1:1/graphql", "headers": {"A": "\${env:NOPE_K}"}},
    "fine": {"openapi": "./f.json"}
  }}`;
  const loaded = parseConfigText(text, { file: "g.json", env: {} });
  assert.deepEqual(Object.keys(loaded.config.mcpServers), ["ok", "off"]);
  assert.deepEqual(Object.keys(loaded.config.apis), ["fine"]);
  assert.deepEqual(loaded.warnings, []);
  assert.deepEqual(loaded.blocked, [
    { section: "mcpServers", name: "r", kind: "mcp", variables: ["NOPE_X"], file: "g.json" },
    {
      section: "apis",
      name: "pets",
      kind: "openapi",
      variables: ["NOPE_K", "NOPE_J"],
      file: "g.json",
    },
    { section: "apis", name: "books", kind: "graphql", variables: ["NOPE_K"], file: "g.json" },
  ]);
  assert.equal(
    blockedReason(loaded.blocked[1]!, "/r/gateway.env"),
    'configured (apis "pets" in g.json) but not started: it uses ${NOPE_K}, ${NOPE_J}, unset in ' +
      "the gateway server's environment; add NOPE_K=… and NOPE_J=… to /r/gateway.env (the gateway reloads it)",
  );
});

Deno.test("parseConfigText() expands Claude Code's ${VAR} and ${VAR:-default} in mcpServers", () => {
  const text = `{"mcpServers": {"api": {
    "type": "http",
    "url": "\${API_BASE_URL:-https://api.example.com}/mcp",
    "headers": {"Authorization": "Bearer \${API_KEY}"}
  }}}`;
  const loaded = parseConfigText(text, { file: "g.json", env: { API_KEY: "k1" } });
  const server = loaded.config.mcpServers.api;
  assert.ok(server && "url" in server);
  assert.equal(server.url, "https://api.example.com/mcp");
  assert.equal(server.transport, "streamable-http");
  assert.equal(server.headers.Authorization, "Bearer k1");
  assert.deepEqual(loaded.secrets, ["k1"]);
});

Deno.test("parseConfigText() keeps ${NAME} literal outside mcpServers", () => {
  const text = `{"tools": {"kv": {"settings": {"template": "\${name}"}}}}`;
  const loaded = parseConfigText(text, { file: "g.json", env: {} });
  assert.equal(loaded.config.tools.kv?.settings.template, "${name}");
});

Deno.test("loadConfig() reads plain JSON as the JSONC path does, and falls back to it for comments and for errors, which name their line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "config-loader-" });
  const file = join(dir, "gateway.json");
  const env = { TOKEN: "s3cret" };
  try {
    const plain = JSON.stringify(
      {
        port: 0,
        exec: { poolSize: 1 },
        mcpServers: { up: { command: "node", args: ["x.js"], env: { T: "${env:TOKEN}" } } },
      },
      null,
      2,
    );
    await Deno.writeTextFile(file, plain);
    assert.deepEqual(await loadConfig(file, env), parseConfigText(plain, { file, env }));

    await Deno.writeTextFile(file, '{\n  // any port\n  "port": 0,\n}');
    assert.equal((await loadConfig(file, env)).config.port, 0);

    await Deno.writeTextFile(file, '{\n  "port": 0,\n  "bogus": 1\n}');
    await assert.rejects(loadConfig(file, env), /unknown key "bogus" \(line 3\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseConfigText() refuses a policy rule's argument condition naming its key path", () => {
  const refused = (when: unknown, pattern: RegExp) =>
    assert.throws(
      () =>
        parseConfigText(
          JSON.stringify({ policy: [{ match: "fs.write_file", action: "allow", when }] }, null, 2),
          { file: "gateway.json", env: {} },
        ),
      pattern,
    );
  refused(
    { args: { path: { glob: "ROOT/out/../x" } } },
    /"policy\[0\]\.when\.args\.path\.glob" \(line 9\): "ROOT\/out\/\.\.\/x" has a "\." or "\.\." segment/,
  );
  refused(
    { args: { path: { glob: "out/ROOT/x" } } },
    /"policy\[0\]\.when\.args\.path\.glob".*ROOT stands for the root only as the first segment/,
  );
  refused(
    { args: { path: { glob: "/a", equals: 1 } } },
    /"policy\[0\]\.when\.args\.path" \(line 8\): give exactly one of "glob" \(a path pattern\) or "equals"/,
  );
  refused(
    { args: { "a..b": { equals: 1 } } },
    /"policy\[0\]\.when\.args\.a\.\.b".*is not an argument path/,
  );
  refused({ args: { path: { regex: "x" } } }, /unknown key "policy\[0\]\.when\.args\.path\.regex"/);
  const loaded = parseConfigText(
    JSON.stringify({
      policy: [
        { match: "*.*", action: "ask", when: "destructiveHint" },
        { match: "fs.*", action: "allow", when: { args: { "paths.*": { glob: "ROOT/**" } } } },
      ],
    }),
    { file: "gateway.json", env: {} },
  );
  assert.equal(loaded.config.policy.length, 2);
});

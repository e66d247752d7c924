/**
 * End-to-end: the MCP configs people already have. A project's `.mcp.json` copied from Claude
 * Code's documentation works as it is (with `${VAR}`/`${VAR:-default}` read from `gateway.env`);
 * `gateway import` copies it into gateway.json; a failed reload, an unset variable, a name
 * clash and a policy rule that matches nothing are shown by `gateway tools` and `status`.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startHttpEverything } from "./fixtures/mcp/mcp_test_servers.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { EVERYTHING_ENTRY } from "./support/discovery_root.ts";

/** Verbatim from Claude Code's MCP documentation ("Environment variable expansion in .mcp.json"). */
const CLAUDE_CODE_MCP_JSON = `{
  "mcpServers": {
    "api-server": {
      "type": "http",
      "url": "\${API_BASE_URL:-https://api.example.com}/mcp",
      "headers": {
        "Authorization": "Bearer \${API_KEY}"
      }
    }
  }
}
`;

Deno.test("a project's .mcp.json from Claude Code's docs serves its servers, with variables from gateway.env", async () => {
  const upstream = await startHttpEverything("streamableHttp");
  try {
    await withHarness({}, async (gw) => {
      // The harness root plays a project's .gateway/: gateway init's config has no servers.
      await Deno.writeTextFile(join(gw.root, "gateway.json"), `{ "mcpServers": {} }\n`);
      await Deno.writeTextFile(join(gw.root, ".mcp.json"), CLAUDE_CODE_MCP_JSON);
      const envFile = join(gw.root, "gateway.env");
      const base = upstream.url.replace(/\/mcp$/, "");
      await Deno.writeTextFile(envFile, `API_BASE_URL=${base}\n`, { mode: 0o600 });

      const first = await gw.cli(["tools"]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(
        first.stdout,
        /^api_server\s+mcp\s+0 tools\s+failed: configured \(mcpServers "api-server" in .*\.mcp\.json\) but not started: it uses \$\{API_KEY\}, unset in the gateway server's environment; add API_KEY=… to .*gateway\.env/m,
      );
      // A script that calls it is told the same, on the checked and the unchecked path.
      for (const check of ["--check", "--no-check"]) {
        const blocked = await gw.cli([
          "exec",
          check,
          `await tools.api_server.echo({ message: "hi" })`,
        ]);
        assert.equal(blocked.code, 1, blocked.stderr);
        assert.match(
          blocked.stderr,
          /^error\[NamespaceUnavailable\]: Namespace "api-server" cannot be used: configured \(mcpServers "api-server" in .*\.mcp\.json\) but not started: it uses \$\{API_KEY\}.*; tool "echo" cannot be called now/m,
        );
      }

      await Deno.writeTextFile(envFile, `API_BASE_URL=${base}\nAPI_KEY=s3cret\n`, { mode: 0o600 });
      await pollUntil("api-server ready after API_KEY was added to gateway.env", async () => {
        const listed = await gw.cli(["tools"]);
        return /api_server\s+mcp\s+\d+ tools\s+ready/.test(listed.stdout) ? listed : undefined;
      }, { timeoutMs: 20_000 });
      const echoed = await gw.cli(["exec", `await tools.api_server.echo({ message: "hi" })`]);
      assert.equal(echoed.code, 0, echoed.stderr);
      assert.equal(echoed.stdout.trim(), "Echo: hi");

      const imported = await gw.cli(["import", join(gw.root, ".mcp.json")]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /imported mcpServers "api-server" from .*\.mcp\.json/);
      const config = await Deno.readTextFile(join(gw.root, "gateway.json"));
      assert.match(config, /"Authorization": "Bearer \$\{API_KEY\}"/);
      assert.match(config, /"transport": "streamable-http"/);
      const again = await gw.cli(["import", join(gw.root, ".mcp.json")]);
      assert.match(again.stdout, /kept mcpServers "api-server": .* already has it/);
    });
  } finally {
    await upstream.stop();
  }
});

Deno.test("gateway import takes a Claude Desktop config and says what it left out", async () => {
  await withHarness({ files: { "gateway.json": `{\n  // mine\n  "port": 0\n}\n` } }, async (gw) => {
    const desktop = join(gw.cwd, "claude_desktop_config.json");
    await Deno.writeTextFile(
      desktop,
      JSON.stringify({
        mcpServers: {
          everything: { command: "node", args: [EVERYTHING_ENTRY], alwaysAllow: ["echo"] },
        },
      }),
    );
    const result = await gw.cli(["import", desktop]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /imported mcpServers "everything"/);
    assert.match(result.stderr, /"mcpServers\.everything\.alwaysAllow" has no meaning for gateway/);
    const config = await Deno.readTextFile(join(gw.root, "gateway.json"));
    assert.match(config, /\/\/ mine/, "comments are kept");
    const echoed = await gw.cli(["exec", `await tools.everything.echo({ message: "x" })`]);
    assert.equal(echoed.stdout.trim(), "Echo: x", echoed.stderr);

    const missing = await gw.cli(["import", join(gw.cwd, "nope.json")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /error\[Config\]: Cannot read ".*nope\.json"/);
  });
});

Deno.test("gateway tools and status show a failed reload, a name clash and a policy rule that matches nothing", async () => {
  const files = {
    "tools/dup.ts": `/** One. */\nexport function one(): number {\n  return 1;\n}\n`,
    "tools/kv2.ts": `/** Two. */\nexport function two(): number {\n  return 2;\n}\n`,
    "gateway.json": JSON.stringify({
      mcpServers: { dup: { command: "node", args: [EVERYTHING_ENTRY] } },
      policy: [{ match: "kv2.tow", action: "deny" }],
    }),
  };
  await withHarness({ files }, async (gw) => {
    const listed = await pollUntil("kv2 listed with the policy warning", async () => {
      const result = await gw.cli(["tools"]);
      return /kv2/.test(result.stdout) && /matches no tool/.test(result.stderr)
        ? result
        : undefined;
    }, { timeoutMs: 20_000 });
    assert.doesNotMatch(listed.stdout, /\bdup\b/, "neither side of a clash is served");
    assert.match(
      listed.stderr,
      /warning: namespace "dup" is both the tool module .*tools\/dup\.ts and mcpServers "dup" in .*gateway\.json: rename one/,
    );
    assert.match(listed.stderr, /warning: policy rule "kv2\.tow" \(deny\) matches no tool/);

    await Deno.writeTextFile(join(gw.root, "gateway.json"), `{ "mcpServers": { "x": 1 } }`);
    const failed = await pollUntil("the failed reload shown by gateway tools", async () => {
      const result = await gw.cli(["tools"]);
      return /error\[Config\]/.test(result.stderr) ? result : undefined;
    }, { timeoutMs: 10_000 });
    assert.match(
      failed.stderr,
      /error\[Config\]: the last config edit did not load, the previous config is in force: Invalid config ".*gateway\.json"/,
    );
    const status = await gw.cli(["status"]);
    assert.equal(status.code, 0);
    assert.match(status.stderr, /error\[Config\]: the last config edit did not load/);
  });
});

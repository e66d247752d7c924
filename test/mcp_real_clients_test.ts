/**
 * Real MCP clients against the gateway over stdio (`gateway mcp`) and HTTP (`/mcp`): the MCP
 * Inspector CLI 2.x and a v2 SDK `Client` in auto mode land on the 2026-07-28 era and run
 * `exec` (the Inspector, declaring the tasks extension, through a task); the v2 client answers
 * a held call through its elicitation handler and gets run output as progress, with no log
 * messages; a v1 SDK client still lands on 2025-11-25 and works as before.
 *
 * The Inspector runs under `node`: under Deno its request tracker clones each POST response
 * and reads the clone to its end, which a `subscriptions/listen` stream never reaches, so the
 * streams it opens in auto mode never answer (it declares node ≥ 22.19; the CLI paths used here
 * run on the node 20 installed).
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// A test-only client, imported by full specifier (not in the import map the package exports).
// deno-lint-ignore no-import-prefix
import * as v2 from "npm:@modelcontextprotocol/client@2.4.0";
// deno-lint-ignore no-import-prefix
import * as v2stdio from "npm:@modelcontextprotocol/client@2.4.0/stdio";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client as ClientV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport as HttpV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport as StdioV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { type GatewayHarness, MAIN, REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const INSPECTOR = join(
  REPO,
  "test/servers/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
);

const TOOL = `/** Removes everything (pretend). */
export function wipe(args: { what: string }): string {
  return \`wiped \${args.what}\`;
}
`;

const FILES = {
  "tools/danger.ts": TOOL,
  "gateway.json": JSON.stringify({ policy: [{ match: "danger.wipe", action: "ask" }] }),
};

/** What a stdio client needs to start `gateway mcp` for this harness. */
function stdioServer(
  gw: GatewayHarness,
): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "mcp"],
    env: {
      GATEWAY_DATA_DIR: gw.dataDir,
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    },
  };
}

function textOf(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

/** Runs the Inspector CLI and parses its JSON answer. */
async function inspector(args: string[]): Promise<Record<string, unknown>> {
  const out = await new Deno.Command("node", {
    args: [INSPECTOR, "--cli", ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, `inspector ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

Deno.test("the MCP Inspector CLI 2.x in auto mode lands on 2026-07-28 over HTTP and stdio and runs exec", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    const server = stdioServer(gw);
    const targets: Record<string, string[]> = {
      http: [`http://127.0.0.1:${port}/mcp`, "--header", `Authorization: Bearer ${token}`],
      stdio: [
        ...Object.entries(server.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
        "--",
        server.command,
        ...server.args,
      ],
    };
    for (const [via, target] of Object.entries(targets)) {
      const options = ["--protocol-era", "auto", "--format", "json"];
      // The target goes last: after "--" for stdio, the rest is the server's command line.
      const opened = await inspector([...options, "--method", "initialize", ...target]);
      assert.equal(
        (opened.result as { protocolVersion: string }).protocolVersion,
        "2026-07-28",
        via,
      );
      const ran = await inspector([
        ...options,
        "--method",
        "tools/call",
        "--tool-name",
        "exec",
        "--tool-args-json",
        JSON.stringify({ source: "6 * 7" }),
        ...target,
      ]);
      const result = ran.result as { content: unknown; structuredContent: { runId: string } };
      assert.equal(textOf(result), "42", `${via}: ${JSON.stringify(ran)}`);
      // The run (a task: the Inspector declares the tasks extension) is in history.
      const shown = await gw.cli(["history", "show", result.structuredContent.runId, "--json"]);
      assert.equal(shown.code, 0, shown.stderr);
    }
  });
});

Deno.test("a v2 SDK client in auto mode lands on 2026-07-28 over HTTP and stdio, runs exec, answers a held call by elicitation and gets run output as progress", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    const server = stdioServer(gw);
    const transports = {
      http: () =>
        new v2.StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      stdio: () => new v2stdio.StdioClientTransport(server),
    };
    for (const [via, transport] of Object.entries(transports)) {
      const client = new v2.Client({ name: "v2", version: "1" }, {
        versionNegotiation: { mode: "auto" },
        capabilities: { elicitation: {} },
      });
      const questions: string[] = [];
      client.setRequestHandler("elicitation/create", (request) => {
        questions.push(String(request.params.message));
        return { action: "accept", content: { allow: true } };
      });
      const logs: unknown[] = [];
      client.setNotificationHandler("notifications/message", (n) => void logs.push(n.params));
      await client.connect(transport());
      try {
        assert.equal(client.getProtocolEra(), "modern", via);
        assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28", via);
        const answer = await client.callTool({ name: "exec", arguments: { source: "6 * 7" } });
        assert.equal(textOf(answer), "42", via);

        const held = await client.callTool({
          name: "exec",
          arguments: { source: `await tools.danger.wipe({ what: "${via}" })` },
        });
        assert.equal(textOf(held), `wiped ${via}`, JSON.stringify(held));
        assert.equal(questions.length, 1, via);
        assert.match(questions[0]!, new RegExp(`danger\\.wipe\\(\\{"what":"${via}"\\}\\) is held`));

        const progress: string[] = [];
        const streamed = await client.callTool(
          {
            name: "exec",
            arguments: {
              source: `console.log("first"); await new Promise((r) => setTimeout(r, 50)); "done"`,
            },
          },
          { onprogress: (p) => void progress.push(String(p.message)) },
        );
        assert.equal(textOf(streamed), "first\ndone", via);
        assert.ok(progress.some((m) => m.includes("stdout: first")), `${via}: ${progress}`);
        assert.deepEqual(logs, [], `${via}: no log messages on 2026-07-28`);
      } finally {
        await client.close();
      }
    }
  });
});

Deno.test("a v2 SDK client on 2026-07-28 hears of catalogue changes on its subscriptions/listen stream, over HTTP and stdio", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    const server = stdioServer(gw);
    const transports = {
      http: () =>
        new v2.StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      stdio: () => new v2stdio.StdioClientTransport(server),
    };
    for (const [via, transport] of Object.entries(transports)) {
      let seen: string[] = [];
      const client = new v2.Client({ name: "listener", version: "1" }, {
        versionNegotiation: { mode: "auto" },
        listChanged: {
          resources: {
            debounceMs: 0,
            onChanged: (error, items) => {
              if (error === null && items) seen = items.map((r) => r.uri);
            },
          },
        },
      });
      await client.connect(transport());
      try {
        assert.equal(client.getProtocolEra(), "modern", via);
        assert.ok(client.autoOpenedSubscription, `${via}: the listen stream is open`);
        // A new tool module is a new namespace: its types are a new resource.
        await Deno.writeTextFile(join(gw.root, "tools", `${via}.ts`), TOOL);
        await pollUntil(
          `${via}: the resource list change`,
          () => Promise.resolve(seen.includes(`gateway://types/${via}`) || undefined),
          { last: () => seen },
        );
      } finally {
        await client.close();
      }
    }
  });
});

Deno.test("a v1 SDK client (2025-11-25) still works over HTTP and stdio, logging included", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const { port, token } = await gw.server();
    const http = new HttpV1(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const transports = { http: () => http, stdio: () => new StdioV1(stdioServer(gw)) };
    for (const [via, transport] of Object.entries(transports)) {
      const client = new ClientV1({ name: "v1", version: "1" });
      await client.connect(transport());
      try {
        const answer = await client.callTool({ name: "exec", arguments: { source: "6 * 7" } });
        assert.equal(textOf(answer as { content: unknown }), "42", via);
        assert.ok(client.getServerCapabilities()?.logging, `${via}: logging on 2025-11-25`);
        await client.setLoggingLevel("info");
      } finally {
        await client.close();
      }
    }
    assert.equal(http.protocolVersion, "2025-11-25");
  });
});

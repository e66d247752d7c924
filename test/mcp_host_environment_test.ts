/**
 * End-to-end: one root is one server whatever the caller's environment. An MCP host starts
 * `gateway mcp` with a bare environment (`env -i PATH=… HOME=…`: no `XDG_DATA_HOME`, no
 * `GATEWAY_DATA_DIR`); it reaches the server the user's shell (with a custom `XDG_DATA_HOME`)
 * started — the same history, the same held approval, answered from the shell — and the other
 * way round. `gateway mcp --print-config` prints entries a host runs as written: the stdio one
 * under `env -i`, the HTTP one with its port and `Authorization` header.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { type CliResult, runCli } from "./support/gateway_harness.ts";
import { denoCacheDir } from "./support/bounded_cli.ts";
import { pollUntil } from "./support/poll_until.ts";

const GREET = `/** Greets someone. */
export function greet(args: { name: string }): string {
  return \`hello \${args.name}\`;
}
`;

/** A project with a tool an ask rule holds, a fixed port, and a home of its own. */
async function project() {
  const base = await Deno.makeTempDir({ prefix: "gateway-host-env-" });
  const dir = join(base, "shop");
  const home = join(base, "home");
  // The host's HOME is the user's: here a temporary one whose Deno cache is this machine's,
  // so nothing is fetched again.
  await Deno.mkdir(join(home, ".cache"), { recursive: true });
  await Deno.symlink(denoCacheDir(), join(home, ".cache", "deno"));
  await Deno.mkdir(join(dir, ".gateway", "tools"), { recursive: true });
  await Deno.writeTextFile(join(dir, ".gateway", "tools", "hello.ts"), GREET);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await Deno.writeTextFile(
    join(dir, ".gateway", "gateway.json"),
    JSON.stringify({ port, policy: [{ match: "hello.greet", action: "ask" }] }),
  );
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  /** The user's shell: a custom XDG_DATA_HOME. */
  const shellEnv = { HOME: home, PATH: path, XDG_DATA_HOME: join(base, "xdg"), NO_COLOR: "1" };
  const shell = async (args: string[]): Promise<CliResult> =>
    await runCli(args, { env: shellEnv, cwd: dir });
  /** A host's bare environment: PATH and HOME, nothing else. */
  const bare = async (args: string[]): Promise<CliResult> =>
    await runCli(args, { env: { HOME: home, PATH: path }, cwd: dir });
  const cleanup = async () => {
    for (const data of [join(base, "xdg"), join(home, ".local", "share")]) {
      try {
        for (const entry of Deno.readDirSync(join(data, "gateway", "roots"))) {
          const state = join(data, "gateway", "roots", entry.name, "server.json");
          try {
            Deno.kill((JSON.parse(Deno.readTextFileSync(state)) as { pid: number }).pid, "SIGKILL");
          } catch {
            // stopped already
          }
        }
      } catch {
        // no server ever ran here
      }
    }
    await Deno.remove(base, { recursive: true }).catch(() => undefined);
  };
  return { base, dir, home, port, path, shell, bare, cleanup };
}

/** The JSON block that follows the line starting with `heading` in `--print-config`'s output. */
function blockAfter(text: string, heading: string): Record<string, unknown> {
  const start = text.indexOf(heading);
  assert.ok(start >= 0, `no "${heading}" in:\n${text}`);
  const open = text.indexOf("\n{", start) + 1;
  const close = text.indexOf("\n}\n", open) + 2;
  return JSON.parse(text.slice(open, close)) as Record<string, unknown>;
}

function textOf(result: { content: unknown }): string {
  const blocks = result.content as Array<{ type: string; text?: string }>;
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

Deno.test("gateway mcp under env -i reaches the server the user's shell started: same history, same held approval", async () => {
  const p = await project();
  try {
    const first = await p.shell(["exec", "--no-check", "'from the shell'"]);
    assert.equal(first.code, 0, first.stderr);
    const status = await p.shell(["status"]);
    const shellPid = /running: pid (\d+)/.exec(status.stdout)?.[1];
    assert.ok(shellPid, status.stdout);
    assert.match(status.stdout, new RegExp(`data dir: ${join(p.base, "xdg")}/gateway/roots/`));

    const printed = await p.shell(["mcp", "--print-config"]);
    assert.equal(printed.code, 0, printed.stderr);
    const stdio = (blockAfter(printed.stdout, "## stdio: Claude Code") as {
      mcpServers: { gateway: { command: string; args: string[]; env?: Record<string, string> } };
    }).mcpServers.gateway;
    // This shell's data dir is not the one a bare environment derives: the entry pins it.
    assert.deepEqual(Object.keys(stdio.env ?? {}), ["GATEWAY_DATA_DIR"]);

    // Exactly as a host would: the entry's command and args, but with `env -i` and no pin —
    // what an older or hand-written entry gives (`"command": "gateway", "args": ["mcp"]`).
    const client = new Client({ name: "host", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: "env",
        args: ["-i", `PATH=${p.path}`, `HOME=${p.home}`, stdio.command, ...stdio.args],
        cwd: "/",
        stderr: "pipe",
      }),
    );
    try {
      const held = client.callTool(
        {
          name: "exec",
          arguments: { source: 'await tools.hello.greet({ name: "host" })' },
        },
        undefined,
        { timeout: 60_000 },
      );
      // The shell sees the call the host's run holds, and answers it.
      const pending = await pollUntil("the host's call in the shell's approvals", async () => {
        const listed = await p.shell(["approvals", "--json"]);
        const found = (JSON.parse(listed.stdout) as {
          pending: Array<{ runId: string; tool: string }>;
        }).pending.find((a) => a.tool === "greet");
        return found;
      }, { timeoutMs: 30_000 });
      const approved = await p.shell(["approve", pending.runId]);
      assert.equal(approved.code, 0, approved.stderr);
      const result = await held;
      assert.equal(result.isError, undefined, textOf(result));
      assert.match(textOf(result), /hello host/);
    } finally {
      await client.close();
    }

    // One history: the host's run is in the shell's, and the shell's in the host's.
    const history = await p.shell(["history", "--text", "host"]);
    assert.match(history.stdout, /tools\.hello\.greet\(\{ name: "host" \}\)/);
    const fromHost = await p.bare(["history", "--text", "from the shell"]);
    assert.equal(fromHost.code, 0, fromHost.stderr);
    assert.match(fromHost.stdout, /'from the shell'/);
    // No second server: the bare environment's own data dir never got one.
    const bareStatus = await p.bare(["status"]);
    assert.match(bareStatus.stdout, new RegExp(`running: pid ${shellPid}\\b`));
    await assert.rejects(
      Deno.stat(join(p.home, ".local", "share", "gateway", "roots")),
      Deno.errors.NotFound,
    );

    // The HTTP entry, as Cursor takes it: the root's port and the data dir's token.
    assert.match(printed.stdout, new RegExp(`The server keeps port ${p.port}\\b`));
    const cursor = (blockAfter(printed.stdout, "# Cursor (~/.cursor/mcp.json):") as {
      mcpServers: { gateway: { url: string; headers: Record<string, string> } };
    }).mcpServers.gateway;
    assert.equal(cursor.url, `http://127.0.0.1:${p.port}/mcp`);
    const claudeLine =
      /^claude mcp add --transport http gateway (\S+) --header 'Authorization: (Bearer [0-9a-f]{64})'$/m
        .exec(printed.stdout);
    assert.ok(claudeLine, printed.stdout);
    assert.equal(claudeLine[1], cursor.url);
    assert.equal(claudeLine[2], cursor.headers.Authorization);
    const http = new Client({ name: "cursor", version: "1" });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(cursor.url), {
        requestInit: { headers: cursor.headers },
      }),
    );
    try {
      const answer = await http.callTool({ name: "exec", arguments: { source: "6 * 7" } });
      assert.equal((answer.structuredContent as { result: unknown }).result, 42);
    } finally {
      await http.close();
    }
  } finally {
    await p.shell(["stop"]);
    await p.cleanup();
  }
});

Deno.test("a server a bare environment started is the one the user's shell finds", async () => {
  const p = await project();
  try {
    const byHost = await p.bare(["exec", "--no-check", "'started by the host'"]);
    assert.equal(byHost.code, 0, byHost.stderr);
    const fromShell = await p.shell(["history", "--text", "started by the host"]);
    assert.equal(fromShell.code, 0, fromShell.stderr);
    assert.match(fromShell.stdout, /'started by the host'/);
    assert.equal(fromShell.stderr, "");
    const status = await p.shell(["status"]);
    assert.match(
      status.stdout,
      new RegExp(`data dir: ${join(p.home, ".local", "share")}/gateway/roots/`),
    );
    await assert.rejects(Deno.stat(join(p.base, "xdg")), Deno.errors.NotFound);

    // Pinning another data dir is allowed (several instances of one root), but said aloud.
    const pinned = await runCli(["start"], {
      env: {
        HOME: p.home,
        PATH: p.path,
        GATEWAY_DATA_DIR: join(p.base, "pinned"),
        GATEWAY_PORT: "0",
      },
      cwd: p.dir,
    });
    assert.equal(pinned.code, 0, pinned.stderr);
    const both = await p.shell(["status"]);
    assert.match(
      both.stderr,
      /^warning: two gateway servers serve .*: data dir ".*" \(this command's\) and ".*pinned"/,
    );
    await runCli(["stop"], {
      env: { HOME: p.home, PATH: p.path, GATEWAY_DATA_DIR: join(p.base, "pinned") },
      cwd: p.dir,
    });
  } finally {
    await p.shell(["stop"]);
    await p.cleanup();
  }
});

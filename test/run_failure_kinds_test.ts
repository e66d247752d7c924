/**
 * End-to-end proof of the failure kinds (docs/failure-kinds.md): each one provoked through the real CLI or the
 * WebSocket RPC of one shared server, asserting `error.kind`, a message that helps, and where
 * applicable the script's line/column and the namespace/tool. The cases are keyed by kind and the
 * test loops over `FAILURE_KINDS`, so a new kind without a provoking case fails (and does not
 * type-check).
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { GatewayClient } from "../src/client/gateway_client.ts";
import { FAILURE_KINDS, type FailureKind } from "../src/protocol/run_document.ts";
import type { GatewayHarness } from "./support/gateway_harness.ts";
import {
  EVERYTHING_SERVER,
  execRpc as execRpcUnnoted,
  parseRun as parseRunUnnoted,
  type RunDocument,
  runnerPid,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";
import { pollUntil } from "./support/poll_until.ts";

/** One way to provoke a failure kind. */
interface Case {
  name: string;
  fn: () => Promise<void>;
}

/** Every failure kind a run document or a CLI error line reported, in order. */
const seen: string[] = [];

function noted(document: RunDocument): RunDocument {
  if (document.error) seen.push(document.error.kind);
  return document;
}

function execRpc(client: GatewayClient, params: Record<string, unknown>): Promise<RunDocument> {
  return execRpcUnnoted(client, params).then(noted);
}

function parseRun(stdout: string): RunDocument {
  return noted(parseRunUnnoted(stdout));
}

/** Runs the CLI, noting the kinds of its `error[Kind]` lines. */
async function cli(
  gw: GatewayHarness,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await gw.cli(args);
  for (const match of result.stderr.matchAll(/^error\[(\w+)\]/gm)) seen.push(match[1]!);
  return result;
}

const config = {
  mcpServers: {
    everything: { command: "node", args: [EVERYTHING_SERVER] },
    ghost: { command: "/nonexistent/gateway-test-mcp-server", args: [] },
  },
  exec: { maxPermissions: { run: ["kill"] }, maxToolCalls: 40, maxMemoryMb: 128 },
  policy: [{ match: "everything.get-env", action: "deny" }],
};

async function cliRun(gw: GatewayHarness, args: string[]): Promise<RunDocument> {
  const result = await cli(gw, ["exec", "--json", ...args]);
  const document = parseRun(result.stdout);
  assert.equal(result.code, document.ok ? 0 : document.error?.kind === "Timeout" ? 124 : 1);
  return document;
}

/** Starts a streamed run and resolves with its id once it printed `ready`. */
function startStreamed(
  client: GatewayClient,
  source: string,
): { runId: Promise<string>; done: Promise<RunDocument>; stdout: () => string } {
  let text = "";
  let resolveId!: (id: string) => void;
  const runId = new Promise<string>((resolve) => (resolveId = resolve));
  const stop = client.onNotification((n) => {
    if (n.method !== "run.output") return;
    const p = n.params as { runId: string; stream: string; text: string };
    if (p.stream === "stdout") text += p.text;
    if (text.includes("ready")) resolveId(p.runId);
  });
  const done = execRpc(client, { source, stream: true, timeoutMs: 20_000 }).finally(stop);
  return { runId, done, stdout: () => text };
}

Deno.test("every failure kind a run can end with is produced end to end", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files = await runTestRoot({
    config,
    files: {
      "tools/broken.ts":
        `/** Fails at import. @module */\nthrow new Error("broken on purpose");\n` +
        `/** Never reached. */\nexport function ping(): string {\n  return "pong";\n}\n`,
    },
  });
  await withRunHarness({ files }, async (gw) => {
    const client = await gw.client();
    try {
      const cases: Record<FailureKind, Case[]> = {
        CheckFailed: [
          {
            name: "CheckFailed points at the script's own line before any tool call",
            fn: async () => {
              const doc = await cliRun(gw, [
                [
                  `await tools.probe.echo({ nonce: "a" });`,
                  `const n = 1;`,
                  `const s: string = n;`,
                  `s`,
                ].join("\n"),
              ]);
              assert.equal(doc.error?.kind, "CheckFailed");
              assert.equal(doc.error?.line, 3);
              assert.equal(doc.error?.column, 7);
              assert.match(doc.error?.message ?? "", /not assignable to type 'string'/);
              assert.equal(doc.error?.diagnostics?.[0]?.line, 3);
              assert.equal(doc.toolCalls, 0);
            },
          },
          {
            name: "CheckFailed names the nearest tool for a misspelt name",
            fn: async () => {
              const result = await cli(gw, ["exec", "await tools.probe.mxInFlight()"]);
              assert.equal(result.code, 1);
              assert.match(
                result.stderr,
                /^error\[CheckFailed\]: .*line 1:19: Unknown tool "probe\.mxInFlight": did you mean tools\.probe\.maxInFlight\?/m,
              );
            },
          },
        ],
        SyntaxError: [
          {
            name: "SyntaxError carries the line and column of the mistake",
            fn: async () => {
              const doc = await cliRun(gw, ["const a = 1;\n\nconst b = a +* 2;"]);
              assert.equal(doc.error?.kind, "SyntaxError");
              assert.equal(doc.error?.line, 3);
              assert.equal(doc.error?.column, 14);
              assert.match(doc.error?.message ?? "", /expected/i);
            },
          },
        ],
        ScriptError: [
          {
            name: "ScriptError reports an uncaught exception at the script's line",
            fn: async () => {
              const doc = await cliRun(gw, [
                "--no-check",
                "const a = 1;\nfunction f() {\n  throw new RangeError(`bad value ${a}`);\n}\nf();",
              ]);
              assert.equal(doc.error?.kind, "ScriptError");
              assert.equal(doc.error?.message, "RangeError: bad value 1");
              assert.equal(doc.error?.line, 3);
              assert.equal(doc.error?.column, 9);
            },
          },
        ],
        ToolError: [
          {
            name: "ToolError names the namespace, the tool and the tool's message",
            fn: async () => {
              const doc = await cliRun(gw, [
                `const x = 1;\nawait tools.probe.fail({ message: "no such order 42" });`,
              ]);
              assert.equal(doc.error?.kind, "ToolError");
              assert.equal(doc.error?.namespace, "probe");
              assert.equal(doc.error?.tool, "fail");
              assert.match(doc.error?.message ?? "", /no such order 42/);
              assert.equal(doc.error?.line, 2);
            },
          },
          {
            name: "a caught ToolError lets the script recover",
            fn: async () => {
              const doc = await cliRun(gw, [
                `try { await tools.probe.fail({ message: "x" }); } catch (e) {\n` +
                `  console.log(e instanceof ToolError, (e as ToolError).kind, (e as ToolError).tool);\n}\n"recovered"`,
              ]);
              assert.equal(doc.ok, true);
              assert.equal(doc.stdout, "true ToolError fail\n");
              assert.equal(doc.result, "recovered");
            },
          },
        ],
        UnknownTool: [
          {
            name: "UnknownTool lists the nearest names",
            fn: async () => {
              const doc = await cliRun(gw, [
                "--no-check",
                `await tools.probe.ecko({ nonce: "a" })`,
              ]);
              assert.equal(doc.error?.kind, "UnknownTool");
              assert.match(doc.error?.message ?? "", /"probe\.ecko".*did you mean "probe\.echo"/);
              assert.equal(doc.error?.line, 1);
            },
          },
        ],
        InvalidToolInput: [
          {
            name: "InvalidToolInput names the path and the rule (MCP server-everything)",
            fn: async () => {
              const echo = await execRpc(client, {
                source: `await tools.everything.echo({ message: 5 } as never)`,
              });
              assert.equal(echo.error?.kind, "InvalidToolInput");
              assert.equal(echo.error?.namespace, "everything");
              assert.equal(echo.error?.tool, "echo");
              assert.match(echo.error?.message ?? "", /"\/message" must be string/);
              const sum = await execRpc(client, {
                source: `await tools.everything["get-sum"]({ a: "one", b: 2 } as never)`,
              });
              assert.equal(sum.error?.kind, "InvalidToolInput");
              assert.equal(sum.error?.tool, "get-sum");
              assert.match(sum.error?.message ?? "", /"\/a" must be number/);
            },
          },
        ],
        ToolTimeout: [
          {
            name: "ToolTimeout ends a call that outlives callTimeoutMs and aborts it",
            fn: async () => {
              const marker = join(gw.cwd, "aborted.txt");
              const doc = await execRpc(client, {
                source: `await tools.probe.waitForAbort({ marker: ${JSON.stringify(marker)} })`,
                callTimeoutMs: 400,
              });
              assert.equal(doc.error?.kind, "ToolTimeout");
              assert.equal(doc.error?.namespace, "probe");
              assert.equal(doc.error?.tool, "waitForAbort");
              assert.match(doc.error?.message ?? "", /400 ms/);
              await pollUntil(
                "the tool to see its abort signal",
                () => Deno.stat(marker).then(() => true, () => false),
              );
            },
          },
        ],
        Timeout: [
          {
            name: "Timeout stops the whole run and the CLI exits 124",
            fn: async () => {
              const result = await cli(gw, ["exec", "--timeout", "800", "while (true) {}"]);
              assert.equal(result.code, 124);
              assert.match(result.stderr, /^error\[Timeout\]: Run exceeded its 800 ms timeout/m);
            },
          },
        ],
        ToolCallLimitExceeded: [
          {
            name: "ToolCallLimitExceeded stops a run past its call budget",
            fn: async () => {
              const doc = await execRpc(client, {
                source:
                  `for (let i = 0; i < 10; i++) await tools.probe.echo({ nonce: String(i) });`,
                maxToolCalls: 3,
              });
              assert.equal(doc.error?.kind, "ToolCallLimitExceeded");
              assert.match(doc.error?.message ?? "", /maxToolCalls \(3\)/);
              assert.equal(doc.error?.tool, "echo");
              assert.equal(doc.toolCalls, 3);
              const cli = await cliRun(gw, [
                "--no-check",
                `for (let i = 0; i < 50; i++) await tools.probe.echo({ nonce: String(i) });`,
              ]);
              assert.equal(cli.error?.kind, "ToolCallLimitExceeded");
              assert.match(cli.error?.message ?? "", /maxToolCalls \(40\)/);
            },
          },
        ],
        PermissionDenied: [
          {
            name: "PermissionDenied names the permission the script lacked",
            fn: async () => {
              const cases: Array<[string, string, RegExp]> = [
                [
                  "read",
                  `await Deno.readTextFile("/etc/hostname")`,
                  /read access to "\/etc\/hostname"/,
                ],
                ["write", `await Deno.writeTextFile("/tmp/x.txt", "x")`, /write access/],
                [
                  "net",
                  `await fetch("http://127.0.0.1:8765/")`,
                  /net access to "127\.0\.0\.1:8765"/,
                ],
                ["env", `Deno.env.get("HOME")`, /env access to "HOME"/],
                ["run", `new Deno.Command("ls").outputSync()`, /run access to "ls"/],
                [
                  "import",
                  `await import("https://esm.sh/leftpad")`,
                  /remote and npm imports are off/,
                ],
              ];
              for (const [name, source, message] of cases) {
                const doc = await cliRun(gw, ["--no-check", source]);
                assert.equal(
                  doc.error?.kind,
                  "PermissionDenied",
                  `${name}: ${JSON.stringify(doc.error)}`,
                );
                assert.equal(doc.error?.hint, name);
                assert.match(doc.error?.message ?? "", message);
                if (name !== "import") {
                  assert.match(doc.error?.message ?? "", new RegExp(`--allow-${name}`));
                }
                assert.equal(doc.error?.line, 1);
              }
            },
          },
        ],
        PermissionRefused: [
          {
            name: "PermissionRefused answers before start when asking beyond maxPermissions",
            fn: async () => {
              const result = await cli(gw, [
                "exec",
                "--json",
                "--allow-read=/etc",
                "--allow-net",
                `console.log("started"); await Deno.readTextFile("/etc/hostname")`,
              ]);
              assert.equal(result.code, 1);
              const doc = parseRun(result.stdout);
              assert.equal(doc.error?.kind, "PermissionRefused");
              assert.match(
                doc.error?.message ?? "",
                /read "\/etc" is beyond exec\.maxPermissions\.read/,
              );
              assert.match(doc.error?.message ?? "", /net \(unrestricted\) is beyond/);
              assert.equal(doc.stdout, "");
              assert.equal(doc.exitCode, null);
              const rpc = await execRpc(client, { source: "1", permissions: { run: ["sh"] } });
              assert.equal(rpc.error?.kind, "PermissionRefused");
              assert.match(rpc.error?.message ?? "", /run "sh"/);
            },
          },
        ],
        NamespaceUnavailable: [
          {
            name: "NamespaceUnavailable explains why a module or an MCP server is down",
            fn: async () => {
              const broken = await execRpc(client, { source: `await tools.broken.ping()` });
              assert.equal(broken.error?.kind, "NamespaceUnavailable");
              assert.match(broken.error?.message ?? "", /"broken".*broken on purpose/);
              const ghost = await execRpc(client, {
                source: `await (tools as any).ghost.anything()`,
              });
              assert.equal(ghost.error?.kind, "NamespaceUnavailable");
              assert.match(
                ghost.error?.message ?? "",
                /"ghost".*(command not found|cannot start)/i,
              );
            },
          },
        ],
        PolicyDenied: [
          {
            name: "PolicyDenied names the rule that denied the call",
            fn: async () => {
              const doc = await cliRun(gw, [`await tools.everything["get-env"]()`]);
              assert.equal(doc.error?.kind, "PolicyDenied");
              assert.equal(doc.error?.namespace, "everything");
              assert.equal(doc.error?.tool, "get-env");
              assert.match(doc.error?.message ?? "", /rule "everything\.get-env"/);
            },
          },
        ],
        MemoryLimit: [
          {
            name: "MemoryLimit stops JS heap growth (exec.maxMemoryMb 128)",
            fn: async () => {
              const doc = await cliRun(gw, [
                `const a: number[][] = [];\nfor (;;) a.push(new Array(100_000).fill(1.5));`,
              ]);
              assert.equal(doc.error?.kind, "MemoryLimit");
              assert.match(doc.error?.message ?? "", /memory limit/);
            },
          },
          {
            name: "MemoryLimit stops off-heap allocations the heap flag cannot see",
            fn: async () => {
              const gigabyte = await cliRun(gw, [
                `const b = new Uint8Array(1024 * 1024 * 1024);\nb.fill(7);\nb.length`,
              ]);
              assert.equal(gigabyte.error?.kind, "MemoryLimit", JSON.stringify(gigabyte.error));
              assert.match(gigabyte.error?.message ?? "", /memory limit of 128 MB \(resident\)/);
              // A per-run limit below the config's applies the same way.
              const chunks = await execRpc(client, {
                source: `const kept: Uint8Array[] = [];\n` +
                  `for (let i = 0; i < 16; i++) kept.push(new Uint8Array(32 * 1024 * 1024).fill(1));\n` +
                  `kept.length`,
                maxMemoryMb: 96,
              });
              assert.equal(chunks.error?.kind, "MemoryLimit", JSON.stringify(chunks.error));
              assert.match(chunks.error?.message ?? "", /memory limit of 96 MB/);
            },
          },
        ],
        Cancelled: [
          {
            name: "Cancelled: an RPC cancel stops a run in flight",
            fn: async () => {
              const run = startStreamed(
                client,
                `console.log("ready");\nawait new Promise(() => setInterval(() => {}, 1000));`,
              );
              const runId = await run.runId;
              const other = await gw.client();
              try {
                assert.deepEqual(await other.request("cancel", { runId }), {
                  cancelled: true,
                  runId,
                });
              } finally {
                await other.close();
              }
              const doc = await run.done;
              assert.equal(doc.runId, runId);
              assert.equal(doc.error?.kind, "Cancelled");
              assert.equal(doc.stdout, "ready\n");
            },
          },
          {
            name: "Cancelled: gateway cancel ID stops a yielded run",
            fn: async () => {
              const yielded = await cli(gw, [
                "exec",
                "--json",
                "--yield",
                "300",
                `console.log("going"); await new Promise(() => setInterval(() => {}, 1000));`,
              ]);
              assert.equal(yielded.code, 0);
              const running = JSON.parse(yielded.stdout) as { status: string; runId: string };
              assert.equal(running.status, "running");
              const cancelled = await cli(gw, ["cancel", running.runId]);
              assert.equal(cancelled.code, 0);
              const waited = await cli(gw, ["wait", running.runId]);
              assert.equal(waited.code, 1);
              assert.match(waited.stderr, /^error\[Cancelled\]/m);
            },
          },
        ],
        Crashed: [
          {
            name: "Crashed reports the signal when the runner is killed from inside",
            fn: async () => {
              const doc = await cliRun(gw, ["--allow-run=kill", `Deno.kill(Deno.pid, "SIGKILL")`]);
              assert.equal(doc.error?.kind, "Crashed");
              assert.match(doc.error?.message ?? "", /SIGKILL/);
            },
          },
          {
            name: "Crashed reports the signal when the runner is killed from outside",
            fn: async () => {
              const run = startStreamed(
                client,
                `console.log("ready", import.meta.filename);\n` +
                  `await new Promise(() => setInterval(() => {}, 1000));`,
              );
              await run.runId;
              // Its pid as this process sees it (inside the OS sandbox, Deno.pid is not).
              const script = /ready (\S+)/.exec(run.stdout())?.[1] ?? "";
              const pid = runnerPid(script);
              assert.ok(pid !== null, `no runner found for ${script}`);
              Deno.kill(pid, "SIGKILL");
              const doc = await run.done;
              assert.equal(doc.error?.kind, "Crashed");
              assert.match(doc.error?.message ?? "", /SIGKILL/);
            },
          },
        ],
      };

      for (const kind of FAILURE_KINDS) {
        const provoking = cases[kind];
        assert.ok(provoking.length > 0, `no case provokes failure kind "${kind}": add one above`);
        const from = seen.length;
        for (const { name, fn } of provoking) await t.step(name, fn);
        assert.ok(
          seen.slice(from).includes(kind),
          `the cases for "${kind}" never produced it (saw ${JSON.stringify(seen.slice(from))})`,
        );
      }
    } finally {
      await client.close();
    }
  });
});

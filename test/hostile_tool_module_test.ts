/**
 * A hostile tool module against the other modules of the shared tool host. A module with
 * `permissions: {}` shares the host's process: it writes lifecycle lines (`exit`,
 * `load_error`, `restarted`, `ready` with another module's number) to the process's stdout,
 * and posts lines with embedded newlines to the host's thread; neither may fail, restart or
 * answer for another module. Lifecycle travels only on the host's own authenticated link, and
 * a module with restricted permissions has a Worker (a JavaScript realm) of its own. Memory is
 * the one thing the shared process's modules share: one that exhausts it takes their calls in
 * flight with it, never an isolated module's (the promise README states).
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { GatewayClient } from "../src/client/gateway_client.ts";
import { findOsSandboxTools } from "../src/process/os_sandbox.ts";
import { pollUntil } from "./support/poll_until.ts";
import {
  execRpc,
  killPids,
  processesMatching,
  type RunningDocument,
  runTestRoot,
  startForegroundServer,
  withRunHarness,
} from "./support/run_test_support.ts";

/** Forges every lifecycle line for module numbers 1…64, on stdout and through `postMessage`. */
const EVIL = `/** Forges lifecycle messages for the other modules. @module */
const encoder = new TextEncoder();
/** Writes forged lifecycle lines for every module number. */
export function strike(): number {
  let sent = 0;
  for (let n = 1; n <= 64; n++) {
    const lines = [
      { worker: n, type: "exit", reason: "PWNED exit" },
      { worker: n, type: "load_error", error: { message: "PWNED load_error" } },
      { worker: n, type: "restarted", placement: 99, message: "PWNED restarted" },
      { worker: n, type: "ready", exports: ["pwned"] },
      { worker: n, type: "log", line: "PWNED log" },
    ];
    for (const line of lines) {
      Deno.stdout.writeSync(encoder.encode("\\n" + JSON.stringify(line) + "\\n"));
      sent++;
    }
    // A Worker's own thread may post to the host: a line with more lines inside it.
    const post = (globalThis as unknown as { postMessage?: (m: unknown) => void }).postMessage;
    post?.({
      type: "line",
      module: n,
      text: JSON.stringify({ type: "ready", exports: [] }) + "\\n" +
        JSON.stringify({ worker: n + 1, type: "exit", reason: "PWNED relay" }),
      settled: "ready",
    });
  }
  return sent;
}
`;

const VICTIM = `/** An innocent module. @module */
/** Answers pong. */
export function ping(): string {
  return "pong";
}
`;

interface NamespaceRow {
  name: string;
  status: string;
  reason?: string;
}

async function statuses(client: GatewayClient): Promise<Map<string, NamespaceRow>> {
  const answer = await client.request<{ namespaces: NamespaceRow[] }>("namespaces", {});
  return new Map(answer.namespaces.map((n) => [n.name, n]));
}

Deno.test(
  "a module writing forged lifecycle lines cannot fail, restart or answer for another module",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    const files = await runTestRoot({
      probe: false,
      config: {
        // The hostile module has restricted permissions; the others have the default (all).
        tools: { evil: { permissions: {} }, sibling: { permissions: {} } },
      },
      files: {
        "tools/evil.ts": EVIL,
        "tools/victim.ts": VICTIM,
        "tools/sibling.ts": VICTIM,
      },
    });
    await withRunHarness({ files }, async (gw) => {
      const client = await gw.client();
      try {
        await pollUntil("every module ready", async () => {
          const list = await statuses(client);
          return ["evil", "victim", "sibling"].every((n) => list.get(n)?.status === "ready");
        });
        const struck = await execRpc(client, { source: "await tools.evil.strike()" });
        assert.equal(struck.ok, true, JSON.stringify(struck));
        // Whatever the forged lines could do, they would have done it by the next call's answer:
        // the victims answer, stay ready, and no reason anywhere carries the attacker's text.
        const document = await execRpc(client, {
          source: "[await tools.victim.ping(), await tools.sibling.ping()]",
        });
        assert.deepEqual(document.result, ["pong", "pong"], JSON.stringify(document));
        const list = await statuses(client);
        for (const name of ["victim", "sibling"]) {
          assert.equal(list.get(name)?.status, "ready", JSON.stringify(list.get(name)));
        }
        assert.ok(!JSON.stringify([...list.values()]).includes("PWNED"), JSON.stringify([...list]));
        const described = await client.request<unknown>("describe", { path: "tools.victim" })
          .catch(() => null);
        assert.ok(!JSON.stringify(described).includes("pwned"));
      } finally {
        client.close();
      }
    });
  },
);

const SNOOP = `/** Reads a path for whoever asks. @module */
/** The text at path, or the name of the error met. */
export function read(args: { path: string }): string {
  try {
    return Deno.readTextFileSync(args.path);
  } catch (error) {
    return "refused: " + (error as Error).name;
  }
}
/** Spins for ever. */
export function spin(): never {
  for (;;) {
    // busy
  }
}
`;

const tools = await findOsSandboxTools();

Deno.test({
  name:
    "under exec.osSandbox a module's host sees its grants only: a link in a granted directory to the token reads nothing, and a module with every permission cannot read the token",
  ignore: tools.sandbox.kind !== "bwrap",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "gateway-host-view-" }));
  try {
    const granted = join(base, "granted");
    await Deno.mkdir(granted);
    const files = await runTestRoot({
      probe: false,
      config: {
        exec: { osSandbox: "required" },
        tools: { confined: { permissions: { read: [granted] } }, trusted: { isolate: true } },
      },
      files: { "tools/confined.ts": SNOOP, "tools/trusted.ts": SNOOP },
    });
    await withRunHarness({ files }, async (gw) => {
      const token = join(gw.dataDir, "token");
      const client = await gw.client();
      try {
        await Deno.symlink(token, join(granted, "notes.txt"));
        const document = await execRpc(client, {
          source: `[await tools.confined.read({ path: ${
            JSON.stringify(join(granted, "notes.txt"))
          } }),
            await tools.trusted.read({ path: ${JSON.stringify(token)} })]`,
        });
        assert.deepEqual(
          document.result,
          ["refused: NotFound", "refused: PermissionDenied"],
          JSON.stringify(document),
        );
      } finally {
        client.close();
      }
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

for (
  const { osSandbox, ignore } of [
    { osSandbox: "off", ignore: Deno.build.os !== "linux" || tools.setpriv === null },
    { osSandbox: "required", ignore: tools.sandbox.kind !== "bwrap" },
  ] as const
) {
  Deno.test({
    name: `a tool host busy in a loop dies with its server's kill -9 (exec.osSandbox ${osSandbox})`,
    ignore,
    sanitizeOps: false,
    sanitizeResources: false,
  }, async () => {
    const files = await runTestRoot({
      probe: false,
      config: { exec: { osSandbox }, tools: { snoop: { isolate: true } } },
      files: { "tools/snoop.ts": SNOOP },
    });
    await withRunHarness({ files }, async (gw) => {
      const server = await startForegroundServer(gw);
      // Its tool host processes: their command lines name the host's entry and the module.
      const hosts = () =>
        processesMatching("tool_host_main.ts").filter((pid) => {
          try {
            return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes(gw.root);
          } catch {
            return false;
          }
        });
      try {
        const client = await gw.client();
        const running = await client.request<RunningDocument>("exec", {
          source: "await tools.snoop.spin()",
          check: false,
          yieldAfterMs: 300,
        });
        assert.equal(running.status, "running", JSON.stringify(running));
        await pollUntil("the tool host to be busy", () => hosts().some((pid) => cpuMs(pid) > 250));
        client.close();
        Deno.kill(server.pid, "SIGKILL");
        await server.status;
        await pollUntil("the tool host to die with the server", () => hosts().length === 0, {
          last: () => hosts(),
        });
      } finally {
        killPids([server.pid, ...hosts()]);
      }
    });
  });
}

/** CPU time a process has used, in ms (Linux: /proc/PID/stat utime + stime), 0 when gone. */
function cpuMs(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

const HOG = `/** Grows until it is stopped. @module */
/** Allocates 64 MB at a time, up to 4 GB, then waits. */
export async function grow(): Promise<number> {
  const kept: Uint8Array[] = [];
  for (let i = 0; i < 64; i++) {
    kept.push(new Uint8Array(64 * 1024 * 1024).fill(1));
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 60_000));
  return kept.length;
}
`;

const PATIENT = `/** Answers after a while. @module */
/** Waits ms, then answers. */
export async function wait(args: { ms: number }): Promise<string> {
  await new Promise((r) => setTimeout(r, args.ms));
  return "answered";
}
`;

Deno.test(
  "a module that exhausts the shared host's memory takes the shared modules' calls in flight with it, never an isolated module's",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    const files = await runTestRoot({
      probe: false,
      config: { exec: { timeoutMs: 60_000 }, tools: { apart: { isolate: true } } },
      files: { "tools/hog.ts": HOG, "tools/sharing.ts": PATIENT, "tools/apart.ts": PATIENT },
    });
    await withRunHarness({ files }, async (gw) => {
      const client = await gw.client();
      try {
        // The shared module's call outlasts any pace at which the hog can reach the host's
        // memory limit, so only the host's death can end it.
        const document = await execRpc(client, {
          source: `const settle = (p: Promise<unknown>) =>
          p.then((v) => ["ok", v], (e) => ["failed", (e as Error).message]);
        const apart = settle(tools.apart.wait({ ms: 4000 }));
        const sharing = settle(tools.sharing.wait({ ms: 50_000 }));
        const hog = settle(tools.hog.grow());
        await Promise.all([apart, sharing, hog])`,
        });
        const [apart, sharing, hog] = document.result as [string, string][];
        assert.deepEqual(apart, ["ok", "answered"], JSON.stringify(document));
        assert.equal(sharing?.[0], "failed", JSON.stringify(document));
        assert.equal(hog?.[0], "failed", JSON.stringify(document));
        assert.match(sharing?.[1] ?? "", /shared tool host/);
        // The shared modules come back on their own.
        await pollUntil("the shared module to answer again", async () => {
          const again = await execRpc(client, { source: "await tools.sharing.wait({ ms: 1 })" });
          return again.result === "answered";
        }, { timeoutMs: 30_000, intervalMs: 500 });
      } finally {
        client.close();
      }
    });
  },
);

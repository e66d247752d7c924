/**
 * A hostile-client test: a local process (no token, or the token's holder making mistakes on
 * purpose) attacks the server the way a red team would — floods of connections,
 * oversized bodies, crafted Host headers, files that are not workflows, racing starts, a stop
 * in the middle of a run, a `kill -9` — and the server keeps standing, leaks nothing and
 * leaves nothing behind.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { getRequest, rawHttp } from "./support/raw_http.ts";
import { createHarness, MAIN, runCli, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import {
  liveGroupMembers,
  parseRun,
  processAlive,
  runTestRoot,
  startForegroundServer,
  withRunHarness,
} from "./support/run_test_support.ts";

const PLANTED = "ghp_plantedSecretValue0123456789";

Deno.test("secrets expanded into a failing upstream's command or URL never leave the server", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files = await runTestRoot({
    config: {
      mcpServers: {
        broken: { command: "/nonexistent/tool-${env:GW_PLANTED}", args: [] },
        remote: { url: "http://127.0.0.1:9/mcp?key=${env:GW_PLANTED}", startTimeoutMs: 2000 },
      },
    },
  });
  await withRunHarness({ files, env: { GW_PLANTED: PLANTED } }, async (gw) => {
    const { port, token } = await gw.server();
    const leaks: string[] = [];
    const look = (where: string, text: string) => {
      if (text.includes(PLANTED)) leaks.push(where);
    };
    await pollUntil("both upstreams to have failed", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/namespaces`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const text = await response.text();
      return (text.match(/"failed"/g) ?? []).length >= 2 ? text : undefined;
    }, { timeoutMs: 30_000 });

    await t.step("the failure is reported, with the secret masked", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/namespaces`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      assert.match(await response.text(), /\[REDACTED\]/);
    });

    await t.step("no HTTP route, with or without the token, shows the secret", async () => {
      for (const path of ["/health", "/namespaces", "/types", "/catalog", "/search?q=broken"]) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        const text = await response.text();
        assert.equal(response.status, 200, `${path}: ${text}`);
        look(path, text);
      }
      assert.deepEqual(leaks, []);
    });

    await t.step("neither the CLI's tools nor the agent guide shows it", async () => {
      for (const args of [["tools"], ["--llm-help"]]) {
        const result = await gw.cli(args);
        look(args.join(" "), result.stdout + result.stderr);
      }
      assert.deepEqual(leaks, []);
    });

    await t.step(
      "a sandboxed script's describe() and a call to the namespace do not see it",
      async () => {
        const result = await gw.cli([
          "exec",
          "--json",
          "--no-check",
          `console.log(JSON.stringify(describe("tools.broken")), JSON.stringify(search("broken")));
         await tools.broken.anything({});`,
        ]);
        const document = parseRun(result.stdout);
        assert.equal(document.error?.kind, "NamespaceUnavailable", result.stdout);
        look("script", result.stdout + result.stderr);
        assert.deepEqual(leaks, []);
      },
    );
  });
});

/** How many descriptors a process has open now. */
function openDescriptors(pid: number): number {
  return [...Deno.readDirSync(`/proc/${pid}/fd`)].length;
}

/**
 * Starts a server with a low descriptor limit (the attack is the same, only smaller), floods its
 * port with half-open connections once server.json names it — at once (`"starting"`: its parts
 * are still opening) or once `/health` says the parts are up — and checks, while the flood
 * still holds its connections, that the server answers `/health` and holds no more descriptors
 * than its limit allows; then lets the connections go and checks it is up. Returns the
 * server's log and the most descriptors it held during the flood.
 */
async function shedsFlood(
  when: "starting" | "up",
): Promise<{ log: string; mostDescriptors: number }> {
  const gw = await createHarness({ files: { "gateway.json": `{ "port": 0 }\n` } });
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      `ulimit -n 256 && exec "$0" run --allow-all --no-prompt --quiet "$1" --root "$2" server`,
      Deno.execPath(),
      MAIN,
      gw.root,
    ],
    cwd: gw.cwd,
    clearEnv: true,
    env: {
      GATEWAY_DATA_DIR: gw.dataDir,
      GATEWAY_PORT: "0",
      NO_COLOR: "1",
      HOME: Deno.env.get("HOME") ?? gw.cwd,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const logRead = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (log += chunk) }),
  ).catch(() => undefined);
  let port = 0;
  const health = async () => {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      return response.ok ? await response.json() : undefined;
    } catch {
      return undefined;
    }
  };
  const conns: Deno.Conn[] = [];
  let mostDescriptors = 0;
  try {
    port = await pollUntil("the server to publish server.json", async () => {
      try {
        const state = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "server.json")));
        return state.pid === child.pid ? state.port as number : undefined;
      } catch {
        return undefined;
      }
    }, { timeoutMs: 30_000 });
    if (when === "up") {
      await pollUntil("the server's parts to be up", async () => {
        const body = await health();
        return body !== undefined && body.starting !== true;
      }, { timeoutMs: 30_000 });
    }
    for (let i = 0; i < 400; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode("GET /health HTTP/1.1\r\nHost: 127.0"));
      conns.push(conn);
      if (i % 50 === 0) mostDescriptors = Math.max(mostDescriptors, openDescriptors(child.pid));
    }
    mostDescriptors = Math.max(mostDescriptors, openDescriptors(child.pid));
    // Still flooded: the server answers, the oldest half-open connections made room.
    const during = await pollUntil("/health to answer during the flood", health, {
      timeoutMs: 30_000,
      last: () => log.slice(-2000),
    });
    assert.equal(during.ok, true);
    mostDescriptors = Math.max(mostDescriptors, openDescriptors(child.pid));
    for (const conn of conns.splice(0)) {
      try {
        conn.close();
      } catch {
        // closed by the server already
      }
    }
    const up = await pollUntil("/health to say the server is up after the flood", async () => {
      if (!processAlive(child.pid)) throw new Error("the server process died");
      const body = await health();
      return body !== undefined && body.starting !== true ? body : undefined;
    }, { timeoutMs: 30_000, last: () => log.slice(-4000) });
    assert.equal(up.ok, true);
    Deno.kill(child.pid, "SIGTERM");
    await child.status;
    await logRead;
    return { log, mostDescriptors };
  } finally {
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // gone
      }
    }
    try {
      Deno.kill(child.pid, "SIGTERM");
    } catch {
      // gone
    }
    await child.status;
    await logRead;
    await gw.dispose();
  }
}

Deno.test(
  "a flood of half-open connections is shed: the server keeps its descriptors and answers during it",
  { sanitizeOps: false, sanitizeResources: false, ignore: Deno.build.os !== "linux" },
  async () => {
    const { log, mostDescriptors } = await shedsFlood("up");
    assert.ok(mostDescriptors < 256, `the server held ${mostDescriptors} descriptors`);
    assert.doesNotMatch(log, /the HTTP listener failed/);
  },
);

Deno.test(
  "a flood while the server's parts are still opening does not stop its start",
  { sanitizeOps: false, sanitizeResources: false, ignore: Deno.build.os !== "linux" },
  async () => {
    const { log, mostDescriptors } = await shedsFlood("starting");
    assert.ok(mostDescriptors < 256, `the server held ${mostDescriptors} descriptors`);
    assert.doesNotMatch(log, /the HTTP listener failed/);
    // A start that failed ends with `error[…]` naming what it could not open.
    assert.doesNotMatch(log, /^error\[/m);
  },
);

Deno.test("bad requests from a token holder are refused and the server keeps serving", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const { port, token } = await gw.server();
    const auth = { Authorization: `Bearer ${token}` };

    await t.step("a Host with anything after the port is refused", async () => {
      for (const host of [`127.0.0.1:${port}:evil`, `127.0.0.1:${port}/x`, `127.0.0.1 :${port}`]) {
        const response = await rawHttp(port, getRequest("/namespaces", { Host: host, ...auth }));
        assert.equal(response.status, 403, host);
      }
    });

    await t.step("a 200 MB body is refused with 413 without being held", async () => {
      const chunk = new Uint8Array(1024 * 1024).fill(32);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 200) return controller.close();
          sent++;
          controller.enqueue(chunk);
        },
      });
      const response = await fetch(`http://127.0.0.1:${port}/exec`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body,
      }).catch((error) => error as Error);
      // Either the 413 arrives, or the server closed the upload it refused to read.
      if (response instanceof Response) {
        assert.equal(response.status, 413);
        await response.body?.cancel();
      }
      assert.ok(sent < 200, `the server read all ${sent} MB`);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
    });

    await t.step("stdin over exec.maxStdinBytes is refused naming the key", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/exec`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ source: "1", stdin: "x".repeat(9 * 1024 * 1024) }),
      });
      const text = await response.text();
      assert.equal(response.status, 400, text);
      assert.match(text, /exec\.maxStdinBytes/);
    });

    await t.step("workflow start on a file that is not a workflow does not quote it", async () => {
      const file = join(gw.cwd, "secrets.env");
      await Deno.writeTextFile(file, `API_KEY=${PLANTED}\nOTHER=value\n`);
      const result = await gw.cli(["workflow", "start", file]);
      assert.notEqual(result.code, 0);
      assert.ok(!(result.stdout + result.stderr).includes(PLANTED), result.stderr);
      assert.match(result.stderr, /secrets\.env/);
    });
  });
});

Deno.test("three servers started at once on one data dir: exactly one runs", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await withRunHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const env = {
      GATEWAY_DATA_DIR: gw.dataDir,
      GATEWAY_PORT: "0",
      NO_COLOR: "1",
      HOME: Deno.env.get("HOME") ?? gw.cwd,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    };
    const children = [1, 2, 3].map(() =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "server"],
        cwd: gw.cwd,
        clearEnv: true,
        env,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn()
    );
    try {
      const losers = await pollUntil("two of the three servers to give up", () => {
        const gone = children.filter((c) => !processAlive(c.pid));
        return Promise.resolve(gone.length >= 2 ? gone : undefined);
      }, { timeoutMs: 30_000 });
      for (const loser of losers) {
        const { code, stderr } = await loser.output();
        assert.notEqual(code, 0);
        assert.match(new TextDecoder().decode(stderr), /already running for data dir/);
      }
      const winner = children.find((c) => !losers.includes(c))!;
      const state = await pollUntil("the winner's server.json", async () => {
        try {
          const s = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "server.json")));
          return s.pid === winner.pid ? s : undefined;
        } catch {
          return undefined;
        }
      });
      const status = await gw.cli(["status"]);
      assert.equal(status.code, 0, status.stderr);
      assert.ok(status.stdout.includes(String(state.pid)), status.stdout);
    } finally {
      for (const child of children) {
        try {
          Deno.kill(child.pid, "SIGTERM");
        } catch {
          // exited
        }
        await child.stderr.cancel().catch(() => undefined);
        await child.status;
      }
    }
  });
});

Deno.test("gateway stop with a run in flight answers the run with its Cancelled document", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const files = {
    "gateway.json": JSON.stringify({ port: 0, exec: { maxPermissions: { write: ["./marks"] } } }),
    "marks/.keep": "",
  };
  await withRunHarness({ files }, async (gw) => {
    await gw.server();
    const mark = join(gw.root, "marks", "started");
    const running = gw.cli([
      "exec",
      "--json",
      "--no-check",
      `--allow-write=${join(gw.root, "marks")}`,
      `Deno.writeTextFileSync(${JSON.stringify(mark)}, "");
       await new Promise((r) => setTimeout(r, 120_000))`,
    ]);
    await pollUntil("the run to be in flight", async () => {
      try {
        await Deno.stat(mark);
        return true;
      } catch {
        return undefined;
      }
    }, { timeoutMs: 30_000 });
    const stop = await gw.cli(["stop"]);
    assert.equal(stop.code, 0, stop.stderr);
    const result = await running;
    const document = parseRun(result.stdout);
    assert.equal(document.error?.kind, "Cancelled", result.stdout + result.stderr);
    assert.equal(result.code, 1);
  });
});

Deno.test("after kill -9 of the server, the next server ends what its runners started", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  // Without the OS sandbox's PID namespace: the runner dies with its server (the parent-death
  // signal), but a process it started lives on in its group until the next server reaps it.
  const files = await runTestRoot({
    config: { exec: { osSandbox: "off", maxPermissions: { run: ["sleep"] } } },
  });
  await withRunHarness({ files }, async (gw) => {
    const server = await startForegroundServer(gw);
    const busy = runCli(
      [
        "--root",
        gw.root,
        "exec",
        "--no-check",
        "--allow-run=sleep",
        'new Deno.Command("sleep", { args: ["300"] }).spawn();\nwhile (true) {}',
      ],
      {
        env: {
          GATEWAY_DATA_DIR: gw.dataDir,
          NO_COLOR: "1",
          HOME: Deno.env.get("HOME") ?? gw.cwd,
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        },
        cwd: gw.cwd,
      },
    );
    const ledger = join(gw.dataDir, "state", `children-${server.pid}.log`);
    const cpuTicks = (pid: number) => {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(fields[11]) + Number(fields[12]);
      } catch {
        return 0;
      }
    };
    // Wait until the ledger names the busy runner: a child that has spun for a second of CPU.
    const children = await pollUntil("the busy runner to be spinning", async () => {
      try {
        const pids = (await Deno.readTextFile(ledger)).trim().split("\n").map((l) =>
          Number(l.split(" ")[0])
        );
        return pids.some((pid) => cpuTicks(pid) > 100) ? pids : undefined;
      } catch {
        return undefined;
      }
    }, { timeoutMs: 60_000 });
    // Everything in the runners' groups: the busy runner and the sleep it started.
    const members = () => children.flatMap((pid) => liveGroupMembers(pid));
    const started = members();
    Deno.kill(server.pid, "SIGKILL");
    await server.status;
    await busy;
    await pollUntil(
      "the runners to die with their server",
      () => children.every((p) => !processAlive(p)),
    );
    const survivors = started.filter(processAlive);
    assert.ok(
      survivors.length > 0,
      "nothing a runner started outlived the server: nothing to prove",
    );
    const next = await startForegroundServer(gw);
    try {
      await pollUntil(
        "everything the killed server's runners started to be gone",
        () => Promise.resolve(survivors.every((pid) => !processAlive(pid)) ? true : undefined),
        {
          last: () => survivors.filter(processAlive),
        },
      );
    } finally {
      Deno.kill(next.pid, "SIGTERM");
      await next.status;
    }
  });
});

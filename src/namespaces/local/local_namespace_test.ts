import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ToolCallError, type ToolCallOptions } from "../namespace.ts";
import type { ToolModuleConfig } from "../../config/gateway_config.ts";
import { LocalNamespace, type LocalNamespaceOptions } from "./local_namespace.ts";
import { SharedToolHosts } from "./shared_tool_host.ts";
import { rejection } from "../../../test/support/async_assertions.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

const FIXTURES = new URL("../../../test/fixtures/tool_modules/", import.meta.url);
// One signature cache for the whole file: only the first load of each text starts ts-morph.
const CACHE_DIR = await Deno.makeTempDir({ prefix: "gateway-local-ns-cache-" });
globalThis.addEventListener("unload", () => Deno.removeSync(CACHE_DIR, { recursive: true }));

const CALL: ToolCallOptions = {
  signal: new AbortController().signal,
  callTimeoutMs: 5_000,
  callMaxMs: 10_000,
};

const QUIET = { debug() {}, info() {}, warn() {}, error() {} };

function fixturePath(name: string): string {
  return fileURLToPath(new URL(name, FIXTURES));
}

/** Runs `body` with a namespace, always stopping it. */
async function withNamespace(
  name: string,
  options: Partial<LocalNamespaceOptions> & { file: string },
  body: (namespace: LocalNamespace) => Promise<void>,
): Promise<void> {
  const namespace = new LocalNamespace(name, {
    config: { settings: {}, disabled: false },
    dataDir: "/tmp/gateway-test-data",
    cacheDir: CACHE_DIR,
    logger: QUIET,
    loadTimeoutMs: 2_000,
    restartDelayMs: 100,
    abortGraceMs: 400,
    killGraceMs: 500,
    ...options,
  });
  try {
    await body(namespace);
  } finally {
    await namespace.stop();
  }
}

/** A scratch root with `tools/<name>.ts` holding `text`; removed afterwards. */
async function withRoot(
  files: Record<string, string>,
  body: (root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "gateway-root-" });
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${root}/${path.split("/").slice(0, -1).join("/")}`, { recursive: true });
      await Deno.writeTextFile(`${root}/${path}`, text);
    }
    await body(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("start() makes a good module ready with its tools and declarations", async () => {
  await withNamespace("inventory", { file: fixturePath("inventory.ts") }, async (ns) => {
    assert.equal(ns.kind, "local");
    await ns.start();
    assert.deepEqual(ns.status(), { state: "ready" });
    const catalogue = ns.catalogue();
    assert.deepEqual(
      catalogue.tools.map((t) => t.originalName),
      ["count", "delete", "get", "list", "put", "total"],
    );
    assert.match(catalogue.declarations, /export interface Item \{/);
    assert.deepEqual(catalogue.warnings, []);
  });
});

Deno.test("callTool() returns the value and a raw envelope carrying it", async () => {
  await withNamespace("inventory", { file: fixturePath("inventory.ts") }, async (ns) => {
    await ns.start();
    const item = { sku: "A-1", quantity: 2, location: { warehouse: "BER-1" }, tags: [] };
    const put = await ns.callTool("put", { item }, CALL);
    assert.deepEqual(put.value, item);
    assert.deepEqual(put.raw, {
      content: [{ type: "text", text: JSON.stringify(item) }],
      structuredContent: item,
    });
    const removed = await ns.callTool("delete", { sku: "A-1" }, CALL);
    assert.equal(removed.value, true);
    // `list` takes an object whose properties are all optional: no argument means `{}`.
    assert.deepEqual((await ns.callTool("list", undefined, CALL)).value, []);
  });
});

Deno.test("callTool() gives an empty content array for a tool that returns nothing", async () => {
  await withNamespace("faulty", { file: fixturePath("faulty_tools.ts") }, async (ns) => {
    await ns.start();
    const result = await ns.callTool("echo", { value: undefined }, CALL);
    assert.equal(result.value, undefined);
    assert.deepEqual(result.raw, { content: [] });
  });
});

Deno.test("callTool() rejects with ToolError for a throwing tool and UnknownTool for a typo", async () => {
  await withNamespace("faulty", { file: fixturePath("faulty_tools.ts") }, async (ns) => {
    await ns.start();
    const thrown = await rejection(ns.callTool("fail", { message: "no such key" }, CALL));
    assert.ok(thrown instanceof ToolCallError);
    assert.equal(thrown.kind, "ToolError");
    assert.equal(thrown.message, "no such key");
    const unknown = await rejection(ns.callTool("fial", {}, CALL));
    assert.ok(unknown instanceof ToolCallError);
    assert.equal(unknown.kind, "UnknownTool");
    assert.match(
      unknown.message,
      /^Unknown tool "faulty.fial": did you mean "faulty.fail"\?; "faulty" has: /,
    );
  });
});

Deno.test("callTool() uses the smaller of callTimeoutMs and callMaxMs as the deadline", async () => {
  await withNamespace("faulty", { file: fixturePath("faulty_tools.ts") }, async (ns) => {
    await ns.start();
    const error = await rejection(
      ns.callTool("waitForAbort", undefined, { ...CALL, callTimeoutMs: 5_000, callMaxMs: 150 }),
    );
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "ToolTimeout");
    assert.equal(error.message, `tool "faulty.waitForAbort" did not answer within 150 ms`);
  });
});

Deno.test("start() marks broken modules failed with file, line and reason", async () => {
  // Only the hanging module waits out its load timeout; the others get one a loaded machine
  // cannot reach, so their own reason is what they report.
  const cases: Array<[string, string, number]> = [
    [
      "throws_at_import.ts",
      `Cannot load tool module "tool_modules/throws_at_import.ts": import failed: database is ` +
      `not configured (line 3)`,
      60_000,
    ],
    [
      "two_params.ts",
      `Cannot load tool module "tool_modules/two_params.ts": export "add" takes 2 parameters ` +
      `(line 9)`,
      60_000,
    ],
    [
      "hangs_at_import.ts",
      `Cannot load tool module "tool_modules/hangs_at_import.ts": import did not finish within ` +
      `1000 ms`,
      1_000,
    ],
  ];
  for (const [fixture, reason, loadTimeoutMs] of cases) {
    await withNamespace(
      "broken",
      { file: fixturePath(fixture), loadTimeoutMs },
      async (ns) => {
        await ns.start();
        assert.deepEqual(ns.status(), { state: "failed", reason }, fixture);
        const call = await rejection(ns.callTool("ping", undefined, CALL));
        assert.ok(call instanceof ToolCallError);
        assert.equal(call.kind, "NamespaceUnavailable");
      },
    );
  }
});

Deno.test("start() reports a syntax error found by extraction with its line", async () => {
  const text = await Deno.readTextFile(fixturePath("syntax_error.txt"));
  await withRoot({ "tools/broken.ts": text }, async (root) => {
    await withNamespace("broken", { file: `${root}/tools/broken.ts` }, async (ns) => {
      await ns.start();
      assert.deepEqual(ns.status(), {
        state: "failed",
        reason: `Cannot load tool module "tools/broken.ts": syntax error: Expression expected ` +
          `(line 4)`,
      });
      assert.deepEqual(ns.catalogue().tools, []);
    });
  });
});

Deno.test("a module that hangs at import does not hold up another namespace", async () => {
  await withNamespace("good", { file: fixturePath("faulty_tools.ts") }, async (good) => {
    await withNamespace(
      "hung",
      { file: fixturePath("busy_at_import.ts"), loadTimeoutMs: 2_500 },
      async (hung) => {
        const hungStart = hung.start();
        await good.start();
        assert.deepEqual(good.status(), { state: "ready" });
        assert.equal((await good.callTool("echo", { value: 1 }, CALL)).value, 1);
        assert.deepEqual(hung.status(), { state: "starting" });
        await hungStart;
        assert.equal(hung.status().state, "failed");
      },
    );
  });
});

Deno.test("a crashed host marks the namespace failed, then ready again after the restart", async () => {
  await withNamespace("faulty", { file: fixturePath("faulty_tools.ts") }, async (ns) => {
    const seen: string[] = [];
    ns.onChange(() => seen.push(ns.status().state));
    await ns.start();
    await rejection(ns.callTool("crash", { code: 7 }, CALL));
    const status = ns.status();
    assert.equal(status.state, "failed");
    if (status.state === "failed") {
      assert.match(status.reason, /^tool host for "faulty" exited with code 7 \(retrying in/);
    }
    await pollUntil("the namespace to be ready", () => ns.status().state === "ready", {
      timeoutMs: 5_000,
    });
    assert.equal((await ns.callTool("echo", { value: "ok" }, CALL)).value, "ok");
    assert.deepEqual(seen.slice(0, 2), ["ready", "failed"]);
    assert.equal(seen.at(-1), "ready");
  });
});

Deno.test("reload() picks up an edited module and notifies listeners", async () => {
  const v1 = `/** Version. */\nexport function version(): number { return 1; }\n` +
    `export function pid(): number { return Deno.pid; }\n`;
  await withRoot({ "tools/live.ts": v1 }, async (root) => {
    const file = `${root}/tools/live.ts`;
    await withNamespace("live", { file }, async (ns) => {
      let changes = 0;
      ns.onChange(() => changes++);
      await ns.start();
      assert.equal((await ns.callTool("version", undefined, CALL)).value, 1);
      const firstPid = (await ns.callTool("pid", undefined, CALL)).value;

      await ns.reload(); // unchanged text: nothing restarts
      assert.equal((await ns.callTool("pid", undefined, CALL)).value, firstPid);

      const before = changes;
      await Deno.writeTextFile(
        file,
        v1.replace("return 1", "return 2") +
          `/** New. */\nexport function added(args: { n: number }): number { return args.n; }\n`,
      );
      await ns.reload();
      assert.ok(changes > before);
      assert.deepEqual(ns.status(), { state: "ready" });
      assert.deepEqual(ns.catalogue().tools.map((t) => t.originalName), [
        "added",
        "pid",
        "version",
      ]);
      assert.equal((await ns.callTool("version", undefined, CALL)).value, 2);
      assert.equal((await ns.callTool("added", { n: 5 }, CALL)).value, 5);
      assert.notEqual((await ns.callTool("pid", undefined, CALL)).value, firstPid);

      await Deno.writeTextFile(
        file,
        `export function two(a: string, b: string) { return a + b; }\n`,
      );
      await ns.reload();
      assert.deepEqual(ns.status(), {
        state: "failed",
        reason: `Cannot load tool module "tools/live.ts": export "two" takes 2 parameters (line 1)`,
      });

      await Deno.writeTextFile(file, v1);
      await ns.reload();
      assert.deepEqual(ns.status(), { state: "ready" });
      assert.equal((await ns.callTool("version", undefined, CALL)).value, 1);
    });
  });
});

Deno.test("reload() lets calls in flight finish on the old host", async () => {
  const text = `export async function sleep(args: { ms: number }): Promise<number> {\n` +
    `  await new Promise((resolve) => setTimeout(resolve, args.ms));\n  return args.ms;\n}\n`;
  await withRoot({ "tools/slow.ts": text }, async (root) => {
    await withNamespace("slow", { file: `${root}/tools/slow.ts` }, async (ns) => {
      await ns.start();
      const calls = Array.from(
        { length: 20 },
        (_, i) => ns.callTool("sleep", { ms: 200 + i }, CALL),
      );
      await Deno.writeTextFile(`${root}/tools/slow.ts`, `${text}export const extra = () => 1;\n`);
      await ns.reload();
      const results = await Promise.all(calls);
      assert.deepEqual(results.map((r) => r.value), Array.from({ length: 20 }, (_, i) => 200 + i));
      assert.equal((await ns.callTool("extra", undefined, CALL)).value, 1);
    });
  });
});

Deno.test("a module may use the import map of its root's deno.json", async () => {
  await withRoot({
    "deno.json": JSON.stringify({ imports: { "greeting": "./lib/greeting.ts" } }),
    "lib/greeting.ts": `export const greeting = "hello";\n`,
    "tools/greet.ts": `import { greeting } from "greeting";\n` +
      `export function greet(args: { name: string }): string { return greeting + " " + args.name; }\n`,
  }, async (root) => {
    await withNamespace("greet", { file: `${root}/tools/greet.ts` }, async (ns) => {
      await ns.start();
      assert.deepEqual(ns.status(), { state: "ready" });
      assert.equal((await ns.callTool("greet", { name: "ada" }, CALL)).value, "hello ada");
    });
  });
});

Deno.test("a disabled module is never loaded and refuses calls", async () => {
  await withNamespace(
    "faulty",
    { file: fixturePath("faulty_tools.ts"), config: { settings: {}, disabled: true } },
    async (ns) => {
      await ns.start();
      assert.deepEqual(ns.status(), { state: "disabled" });
      const error = await rejection(ns.callTool("echo", { value: 1 }, CALL));
      assert.ok(error instanceof ToolCallError);
      assert.equal(error.kind, "NamespaceUnavailable");
      assert.equal(error.message, `namespace "faulty" is disabled in gateway.json`);
    },
  );
});

Deno.test("stop() ends the host and later calls fail as unavailable", async () => {
  await withNamespace("faulty", { file: fixturePath("faulty_tools.ts") }, async (ns) => {
    await ns.start();
    const pid = (await ns.callTool("settings", undefined, CALL)).value;
    assert.ok(pid !== undefined);
    await ns.stop();
    await ns.stop(); // idempotent
    const error = await rejection(ns.callTool("echo", { value: 1 }, CALL));
    assert.ok(error instanceof ToolCallError);
    assert.equal(error.kind, "NamespaceUnavailable");
  });
});

Deno.test("a missing file fails with a clear reason", async () => {
  await withNamespace("gone", { file: "/nonexistent/tools/gone.ts" }, async (ns) => {
    await ns.start();
    assert.deepEqual(ns.status(), {
      state: "failed",
      reason: `Cannot load tool module "tools/gone.ts": the file cannot be read`,
    });
  });
});

Deno.test("start() waits for a reload that replaced it, and works again after stop()", async () => {
  await withRoot({ "tools/v.ts": `export const v = () => 1;\n` }, async (root) => {
    await withNamespace("v", { file: `${root}/tools/v.ts` }, async (ns) => {
      const starting = ns.start();
      await Deno.writeTextFile(`${root}/tools/v.ts`, `export const v = () => 2;\n`);
      const reloading = ns.reload();
      await starting;
      assert.deepEqual(ns.status(), { state: "ready" });
      assert.equal((await ns.callTool("v", undefined, CALL)).value, 2);
      await reloading;

      await ns.stop();
      assert.equal(ns.status().state, "failed");
      await ns.start();
      assert.deepEqual(ns.status(), { state: "ready" });
      assert.equal((await ns.callTool("v", undefined, CALL)).value, 2);
    });
  });
});

Deno.test("modules share one tool host process unless tools.NAME.isolate or maxMemoryMb", async () => {
  const pidTool = "/** Pid. @module */\n/** The host's pid. */\nexport function pid(): number {\n" +
    "  return Deno.pid;\n}\n";
  await withRoot({
    "tools/a.ts": pidTool,
    "tools/b.ts": pidTool,
    "tools/own.ts": pidTool,
    "tools/capped.ts": pidTool,
  }, async (root) => {
    const shared = new SharedToolHosts({ logger: QUIET, killGraceMs: 500 });
    const make = (name: string, config: Partial<ToolModuleConfig>) =>
      new LocalNamespace(name, {
        file: `${root}/tools/${name}.ts`,
        config: { settings: {}, disabled: false, ...config },
        dataDir: "/tmp/gateway-test-data",
        cacheDir: CACHE_DIR,
        logger: QUIET,
        shared,
      });
    const namespaces = [
      make("a", {}),
      make("b", {}),
      make("own", { isolate: true }),
      make("capped", { maxMemoryMb: 256 }),
    ];
    try {
      await Promise.all(namespaces.map((ns) => ns.start()));
      const [a, b, own, capped] = await Promise.all(
        namespaces.map(async (ns) => (await ns.callTool("pid", undefined, CALL)).value),
      );
      assert.equal(a, b);
      assert.notEqual(own, a);
      assert.notEqual(capped, a);
      assert.notEqual(capped, own);
    } finally {
      await Promise.all(namespaces.map((ns) => ns.stop()));
      await shared.stop();
    }
  });
});

/**
 * The contract every {@linkcode GatewayStore} passes, run against SQLite and PostgreSQL alike
 * (`storeContract({ name, backing })` from each store's test file): the same records in, the same
 * answers out, and two stores opened on one backing database see each other's writes, as two
 * gateway instances on one database must.
 * @module
 */

import assert from "node:assert/strict";
import type { GatewayStore } from "../../src/store/gateway_store.ts";
import type { RunHistoryOptions, RunRecord, ToolCallRecord } from "../../src/store/run_history.ts";

/** One backing database for a test: open any number of stores on it, then remove it. */
export interface StoreBacking {
  open(options?: RunHistoryOptions): Promise<GatewayStore>;
  remove(): Promise<void>;
}

/** A run record with defaults, for contract tests. */
export function sampleRun(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    runId: crypto.randomUUID(),
    startedAt: 1_700_000_000_000,
    durationMs: 12,
    source: "const x = await tools.kv.get({ key: 'a' });\nx",
    args: ["--flag", "value"],
    stdinBytes: 5,
    cwd: "/home/user/project",
    client: "cli",
    status: "ok",
    errorKind: null,
    errorMessage: null,
    stdout: "hello\n",
    stderr: "",
    result: JSON.stringify({ value: 1 }),
    exitCode: 0,
    toolCalls: [],
    name: null,
    ...overrides,
  };
}

/** Registers the contract tests for one store implementation. */
export function storeContract(options: {
  name: string;
  backing: () => Promise<StoreBacking>;
  ignore?: boolean;
}): void {
  const { name, backing } = options;
  const test = (title: string, fn: (db: StoreBacking) => Promise<void>) =>
    Deno.test({
      name: `${name} store: ${title}`,
      ignore: options.ignore ?? false,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const db = await backing();
        try {
          await fn(db);
        } finally {
          await db.remove();
        }
      },
    });

  test("is at the latest schema version after opening", async (db) => {
    const store = await db.open();
    try {
      const { GATEWAY_MIGRATIONS } = await import("../../src/store/gateway_database.ts");
      const { POSTGRES_MIGRATIONS } = await import("../../src/store/postgres_store.ts");
      assert.equal(POSTGRES_MIGRATIONS.length, GATEWAY_MIGRATIONS.length);
      assert.equal(await store.schemaVersion(), GATEWAY_MIGRATIONS.length);
    } finally {
      await store.close();
    }
  });

  test("answeredApprovals() lists held calls with their answers, newest first", async (db) => {
    const store = await db.open();
    try {
      assert.deepEqual(await store.history.answeredApprovals(10), []);
      const call = (tool: string, startedAt: number, approval?: ToolCallRecord["approval"]) => ({
        namespace: "kv",
        tool,
        startedAt,
        durationMs: 1,
        ok: approval?.allowed ?? true,
        errorKind: approval?.allowed === false ? "PolicyDenied" : null,
        ...(approval === undefined ? {} : { approval }),
      });
      const first = sampleRun({
        startedAt: 1_000,
        toolCalls: [
          call("get", 1_001),
          call("set", 1_002, { allowed: true, by: "cli", at: 1_050 }),
        ],
      });
      const second = sampleRun({
        startedAt: 2_000,
        toolCalls: [call("delete", 2_001, { allowed: false, by: "deadline", at: 2_900 })],
      });
      await store.history.record(first);
      await store.history.record(second);
      assert.deepEqual(await store.history.answeredApprovals(10), [
        {
          runId: second.runId,
          namespace: "kv",
          tool: "delete",
          startedAt: 2_001,
          allowed: false,
          by: "deadline",
          at: 2_900,
        },
        {
          runId: first.runId,
          namespace: "kv",
          tool: "set",
          startedAt: 1_002,
          allowed: true,
          by: "cli",
          at: 1_050,
        },
      ]);
      assert.equal((await store.history.answeredApprovals(1)).length, 1);
    } finally {
      await store.close();
    }
  });

  test("record() then get() returns the run whole, with tool calls and approvals", async (db) => {
    const store = await db.open();
    try {
      const record = sampleRun({
        status: "failed",
        errorKind: "ToolError",
        errorMessage: "kv.set failed: disk full",
        exitCode: 1,
        name: "backup",
        startedAt: 1_760_000_000_123,
        toolCalls: [
          {
            namespace: "kv",
            tool: "get",
            startedAt: 1_760_000_000_200,
            durationMs: 3,
            ok: true,
            errorKind: null,
            result: JSON.stringify({ value: "é 🙂" }),
          },
          {
            namespace: "kv",
            tool: "set",
            startedAt: 1_760_000_000_300,
            durationMs: 4,
            ok: false,
            errorKind: "ToolError",
            approval: { allowed: true, by: "alice", at: 1_760_000_000_250 },
            result: "kv.set failed: disk full",
          },
          {
            namespace: "kv",
            tool: "list",
            startedAt: 1_760_000_000_400,
            durationMs: 1,
            ok: true,
            errorKind: null,
          },
        ],
      });
      await store.history.record(record);
      const stored = await store.history.get(record.runId);
      assert.ok(stored);
      assert.equal(stored.runId, record.runId);
      assert.equal(stored.startedAt, record.startedAt);
      assert.equal(stored.status, "failed");
      assert.equal(stored.errorKind, "ToolError");
      assert.equal(stored.errorMessage, "kv.set failed: disk full");
      assert.deepEqual(stored.args, ["--flag", "value"]);
      assert.equal(stored.name, "backup");
      assert.equal(stored.result, JSON.stringify({ value: 1 }));
      assert.equal(stored.exitCode, 1);
      assert.equal(stored.stdoutCapped, false);
      assert.deepEqual(
        stored.toolCalls,
        record.toolCalls.map((call, i) => i === 0 ? call : { ...call }),
      );
      assert.equal(await store.history.get("no-such-run-id"), null);
    } finally {
      await store.close();
    }
  });

  test("list() is newest first, filters failed runs and pages with offset", async (db) => {
    const store = await db.open();
    try {
      for (let i = 0; i < 5; i++) {
        await store.history.record(sampleRun({
          runId: `run-${i}`,
          startedAt: 1_700_000_000_000 + i,
          status: i % 2 === 0 ? "ok" : "failed",
          errorKind: i % 2 === 0 ? null : "ScriptError",
          source: `\n\n  // step ${i}\nreturn ${i}`,
        }));
      }
      const all = await store.history.list({ limit: 10 });
      assert.deepEqual(all.map((r) => r.runId), ["run-4", "run-3", "run-2", "run-1", "run-0"]);
      assert.equal(all[0]?.preview, "// step 4");
      assert.equal(all[1]?.errorKind, "ScriptError");
      const failed = await store.history.list({ limit: 10, failed: true });
      assert.deepEqual(failed.map((r) => r.runId), ["run-3", "run-1"]);
      const page = await store.history.list({ limit: 2, offset: 2 });
      assert.deepEqual(page.map((r) => r.runId), ["run-2", "run-1"]);
      assert.equal(await store.history.count(), 5);
      assert.equal(await store.history.count({ failed: true }), 2);
    } finally {
      await store.close();
    }
  });

  test("get() finds a run by a unique prefix and names the runs an ambiguous one matches", async (db) => {
    const store = await db.open();
    try {
      await store.history.record(sampleRun({ runId: "abcdef-111" }));
      await store.history.record(sampleRun({ runId: "abcdef-222" }));
      assert.equal((await store.history.get("abcdef-1"))?.runId, "abcdef-111");
      await assert.rejects(
        store.history.get("abcdef"),
        (error: unknown) =>
          error instanceof RangeError && error.message.includes('"abcdef-111"') &&
          error.message.includes('"abcdef-222"'),
      );
    } finally {
      await store.close();
    }
  });

  test("record() redacts secrets and caps outputs the same way in every store", async (db) => {
    const store = await db.open({ secrets: ["sk-live-123456"], maxOutputBytes: 16 });
    try {
      const record = sampleRun({
        source: "use sk-live-123456 here",
        stdout: "token=sk-live-123456 and a long tail of output",
        result: JSON.stringify("x".repeat(100)),
      });
      await store.history.record(record);
      const stored = await store.history.get(record.runId);
      assert.ok(stored);
      assert.equal(stored.source, "use [REDACTED] here");
      assert.ok(!stored.stdout.includes("sk-live"));
      assert.equal(stored.stdoutCapped, true);
      assert.ok(stored.stdoutBytes > 16);
      assert.equal(stored.result, null);
      assert.equal(stored.resultCapped, true);
    } finally {
      await store.close();
    }
  });

  test("record() redacts tool call results and caps each at 4 KiB with a note", async (db) => {
    const store = await db.open({ secrets: ["sk-live-123456"] });
    try {
      const call = {
        namespace: "kv",
        tool: "get",
        startedAt: 1_760_000_000_200,
        durationMs: 2,
        ok: true,
        errorKind: null,
      };
      const big = JSON.stringify({ token: "sk-live-123456", blob: "é".repeat(5000) });
      const record = sampleRun({
        toolCalls: [
          { ...call, result: JSON.stringify({ token: "sk-live-123456" }) },
          { ...call, result: big },
          // The runner holds only a head of a huge result and says how big it was.
          { ...call, result: "y".repeat(100), resultTotalBytes: 10_000 },
        ],
      });
      await store.history.record(record);
      const stored = await store.history.get(record.runId);
      assert.ok(stored);
      assert.equal(stored.toolCalls.length, 3);
      const [small = "", capped = "", head = ""] = stored.toolCalls.map((c) => c.result ?? "");
      assert.equal(small, JSON.stringify({ token: "[REDACTED]" }));
      assert.ok(!capped.includes("sk-live"), capped.slice(0, 80));
      const note = /…\[(\d+) more bytes\]$/.exec(capped);
      assert.ok(note, capped.slice(-80));
      const kept = capped.slice(0, note.index);
      assert.ok(new TextEncoder().encode(kept).length <= 4096);
      // The note counts the bytes of the whole result as the call answered it.
      assert.equal(
        new TextEncoder().encode(kept).length + Number(note[1]),
        new TextEncoder().encode(big).length,
      );
      assert.equal(head, `${"y".repeat(100)}…[9900 more bytes]`);
    } finally {
      await store.close();
    }
  });

  test("prune() keeps the newest maxRuns and drops runs older than maxAgeDays", async (db) => {
    const now = 1_800_000_000_000;
    const store = await db.open({ now: () => now });
    try {
      for (let i = 0; i < 6; i++) {
        await store.history.record(sampleRun({
          runId: `p-${i}`,
          startedAt: i === 0 ? now - 40 * 86_400_000 : now - i,
          toolCalls: [{
            namespace: "kv",
            tool: "get",
            startedAt: now,
            durationMs: 1,
            ok: true,
            errorKind: null,
          }],
        }));
      }
      const { deleted } = await store.history.prune({ maxRuns: 3, maxAgeDays: 30 });
      assert.equal(deleted, 3);
      const kept = await store.history.list({ limit: 10 });
      assert.deepEqual(kept.map((r) => r.runId), ["p-1", "p-2", "p-3"]);
    } finally {
      await store.close();
    }
  });

  test("workflow sessions: one running per name, moves checked against where they start", async (db) => {
    const a = await db.open();
    const b = await db.open();
    try {
      const input = {
        name: "s1",
        file: "/w/two.yaml",
        fileHash: "h1",
        fileText: "steps: []",
        vars: { n: 2, ok: true, who: "ada" },
        step: 0,
        pass: 1,
        at: 1000,
      };
      const first = await a.workflows.createUnlessRunning(input, [
        { at: 1000, kind: "start", step: 1, pass: 1, reason: null },
      ]);
      assert.ok("created" in first);
      const session = first.created;
      assert.deepEqual(
        [session.name, session.status, session.step, session.vars],
        ["s1", "running", 0, { n: 2, ok: true, who: "ada" }],
      );
      const second = await b.workflows.createUnlessRunning({ ...input, at: 2000 }, []);
      assert.ok("running" in second && second.running.id === session.id);
      const from = { status: "running" as const, step: 0, pass: 1, fileHash: "h1" };
      const move = (at: number) => ({
        status: "running" as const,
        step: 1,
        pass: 1,
        at,
        events: [{ at, kind: "step" as const, step: 1, pass: 1, reason: null }],
      });
      // Two instances move the session from the same place at once: exactly one wins.
      const results = await Promise.all([
        a.workflows.advance(session.id, from, move(3000)),
        b.workflows.advance(session.id, from, move(3001)),
      ]);
      assert.deepEqual(results.filter(Boolean).length, 1);
      const latest = await b.workflows.latest("s1");
      assert.equal(latest?.step, 1);
      assert.deepEqual((await a.workflows.events(session.id)).map((e) => e.kind), [
        "start",
        "step",
      ]);
      assert.deepEqual((await a.workflows.running()).map((s) => s.name), ["s1"]);
      assert.equal(
        await a.workflows.advance(session.id, { ...from, step: 1 }, {
          status: "aborted",
          step: 1,
          pass: 1,
          at: 4000,
          file: { fileHash: "h2", fileText: "steps: [x]" },
          events: [{ at: 4000, kind: "abort", step: 2, pass: 1, reason: "done here" }],
        }),
        true,
      );
      const ended = await a.workflows.latest("s1");
      assert.deepEqual([ended?.status, ended?.fileHash], ["aborted", "h2"]);
      assert.equal((await b.workflows.events(session.id)).at(-1)?.reason, "done here");
      assert.deepEqual(await a.workflows.running(), []);
      assert.equal(await a.workflows.latest("never"), null);
      assert.ok("created" in await b.workflows.createUnlessRunning({ ...input, at: 5000 }, []));
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("two stores on one database see each other's runs (two instances)", async (db) => {
    const a = await db.open();
    const b = await db.open();
    try {
      const record = sampleRun({ runId: "from-instance-a" });
      await a.history.record(record);
      assert.equal((await b.history.get("from-instance-a"))?.source, record.source);
      await Promise.all(
        Array.from(
          { length: 20 },
          (_, i) =>
            (i % 2 === 0 ? a : b).history.record(sampleRun({ runId: `c-${i}`, startedAt: i })),
        ),
      );
      assert.equal(await a.history.count(), 21);
      assert.equal(await b.history.count(), 21);
    } finally {
      await a.close();
      await b.close();
    }
  });
}

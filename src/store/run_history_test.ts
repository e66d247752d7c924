import assert from "node:assert/strict";
import { join } from "node:path";
import { type GatewayDatabase, openGatewayDatabase } from "./gateway_database.ts";
import { RunHistory, type RunRecord } from "./run_history.ts";

const HISTORY_WRITER = new URL("./testdata/history_writer.ts", import.meta.url).pathname;

function run(overrides: Partial<RunRecord> = {}): RunRecord {
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

async function withDatabase(fn: (db: GatewayDatabase, dir: string) => Promise<void> | void) {
  const dir = await Deno.makeTempDir();
  const db = openGatewayDatabase(join(dir, "gateway.db"));
  try {
    await fn(db, dir);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function fileContains(path: string, needle: string): Promise<boolean> {
  try {
    const bytes = await Deno.readFile(path);
    return new TextDecoder("latin1").decode(bytes).includes(needle);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

Deno.test("RunHistory.record() stores a run and get() returns it whole with its tool calls", async () => {
  await withDatabase((db) => {
    const history = new RunHistory(db);
    const record = run({
      status: "failed",
      errorKind: "ToolError",
      errorMessage: "kv.set failed: disk full",
      exitCode: 1,
      name: "backup",
      stderr: "warn\n",
      toolCalls: [
        { namespace: "kv", tool: "get", startedAt: 1, durationMs: 2, ok: true, errorKind: null },
        {
          namespace: "kv",
          tool: "set",
          startedAt: 3,
          durationMs: 4,
          ok: false,
          errorKind: "ToolError",
        },
      ],
    });
    history.record(record);
    const stored = history.get(record.runId);
    assert.deepEqual(stored, {
      ...record,
      stdoutBytes: 6,
      stdoutCapped: false,
      stderrBytes: 5,
      stderrCapped: false,
      resultCapped: false,
    });
    assert.equal(history.get("no-such-run"), null);
  });
});

Deno.test("RunHistory.record() throws and stores nothing when the run id is already taken", async () => {
  await withDatabase((db) => {
    const history = new RunHistory(db);
    const record = run({
      toolCalls: [{
        namespace: "a",
        tool: "b",
        startedAt: 1,
        durationMs: 1,
        ok: true,
        errorKind: null,
      }],
    });
    history.record(record);
    assert.throws(() => history.record({ ...record, stdout: "second" }), {
      message: new RegExp(`Cannot record run "${record.runId}" in history`),
    });
    assert.equal(history.get(record.runId)?.stdout, "hello\n");
    assert.equal(history.get(record.runId)?.toolCalls.length, 1);
    assert.equal(history.count(), 1);
  });
});

Deno.test("RunHistory.get() accepts a unique id prefix of at least 6 characters", async () => {
  await withDatabase((db) => {
    const history = new RunHistory(db);
    history.record(run({ runId: "abcdef-1111" }));
    history.record(run({ runId: "abcdef-2222" }));
    history.record(run({ runId: "123456-3333" }));
    assert.equal(history.get("123456")?.runId, "123456-3333");
    assert.equal(history.get("abcdef-2")?.runId, "abcdef-2222");
    assert.equal(history.get("12345"), null, "shorter prefixes are not looked up");
    assert.throws(() => history.get("abcdef"), {
      name: "RangeError",
      message: /matches several runs: "abcdef-1111", "abcdef-2222"/,
    });
  });
});

Deno.test("RunHistory.list() returns summaries newest first, with paging and a failed filter", async () => {
  await withDatabase((db) => {
    const history = new RunHistory(db);
    for (let i = 0; i < 5; i++) {
      history.record(run({
        runId: `run-${i}`,
        startedAt: 1000 + i,
        source: `\n  // run ${i}\nconsole.log(${i})`,
        status: i % 2 === 0 ? "failed" : "ok",
        errorKind: i % 2 === 0 ? "Timeout" : null,
        toolCalls: Array.from({ length: i }, () => ({
          namespace: "kv",
          tool: "get",
          startedAt: 1,
          durationMs: 1,
          ok: true,
          errorKind: null,
        })),
      }));
    }
    const all = history.list({ limit: 10 });
    assert.deepEqual(all.map((r) => r.runId), ["run-4", "run-3", "run-2", "run-1", "run-0"]);
    assert.deepEqual(all[0], {
      runId: "run-4",
      startedAt: 1004,
      durationMs: 12,
      name: null,
      status: "failed",
      errorKind: "Timeout",
      client: "cli",
      cwd: "/home/user/project",
      toolCalls: 4,
      preview: "// run 4",
    });
    assert.deepEqual(history.list({ limit: 2, offset: 1 }).map((r) => r.runId), ["run-3", "run-2"]);
    assert.deepEqual(
      history.list({ limit: 10, failed: true }).map((r) => r.runId),
      ["run-4", "run-2", "run-0"],
    );
    assert.equal(history.count({ failed: true }), 3);
  });
});

Deno.test("RunHistory.record() redacts every secret in source, args, outputs, result and error", async () => {
  await withDatabase(async (db, dir) => {
    const secrets = ["sk-test-123456", 'quo"te\\secret', "abc", ""];
    const history = new RunHistory(db, { secrets });
    const record = run({
      source: "const key = 'sk-test-123456'; sk-test-123456",
      args: ["--token=sk-test-123456", "plain"],
      stdout: "token sk-test-123456 and again sk-test-123456\n",
      stderr: 'leak: quo"te\\secret',
      result: JSON.stringify({ key: "sk-test-123456", other: 'quo"te\\secret' }),
      status: "failed",
      errorKind: "ScriptError",
      errorMessage: "bad key sk-test-123456",
      cwd: "/tmp/sk-test-123456",
    });
    history.record(record);
    const stored = history.get(record.runId);
    assert.ok(stored);
    assert.equal(stored.source, "const key = '[REDACTED]'; [REDACTED]");
    assert.deepEqual(stored.args, ["--token=[REDACTED]", "plain"]);
    assert.equal(stored.stdout, "token [REDACTED] and again [REDACTED]\n");
    assert.equal(stored.stderr, "leak: [REDACTED]");
    assert.deepEqual(JSON.parse(stored.result ?? "null"), {
      key: "[REDACTED]",
      other: "[REDACTED]",
    });
    assert.equal(stored.errorMessage, "bad key [REDACTED]");
    assert.equal(stored.cwd, "/tmp/[REDACTED]");
    // Secrets shorter than 4 characters are left alone so ordinary text survives.
    const short = run({ stdout: "abc abc" });
    history.record(short);
    assert.equal(history.get(short.runId)?.stdout, "abc abc");
    db.checkpoint();
    for (const file of ["gateway.db", "gateway.db-wal"]) {
      assert.equal(await fileContains(join(dir, file), "sk-test-123456"), false, file);
    }
  });
});

Deno.test("RunHistory.record() caps stdout and stderr at the byte cap and says so", async () => {
  await withDatabase((db) => {
    const history = new RunHistory(db, { maxOutputBytes: 10 });
    const record = run({
      stdout: "0123456789abcdef",
      stderr: "ééééééé", // 14 bytes; the cap must not split a character
      result: JSON.stringify("a long result that is over the cap"),
    });
    history.record(record);
    const stored = history.get(record.runId);
    assert.ok(stored);
    assert.equal(stored.stdout, "0123456789");
    assert.equal(stored.stdoutBytes, 16);
    assert.equal(stored.stdoutCapped, true);
    assert.equal(stored.stderr, "ééééé");
    assert.equal(stored.stderrBytes, 14);
    assert.equal(stored.stderrCapped, true);
    assert.equal(stored.result, null);
    assert.equal(stored.resultCapped, true);
  });
});

Deno.test("RunHistory.record() never stores part of a secret cut by the cap", async () => {
  await withDatabase((db) => {
    const secret = "sk-test-SECRETVALUE";
    const history = new RunHistory(db, { maxOutputBytes: 20, secrets: [secret] });
    const stdouts = [
      `${"x".repeat(15)}${secret}${"y".repeat(100)}`,
      `${"x".repeat(21)}${secret}`,
      `${secret}${secret}${secret}${"z".repeat(100)}`,
      `${"x".repeat(30)}${secret.slice(0, 8)}`, // a lone beginning past the redaction window
    ];
    for (const stdout of stdouts) {
      const record = run({ stdout });
      history.record(record);
      const stored = history.get(record.runId)?.stdout ?? "";
      assert.ok(!stored.includes("SECRET") && !stored.includes("sk-te"), stored);
      assert.ok(new TextEncoder().encode(stored).length <= 20, stored);
    }
  });
});

Deno.test("RunHistory.record() caps a 20 MB stdout and redacts the part it keeps", async () => {
  await withDatabase((db) => {
    const history = new RunHistory(db, { secrets: ["sk-live-0000"] });
    const record = run({ stdout: "line of output sk-live-0000\n".repeat(750_000) });
    history.record(record);
    const stored = history.get(record.runId);
    assert.ok(stored);
    assert.equal(stored.stdoutCapped, true);
    assert.equal(stored.stdoutBytes, record.stdout.length);
    assert.ok(new TextEncoder().encode(stored.stdout).length <= 1_048_576);
    assert.ok(stored.stdout.startsWith("line of output [REDACTED]\n"));
    assert.ok(!stored.stdout.includes("sk-live"));
  });
});

Deno.test("RunHistory.prune() deletes by age and by count in batches and shrinks the file", async () => {
  await withDatabase(async (db, dir) => {
    const now = 1_800_000_000_000;
    const history = new RunHistory(db, { now: () => now });
    const day = 86_400_000;
    const bulk = "b".repeat(8000);
    db.transaction(() => {
      for (let i = 0; i < 1200; i++) {
        history.record(run({
          runId: `old-${i}`,
          startedAt: now - 40 * day + i,
          stdout: `MARKER-DELETED-${i} ${bulk}`,
          toolCalls: [{
            namespace: "n",
            tool: "t",
            startedAt: 1,
            durationMs: 1,
            ok: true,
            errorKind: null,
          }],
        }));
      }
      for (let i = 0; i < 30; i++) {
        history.record(run({ runId: `new-${i}`, startedAt: now - day + i }));
      }
    });
    db.checkpoint();
    const before = (await Deno.stat(join(dir, "gateway.db"))).size;
    assert.deepEqual(history.prune({ maxRuns: 10_000, maxAgeDays: 30 }), { deleted: 1200 });
    assert.equal(history.count(), 30);
    assert.equal(db.prepare("SELECT count(*) AS n FROM tool_calls").get()?.n, 0);
    const after = (await Deno.stat(join(dir, "gateway.db"))).size;
    assert.ok(after < before / 4, `file shrank from ${before} to ${after} bytes`);
    for (const file of ["gateway.db", "gateway.db-wal"]) {
      assert.equal(await fileContains(join(dir, file), "MARKER-DELETED-"), false, file);
    }
    assert.deepEqual(history.prune({ maxRuns: 10, maxAgeDays: 30 }), { deleted: 20 });
    assert.deepEqual(
      history.list({ limit: 100 }).map((r) => r.runId),
      Array.from({ length: 10 }, (_, i) => `new-${29 - i}`),
    );
    assert.deepEqual(history.prune({ maxRuns: 10, maxAgeDays: 30 }), { deleted: 0 });
    assert.deepEqual(db.integrityCheck(), ["ok"]);
  });
});

Deno.test("RunHistory keeps every acknowledged run when its writer process is killed with SIGKILL", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "gateway.db");
    for (let round = 0; round < 3; round++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "--no-prompt", HISTORY_WRITER, path],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const acknowledged: string[] = [];
      try {
        const target = 40 + Math.floor(Math.random() * 60);
        let killed = false;
        let pending = "";
        for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
          const lines = (pending + chunk).split("\n");
          pending = lines.pop() ?? "";
          for (const line of lines) {
            if (line.startsWith("committed ")) acknowledged.push(line.slice("committed ".length));
          }
          // Kill once: chunks still buffered after the kill must not signal a reaped pid.
          if (acknowledged.length >= target && !killed) {
            killed = true;
            Deno.kill(child.pid, "SIGKILL");
          }
        }
        assert.equal((await child.status).signal, "SIGKILL");
      } finally {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
        await child.status;
      }
      assert.ok(acknowledged.length >= 40);
      const db = openGatewayDatabase(path);
      try {
        assert.deepEqual(db.integrityCheck(), ["ok"]);
        const history = new RunHistory(db);
        for (const runId of acknowledged) {
          const stored = history.get(runId);
          assert.ok(stored, `acknowledged run "${runId}" is present`);
          assert.equal(stored.toolCalls.length, 2);
        }
      } finally {
        db.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { type GatewayDatabase, openGatewayDatabase } from "./gateway_database.ts";
import { WorkflowSessions } from "./workflow_sessions.ts";

async function withDatabase(fn: (db: GatewayDatabase, path: string) => void | Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "gateway.db");
  const db = openGatewayDatabase(path);
  try {
    await fn(db, path);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const START = {
  name: "s",
  file: "/root/workflows/a.yaml",
  fileHash: "h1",
  fileText: "steps: []",
  vars: { who: "x", n: 2, on: true },
  step: 0,
  pass: 1,
  at: 100,
};

Deno.test("WorkflowSessions.create() stores a running session and its first events", async () => {
  await withDatabase((db) => {
    const sessions = new WorkflowSessions(db);
    assert.equal(sessions.latest("s"), null);
    const created = sessions.create(START, [
      { at: 100, kind: "start", step: 1, pass: null, reason: null },
    ]);
    assert.deepEqual(created, {
      id: created.id,
      name: "s",
      file: "/root/workflows/a.yaml",
      fileHash: "h1",
      fileText: "steps: []",
      vars: { who: "x", n: 2, on: true },
      status: "running",
      step: 0,
      pass: 1,
      createdAt: 100,
      updatedAt: 100,
    });
    assert.deepEqual(sessions.latest("s"), created);
    assert.deepEqual(sessions.events(created.id), [
      { id: 1, sessionId: created.id, at: 100, kind: "start", step: 1, pass: null, reason: null },
    ]);
  });
});

Deno.test("WorkflowSessions.update() moves the position, adopts a file and appends events", async () => {
  await withDatabase((db) => {
    const sessions = new WorkflowSessions(db);
    const { id } = sessions.create(START, []);
    sessions.update(id, {
      status: "running",
      step: 1,
      pass: 2,
      at: 200,
      events: [
        { at: 200, kind: "loop", step: 2, pass: 2, reason: null },
      ],
    });
    let now = sessions.latest("s");
    assert.deepEqual([now?.step, now?.pass, now?.updatedAt, now?.fileHash], [1, 2, 200, "h1"]);
    sessions.update(id, {
      status: "running",
      step: 0,
      pass: 1,
      at: 300,
      file: { fileHash: "h2", fileText: "new" },
      events: [{ at: 300, kind: "reset", step: 2, pass: 2, reason: null }],
    });
    now = sessions.latest("s");
    assert.deepEqual([now?.fileHash, now?.fileText], ["h2", "new"]);
    sessions.update(id, {
      status: "aborted",
      step: 0,
      pass: 1,
      at: 400,
      events: [
        { at: 400, kind: "abort", step: 1, pass: null, reason: "because" },
      ],
    });
    assert.deepEqual(
      sessions.events(id).map((e) => [e.kind, e.at, e.reason]),
      [["loop", 200, null], ["reset", 300, null], ["abort", 400, "because"]],
    );
    assert.throws(
      () => sessions.update(9999, { status: "running", step: 0, pass: 1, at: 1, events: [] }),
      {
        message: /Cannot update workflow session 9999: not found/,
      },
    );
  });
});

Deno.test("WorkflowSessions allows one running workflow per session name", async () => {
  await withDatabase((db) => {
    const sessions = new WorkflowSessions(db);
    const first = sessions.create(START, []);
    assert.throws(() => sessions.create({ ...START, at: 150 }, []), /UNIQUE constraint failed/);
    sessions.update(first.id, { status: "complete", step: 0, pass: 1, at: 160, events: [] });
    const second = sessions.create({ ...START, at: 170 }, []);
    assert.equal(sessions.latest("s")?.id, second.id);
    sessions.create({ ...START, name: "other", at: 180 }, []);
    assert.deepEqual(sessions.running().map((s) => s.name), ["other", "s"]);
  });
});

Deno.test("WorkflowSessions keeps sessions across a reopen of the database", async () => {
  await withDatabase((db, path) => {
    const { id } = new WorkflowSessions(db).create(START, [
      { at: 100, kind: "start", step: 1, pass: null, reason: null },
    ]);
    const again = openGatewayDatabase(path);
    try {
      const sessions = new WorkflowSessions(again);
      assert.equal(sessions.latest("s")?.id, id);
      assert.deepEqual(sessions.events(id).map((e) => e.kind), ["start"]);
    } finally {
      again.close();
    }
  });
});

Deno.test("WorkflowSessions.transaction() rolls back every write when its callback throws", async () => {
  await withDatabase((db) => {
    const sessions = new WorkflowSessions(db);
    const { id } = sessions.create(START, []);
    assert.throws(() =>
      sessions.transaction(() => {
        sessions.update(id, {
          status: "running",
          step: 2,
          pass: 1,
          at: 500,
          events: [
            { at: 500, kind: "step", step: 3, pass: null, reason: null },
          ],
        });
        throw new Error("render failed");
      }), { message: "render failed" });
    assert.equal(sessions.latest("s")?.step, 0);
    assert.deepEqual(sessions.events(id), []);
  });
});

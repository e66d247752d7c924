import assert from "node:assert/strict";
import { openPostgresStore, StoreUnavailableError } from "./postgres_store.ts";
import { sampleRun, storeContract } from "../../test/support/store_contract.ts";
import {
  postgresAvailable,
  type PostgresCluster,
  startPostgresCluster,
} from "../../test/support/postgres_cluster.ts";

// One real cluster (initdb in a temp dir, see postgres_cluster.ts) for the whole file; each test
// gets its own database in it.
let cluster: PostgresCluster | null = null;
let databases = 0;
const available = postgresAvailable();

async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  cluster ??= await startPostgresCluster();
  const name = `contract_${++databases}`;
  const admin = await import("postgres").then((m) => m.default(cluster!.url, { max: 1 }));
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = cluster.url.replace(/\/postgres$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const again = await import("postgres").then((m) => m.default(cluster!.url, { max: 1 }));
      await again.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

storeContract({
  name: "PostgreSQL",
  ignore: !available,
  backing: async () => {
    const db = await freshDatabase();
    return {
      open: (options) => openPostgresStore(db.url, { ...options, poolSize: 4 }),
      remove: db.drop,
    };
  },
});

Deno.test({
  name: "PostgreSQL store: a stopped database is StoreUnavailableError; a restart is survived",
  ignore: !available,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const db = await freshDatabase();
    const store = await openPostgresStore(db.url, { poolSize: 2, retryForMs: 0 });
    try {
      await store.history.record(sampleRun({ runId: "before-outage" }));
      await cluster!.halt();
      await assert.rejects(
        store.history.list({ limit: 5 }),
        (error: unknown) =>
          error instanceof StoreUnavailableError && /database is unavailable/.test(error.message) &&
          !error.message.includes("password"),
      );
      await assert.rejects(
        store.history.record(sampleRun({ runId: "during-outage" })),
        StoreUnavailableError,
      );
      await cluster!.resume();
      // The pool reconnects by itself: the next call works and nothing answered is lost.
      assert.equal((await store.history.get("before-outage"))?.runId, "before-outage");
      await store.history.record(sampleRun({ runId: "after-outage" }));
      assert.equal(await store.history.count(), 2);
    } finally {
      await store.close();
      await db.drop();
    }
  },
});

Deno.test({
  name: "PostgreSQL store: a history write retries through a restart and is kept",
  ignore: !available,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const db = await freshDatabase();
    const store = await openPostgresStore(db.url, { poolSize: 2, retryForMs: 20_000 });
    try {
      await cluster!.halt();
      const pending = store.history.record(sampleRun({ runId: "written-across-restart" }));
      await cluster!.resume();
      await pending;
      assert.equal(await store.history.count(), 1);
    } finally {
      await store.close();
      await db.drop();
    }
  },
});

Deno.test({
  name: "PostgreSQL store: an unreachable URL fails opening with the cause, password hidden",
  ignore: !available,
  fn: async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await assert.rejects(
      openPostgresStore(`postgres://gateway:hunter22@127.0.0.1:${port}/postgres`),
      (error: unknown) =>
        error instanceof StoreUnavailableError && error.message.includes("ECONNREFUSED") &&
        !error.message.includes("hunter22"),
    );
  },
});

// Last: stops the shared cluster and removes its directory.
Deno.test({
  name: "PostgreSQL store: test cluster removed",
  ignore: !available,
  fn: async () => {
    await cluster?.stop();
    cluster = null;
  },
});

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import * as kv from "./kv.ts";
import { isolatedTests } from "./_isolated_tests.ts";

const test = isolatedTests(import.meta, "kv");

/** Runs `body` with GATEWAY_DATA_DIR set to a fresh temp dir; restores the variable after. */
async function withDataDir(body: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-kv-test-" });
  const previous = Deno.env.get("GATEWAY_DATA_DIR");
  Deno.env.set("GATEWAY_DATA_DIR", dir);
  try {
    await body(dir);
  } finally {
    if (previous === undefined) Deno.env.delete("GATEWAY_DATA_DIR");
    else Deno.env.set("GATEWAY_DATA_DIR", previous);
    await Deno.remove(dir, { recursive: true });
  }
}

test("kv module exports only tools: functions of at most one parameter", () => {
  const exported = Object.entries(kv);
  assert.deepEqual(exported.map(([name]) => name).sort(), ["delete", "get", "list", "set"]);
  for (const [name, value] of exported) {
    assert.equal(typeof value, "function", name);
    assert.ok((value as (...a: unknown[]) => unknown).length <= 1, name);
  }
});

test("get() returns null when the key does not exist", async () => {
  await withDataDir(async () => {
    assert.equal(await kv.get({ key: "missing" }), null);
  });
});

test("set() stores nested JSON that get() returns unchanged, in kv.db", async () => {
  await withDataDir(async (dir) => {
    const value = { a: [1, 2.5, "x", null, true], b: { c: { d: "é😀" } } };
    assert.deepEqual(await kv.set({ key: "doc", value }), { key: "doc", created: true });
    assert.deepEqual(await kv.get({ key: "doc" }), value);
    const db = new DatabaseSync(join(dir, "kv.db"));
    try {
      assert.equal(db.prepare("PRAGMA journal_mode").get()?.["journal_mode"], "wal");
      assert.equal(
        db.prepare("SELECT value FROM kv WHERE key = 'doc'").get()?.["value"],
        JSON.stringify(value),
      );
    } finally {
      db.close();
    }
  });
});

test("set() replaces an existing value and reports created false", async () => {
  await withDataDir(async () => {
    await kv.set({ key: "n", value: 1 });
    assert.deepEqual(await kv.set({ key: "n", value: "two" }), { key: "n", created: false });
    assert.equal(await kv.get({ key: "n" }), "two");
    await kv.set({ key: "nil", value: null });
    assert.equal(await kv.get({ key: "nil" }), null);
    assert.deepEqual(await kv.list({ prefix: "nil" }), [{ key: "nil", value: null }]);
  });
});

test("delete() removes a key and says whether it existed", async () => {
  await withDataDir(async () => {
    await kv.set({ key: "gone", value: [1] });
    assert.deepEqual(await kv.delete({ key: "gone" }), { key: "gone", deleted: true });
    assert.equal(await kv.get({ key: "gone" }), null);
    assert.deepEqual(await kv.delete({ key: "gone" }), { key: "gone", deleted: false });
  });
});

test("list() returns entries sorted by key, filtered by prefix, paged by limit and after", async () => {
  await withDataDir(async () => {
    for (const key of ["b/2", "a", "b/1", "b%", "b_x", "c", "b/3"]) {
      await kv.set({ key, value: key });
    }
    assert.deepEqual((await kv.list()).map((e) => e.key), [
      "a",
      "b%",
      "b/1",
      "b/2",
      "b/3",
      "b_x",
      "c",
    ]);
    assert.deepEqual(await kv.list({ prefix: "b/" }), [
      { key: "b/1", value: "b/1" },
      { key: "b/2", value: "b/2" },
      { key: "b/3", value: "b/3" },
    ]);
    // `%` and `_` are literal characters in a prefix, not LIKE wildcards.
    assert.deepEqual((await kv.list({ prefix: "b%" })).map((e) => e.key), ["b%"]);
    assert.deepEqual((await kv.list({ prefix: "b_" })).map((e) => e.key), ["b_x"]);
    const first = await kv.list({ prefix: "b/", limit: 2 });
    assert.deepEqual(first.map((e) => e.key), ["b/1", "b/2"]);
    const next = await kv.list({ prefix: "b/", limit: 2, after: first.at(-1)?.key ?? "" });
    assert.deepEqual(next.map((e) => e.key), ["b/3"]);
    assert.deepEqual(await kv.list({ prefix: "zzz" }), []);
  });
});

test("kv tools refuse bad keys, missing values and unknown properties with clear errors", async () => {
  await withDataDir(async () => {
    await assert.rejects(kv.get({ key: "" }), /kv\.get: "key" must be a string of 1 to 1024/);
    await assert.rejects(kv.get({ key: "x".repeat(1025) }), /"key" must be a string of 1 to 1024/);
    await assert.rejects(kv.get({ key: 5 } as unknown as kv.GetArgs), /got number/);
    await assert.rejects(
      kv.get(null as unknown as kv.GetArgs),
      /kv\.get: expected an object, got null/,
    );
    await assert.rejects(
      kv.set({ key: "k" } as unknown as kv.SetArgs),
      /Cannot set key "k" in kv: "value" is missing/,
    );
    await assert.rejects(
      kv.list({ prefx: "a" } as unknown as kv.ListArgs),
      /kv\.list: unknown property "prefx" \(expected "prefix", "limit", "after"\)/,
    );
    await assert.rejects(
      kv.list({ limit: 0 }),
      /"limit" must be an integer from 1 to 10000, got 0/,
    );
    await assert.rejects(kv.list({ limit: 1.5 }), /got 1.5/);
    await assert.rejects(
      kv.list({ prefix: 1 } as unknown as kv.ListArgs),
      /"prefix" must be a string/,
    );
  });
});

test("kv tools fail with a clear error when GATEWAY_DATA_DIR is not set", async () => {
  await withDataDir(async () => {
    Deno.env.delete("GATEWAY_DATA_DIR");
    await assert.rejects(
      kv.get({ key: "k" }),
      /Cannot open the kv store: GATEWAY_DATA_DIR is not set/,
    );
  });
});

test("kv tools read GATEWAY_DATA_DIR at call time, so a new dir is a new store", async () => {
  await withDataDir(async (first) => {
    await kv.set({ key: "where", value: "first" });
    const second = await Deno.makeTempDir({ prefix: "gateway-kv-test-" });
    try {
      Deno.env.set("GATEWAY_DATA_DIR", join(second, "nested"));
      assert.equal(await kv.get({ key: "where" }), null);
      await kv.set({ key: "where", value: "second" });
      Deno.env.set("GATEWAY_DATA_DIR", first);
      assert.equal(await kv.get({ key: "where" }), "first");
    } finally {
      await Deno.remove(second, { recursive: true });
    }
  });
});

test("kv tools name the file when kv.db is not a database", async () => {
  await withDataDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "kv.db"), "this is not sqlite ".repeat(100));
    await assert.rejects(
      kv.get({ key: "k" }),
      /Cannot open the kv store ".*kv\.db": file is not a database/,
    );
  });
});

import assert from "node:assert/strict";
import { cachedPrepare } from "./prepare_cache.ts";
import type { PrepareScriptResult } from "./script_transform.ts";

function counting() {
  const calls: string[] = [];
  const prepare = (source: string, inline: boolean): Promise<PrepareScriptResult> => {
    calls.push(`${inline}:${source}`);
    if (source === "crash") return Promise.reject(new Error("worker crashed"));
    return Promise.resolve(
      { kind: "Prepared", code: source, insertions: [] } as unknown as PrepareScriptResult,
    );
  };
  return { calls, prepare };
}

Deno.test("cachedPrepare: the same source and mode are prepared once; another mode is another script", async () => {
  const { calls, prepare } = counting();
  const cached = cachedPrepare(prepare);
  const first = await cached("1 + 1", true);
  assert.equal(await cached("1 + 1", true), first);
  await cached("1 + 1", false);
  assert.deepEqual(calls, ["true:1 + 1", "false:1 + 1"]);
});

Deno.test("cachedPrepare: the least recently used entry goes first, and a failure is not kept", async () => {
  const { calls, prepare } = counting();
  const cached = cachedPrepare(prepare, 2);
  await cached("a", true);
  await cached("b", true);
  await cached("a", true); // a is now the most recent
  await cached("c", true); // b goes
  await cached("a", true);
  await cached("b", true);
  assert.deepEqual(calls, ["true:a", "true:b", "true:c", "true:b"]);
  await assert.rejects(cached("crash", true), /worker crashed/);
  await assert.rejects(cached("crash", true), /worker crashed/);
  assert.equal(calls.filter((c) => c === "true:crash").length, 2);
});

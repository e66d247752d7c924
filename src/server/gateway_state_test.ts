import assert from "node:assert/strict";
import { join } from "node:path";
import { createLogger } from "../logger.ts";
import { removeStaleState } from "./gateway_state.ts";

Deno.test("removeStaleState() removes a dead server's runs, channel and tool sockets, keeps the living's", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dead = 4_194_305; // above Linux's largest pid: never alive
    const names = [
      `runs-${dead}`,
      `channel-${dead}.sock`,
      `tools-${dead}-3f9a`,
      `runs-${Deno.pid}`,
      `tools-${Deno.pid}-77aa`,
      "other",
    ];
    for (const name of names) await Deno.mkdir(join(dir, name));
    await removeStaleState(dir, createLogger({ level: "error", write: () => {} }));
    const left = [];
    for await (const entry of Deno.readDir(dir)) left.push(entry.name);
    assert.deepEqual(left.sort(), ["other", `runs-${Deno.pid}`, `tools-${Deno.pid}-77aa`].sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

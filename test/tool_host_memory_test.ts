/**
 * A tool module that allocates without end is stopped at `tools.NAME.maxMemoryMb`: the call
 * fails naming the limit, the host restarts, and the gateway and other namespaces never notice.
 * @module
 */

import assert from "node:assert/strict";
import { pollUntil } from "./support/poll_until.ts";
import { parseRun, withRunHarness } from "./support/run_test_support.ts";

const HOG = `
/** Allocates until it is stopped. */
export function grow(): number {
  const kept: Uint8Array[] = [];
  for (;;) kept.push(new Uint8Array(32 * 1024 * 1024).fill(1));
}

/** Answers at once. */
export function ping(): string {
  return "pong";
}
`;

Deno.test("a tool host over its memory limit is restarted and the call fails naming the limit", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const files = {
    "gateway.json": JSON.stringify({ port: 0, tools: { hog: { maxMemoryMb: 200 } } }),
    "tools/hog.ts": HOG,
  };
  await withRunHarness({ files }, async (gw) => {
    const grown = await gw.cli(["exec", "--json", "--no-check", "await tools.hog.grow()"]);
    const document = parseRun(grown.stdout);
    assert.equal(document.ok, false, grown.stdout);
    assert.match(
      document.error?.message ?? "",
      /more than 200 MB of memory \(tools\.hog\.maxMemoryMb\)/,
    );
    const answer = await pollUntil("the restarted host to answer", async () => {
      const result = await gw.cli(["exec", "--json", "--no-check", "await tools.hog.ping()"]);
      const run = parseRun(result.stdout);
      return run.ok ? run.result : undefined;
    }, { timeoutMs: 30_000 });
    assert.equal(answer, "pong");
  });
});

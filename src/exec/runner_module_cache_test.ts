import assert from "node:assert/strict";
import { denoInfo, RunnerModuleCache } from "./runner_module_cache.ts";
import { runnerMainUrl } from "./runner_flags.ts";

Deno.test("RunnerModuleCache analyses each URL once, one at a time, and tells failures without rejecting", async () => {
  const analysed: string[] = [];
  const errors: string[] = [];
  let running = 0;
  const cache = new RunnerModuleCache({
    denoDir: "/deno-dir",
    analyse: async (url, denoDir) => {
      assert.equal(denoDir, "/deno-dir");
      running++;
      assert.equal(running, 1, "one analysis at a time");
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      analysed.push(url);
      if (url.endsWith("=bad")) throw new Error("no such file");
    },
    onError: (url, error) => errors.push(`${url}: ${(error as Error).message}`),
  });
  await Promise.all([
    cache.warm("a?storage=0"),
    cache.warm("a?storage=1"),
    cache.warm("a?storage=0"),
  ]);
  await cache.warm("a?storage=bad");
  await cache.warm("a?storage=1");
  assert.deepEqual(analysed, ["a?storage=0", "a?storage=1", "a?storage=bad"]);
  assert.deepEqual(errors, ["a?storage=bad: no such file"]);
});

Deno.test("denoInfo analyses the runner's entry URL without running it, and names what failed", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "gateway-module-cache-" });
  try {
    await denoInfo(runnerMainUrl("0"), denoDir);
    await assert.rejects(
      denoInfo("file:///nonexistent/gateway-runner.js?storage=0", denoDir),
      /nonexistent/,
    );
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

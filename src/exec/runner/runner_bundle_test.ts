import assert from "node:assert/strict";
import { RUNNER_DISCOVERY, RUNNER_MAIN } from "../runner_flags.ts";
import { assertBundleFresh } from "../../../test/support/bundle_freshness.ts";

for (
  const [entry, bundle] of [
    ["src/exec/runner/runner_main.ts", RUNNER_MAIN],
    ["src/exec/runner/runner_discovery.ts", RUNNER_DISCOVERY],
  ] as const
) {
  Deno.test(`the runner's bundle of ${entry} is built from its current sources`, async () => {
    await assertBundleFresh(entry, bundle, "bundle:runner");
  });
}

Deno.test("the runner's main bundle leaves the discovery code to its own bundle", async () => {
  const main = await Deno.readTextFile(RUNNER_MAIN);
  assert.ok(!main.includes("DiscoveryReader = class"), "DiscoveryReader is not in the main bundle");
  assert.ok((await Deno.readTextFile(RUNNER_DISCOVERY)).includes("DiscoveryReader = class"));
});

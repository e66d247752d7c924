import assert from "node:assert/strict";
import { RUNNER_DISCOVERY, RUNNER_MAIN } from "../runner_flags.ts";

Deno.test("the runner's main bundle leaves the discovery code to its own bundle", async () => {
  const main = await Deno.readTextFile(RUNNER_MAIN);
  assert.ok(!main.includes("DiscoveryReader = class"), "DiscoveryReader is not in the main bundle");
  assert.ok((await Deno.readTextFile(RUNNER_DISCOVERY)).includes("DiscoveryReader = class"));
});

import assert from "node:assert/strict";
import { mayExitAtEnd } from "./run_supervision.ts";

Deno.test("mayExitAtEnd() lets a plain script's runner skip the teardown", () => {
  assert.equal(mayExitAtEnd("globalThis.__gatewayResult((console.log(1 + 1)))"), true);
  assert.equal(mayExitAtEnd('await tools.kv.get({ key: "a" });'), true);
});

Deno.test("mayExitAtEnd() keeps the teardown where Node's process exit event may be hooked", () => {
  assert.equal(mayExitAtEnd('process.on("exit", () => {});'), false);
  assert.equal(mayExitAtEnd('import x from "./mod.ts";\nx();'), false);
  assert.equal(mayExitAtEnd('const m = await import("node:process");'), false);
  assert.equal(mayExitAtEnd('const fs = require("node:fs");'), false);
});

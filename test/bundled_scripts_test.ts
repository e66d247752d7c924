import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";

Deno.test("the bundled scripts type-check, run by name and are listed with their docs", async () => {
  await withHarness({ bundled: true }, async (gw) => {
    const listed = await gw.cli(["scripts"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /remember\n\s+Remembers a note/);
    assert.match(listed.stdout, /e\.g\. gateway run kv_export notes:/);

    const first = await gw.cli(["run", "remember", "groceries", "oat", "milk"]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, "1. oat milk\n");
    const second = await gw.cli(["run", "remember", "groceries", "bread"]);
    assert.equal(second.stdout, "1. oat milk\n2. bread\n");

    const exported = await gw.cli(["run", "kv_export", "notes:"]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(JSON.parse(exported.stdout.trim()), {
      key: "notes:groceries",
      value: ["oat milk", "bread"],
    });

    const usage = await gw.cli(["run", "remember"]);
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /usage: gateway run remember/);
  });
});

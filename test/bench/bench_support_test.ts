import assert from "node:assert/strict";
import { cpuMs, ratioText } from "./bench_support.ts";

Deno.test("a ratio that two decimals would round onto its target is printed with three", () => {
  assert.equal(ratioText(0.796, 0.8), "0.796");
  assert.equal(ratioText(0.804, 0.8), "0.804");
  assert.equal(ratioText(1.304, 1.3), "1.304");
});

Deno.test("other ratios, and a ratio exactly on its target, keep two decimals", () => {
  assert.equal(ratioText(0.8, 0.8), "0.80");
  assert.equal(ratioText(0.776, 0.8), "0.78");
  assert.equal(ratioText(1.62, 1.3), "1.62");
  assert.equal(ratioText(0.796), "0.80");
});

Deno.test("cpuMs reads a live process's CPU time and NaN for one that is gone", async () => {
  const own = cpuMs("self");
  assert.ok(Number.isFinite(own) && own >= 0, `cpuMs("self") = ${own}`);
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", "1"], stdout: "null" }).spawn();
  const { pid } = child;
  await child.status;
  assert.ok(Number.isNaN(cpuMs(pid)), "a reaped child has no /proc entry");
});

import assert from "node:assert/strict";
import { gatewayConfigSchema } from "../config/gateway_config.ts";
import type { RunWaiting } from "../protocol/run_waiting.ts";
import { GatewayTelemetry } from "../telemetry/gateway_telemetry.ts";
import { preflight, type PreflightDeps } from "./run_preflight.ts";
import type { RunRequest } from "./run_request.ts";
import { prepareScript } from "./script_transform.ts";

const exec = gatewayConfigSchema.parse({}).exec;

/** A typed run of `1 + 1` whose waits are collected. */
function request(waits: Omit<RunWaiting, "runId">[], fields: Partial<RunRequest> = {}) {
  return {
    source: "1 + 1",
    inline: true,
    args: [],
    stdin: "",
    cwd: "/",
    client: "test",
    onWait: (waiting) => waits.push(waiting),
    ...fields,
  } satisfies RunRequest;
}

/** Preflight deps over a checker that is warm or not, whose check answers after `checkMs`. */
function deps(options: { warm: boolean; checkMs: number }) {
  const started: string[] = [];
  const value: PreflightDeps = {
    exec,
    configDir: null,
    deniedPaths: [],
    prepare: (source, inline) => prepareScript(source, { inline }),
    catalogueReady: () => Promise.resolve(),
    check: () => new Promise((resolve) => setTimeout(() => resolve([]), options.checkMs)),
    checkerWarm: () => options.warm,
    startChecker: () => started.push("started"),
    trace: new GatewayTelemetry({ enabled: false }).startRun({ runId: "r", client: "test" }),
  };
  return { value, started };
}

Deno.test("a typed run finding the checker cold starts it at once and says it waits", async () => {
  const waits: Omit<RunWaiting, "runId">[] = [];
  const { value, started } = deps({ warm: false, checkMs: 400 });
  const cleared = await preflight(request(waits), value);
  assert.equal(cleared.ok, true);
  assert.deepEqual(started, ["started"], "the warm-up began before the script was parsed");
  assert.equal(waits.length, 2);
  assert.deepEqual(waits[0], { on: "typeChecker", phase: "start" });
  assert.equal(waits[1]!.on, "typeChecker");
  assert.equal(waits[1]!.phase, "done");
  assert.equal(typeof waits[1]!.ms, "number");
});

Deno.test("a warm checker, a short wait, or an unchecked run say nothing", async () => {
  for (
    const [warm, checkMs, check] of [[true, 400, true], [false, 0, true], [false, 400, false]] as [
      boolean,
      number,
      boolean,
    ][]
  ) {
    const waits: Omit<RunWaiting, "runId">[] = [];
    const { value, started } = deps({ warm, checkMs });
    const cleared = await preflight(request(waits, { check }), value);
    assert.equal(cleared.ok, true);
    assert.deepEqual(waits, [], `warm ${warm}, check ${checkMs} ms, typed ${check}`);
    assert.deepEqual(started, warm || !check ? [] : ["started"]);
  }
});

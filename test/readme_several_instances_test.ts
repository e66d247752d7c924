/**
 * The README's "Running several instances" section, run as written: its settings block replaced by
 * test values (a throw-away PostgreSQL cluster, temp dirs, free ports), every other block
 * verbatim: the `gateway.json`, the start script, the nginx config (with the test's ports) and the
 * curl calls through the proxy.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bash,
  severalInstancesAvailable,
  startSeveralInstances,
} from "./support/several_instances.ts";

Deno.test({
  name: 'README "Running several instances" works as written (PostgreSQL, 3 instances, nginx)',
  ignore: !severalInstancesAvailable(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const setup = await startSeveralInstances();
    try {
      const used = await bash(
        setup.useScript.replaceAll("8080", String(setup.proxyPort)),
        setup.env,
      );
      assert.equal(used.code, 0, used.stderr + used.stdout);
      // The exec answer, then the history (round-robin: from another instance), one a line.
      const [execText, historyText] = used.stdout.split("\n");
      const doc = JSON.parse(execText!) as { ok: boolean; result: unknown; runId: string };
      assert.equal(doc.ok, true, execText);
      assert.equal(doc.result, 42);
      const history = JSON.parse(historyText!) as { runs: { runId: string }[] };
      assert.ok(history.runs.some((r) => r.runId === doc.runId), historyText);
      // The use block ends by stopping every instance.
      for (const port of setup.ports) {
        await assert.rejects(Deno.stat(join(setup.base, "state", String(port), "server.json")));
      }
    } finally {
      await setup.stop();
    }
  },
});

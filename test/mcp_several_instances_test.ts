/**
 * Stateless `/mcp` across instances: the README's three instances on one PostgreSQL behind
 * nginx round robin (no sticky sessions) serve 2026-07-28 MCP: a task started through one
 * instance is read through every other (each sees it wait for input while its call is held, and
 * the same result once it ended), and a held call answered in the retry of an input-required result
 * finishes wherever the retry lands.
 * @module
 */

import assert from "node:assert/strict";
import { modernRequest, resultText, TASKS } from "./support/modern_mcp.ts";
import { pollUntil } from "./support/poll_until.ts";
import { severalInstancesAvailable, startSeveralInstances } from "./support/several_instances.ts";

const TOOL = `/** Removes everything (pretend). */
export function wipe(args: { what: string }): string {
  return \`wiped \${args.what}\`;
}
`;

Deno.test({
  name:
    "three instances behind nginx serve 2026-07-28 /mcp without sticky sessions: a task started through one is read through the others",
  ignore: !severalInstancesAvailable(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const setup = await startSeveralInstances({
      files: { "tools/danger.ts": TOOL },
      config: { policy: [{ match: "danger.wipe", action: "ask" }] },
    });
    try {
      const viaProxy = `http://127.0.0.1:${setup.proxyPort}/mcp`;
      const direct = setup.ports.map((port) => `http://127.0.0.1:${port}/mcp`);
      const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
      const discovered = await modernRequest(viaProxy, setup.token, "server/discover", {});
      assert.deepEqual(discovered.result?.supportedVersions, ["2026-07-28"]);

      // The task's run holds a call until it is answered, so it is in flight for as long as
      // the test reads it.
      const created = await modernRequest(viaProxy, setup.token, "tools/call", {
        name: "exec",
        arguments: { source: `await tools.danger.wipe({ what: "task" })` },
      }, caps);
      assert.equal(created.result?.resultType, "task", JSON.stringify(created));
      const taskId = String(created.result?.taskId);
      // Every instance (two of them through the database) sees it wait for the client's input.
      let inputRequests: Record<string, unknown> = {};
      for (const url of direct) {
        const got = await pollUntil(`${url} to see the held call`, async () => {
          const read = await modernRequest(url, setup.token, "tasks/get", { taskId }, caps);
          return read.result?.status === "input_required" ? read.result : undefined;
        });
        inputRequests = got.inputRequests as Record<string, unknown>;
      }
      // Answered through one instance, it finishes where it runs; every instance reads the result.
      const [held] = Object.keys(inputRequests);
      await modernRequest(direct[1]!, setup.token, "tasks/update", {
        taskId,
        inputResponses: { [held!]: { action: "accept", content: { allow: true } } },
      }, caps);
      await pollUntil("the task to complete", async () => {
        const got = await modernRequest(viaProxy, setup.token, "tasks/get", { taskId }, caps);
        return got.result?.status === "completed" || undefined;
      });
      for (const url of direct) {
        const got = await modernRequest(url, setup.token, "tasks/get", { taskId }, caps);
        assert.equal(got.result?.status, "completed", url);
        assert.equal(resultText(got.result?.result as Record<string, unknown>), "wiped task", url);
      }

      // Only the instance running a task can cancel it; the others say so instead of
      // acknowledging a cancel that would not happen. Once it ended, every instance acknowledges.
      const long = await modernRequest(viaProxy, setup.token, "tools/call", {
        name: "exec",
        arguments: { source: `await tools.danger.wipe({ what: "cancelled" })` },
      }, caps);
      const longId = String(long.result?.taskId);
      await pollUntil("the long task to be held", async () => {
        const read = await modernRequest(
          viaProxy,
          setup.token,
          "tasks/get",
          { taskId: longId },
          caps,
        );
        return read.result?.status === "input_required" || undefined;
      });
      const answers = [];
      for (const url of direct) {
        answers.push(
          await modernRequest(url, setup.token, "tasks/cancel", { taskId: longId }, caps),
        );
      }
      // One instance (the one running it) cancels it; the others, while it still runs, say so.
      assert.ok(answers.some((a) => a.result?.resultType === "complete"), JSON.stringify(answers));
      for (const refused of answers.filter((a) => a.result?.resultType !== "complete")) {
        assert.equal(refused.error?.code, -32600, JSON.stringify(refused));
        assert.match(refused.error!.message, /runs on another gateway instance/);
      }
      await pollUntil("the long task to be cancelled", async () => {
        const read = await modernRequest(
          viaProxy,
          setup.token,
          "tasks/get",
          { taskId: longId },
          caps,
        );
        return read.result?.status === "cancelled" || undefined;
      });
      for (const url of direct) {
        const again = await modernRequest(
          url,
          setup.token,
          "tasks/cancel",
          { taskId: longId },
          caps,
        );
        assert.equal(again.result?.resultType, "complete", `${url}: ${JSON.stringify(again)}`);
      }

      // A held call: the first answer asks; the retry, on the next instance, finishes it.
      const exec = (extra: Record<string, unknown> = {}) =>
        modernRequest(viaProxy, setup.token, "tools/call", {
          name: "exec",
          arguments: { source: `await tools.danger.wipe({ what: "everywhere" })` },
          ...extra,
        }, { elicitation: {} });
      const first = await exec();
      assert.equal(first.result?.resultType, "input_required", JSON.stringify(first));
      const [key] = Object.keys(first.result?.inputRequests as Record<string, unknown>);
      const second = await exec({
        inputResponses: { [key!]: { action: "accept", content: { allow: true } } },
        requestState: first.result?.requestState,
      });
      assert.equal(resultText(second.result), "wiped everywhere", JSON.stringify(second));
    } finally {
      await setup.stop();
    }
  },
});

import assert from "node:assert/strict";
import type { RunDocument, RunningDocument } from "../src/protocol/run_document.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const TOOL = `/** Removes everything (pretend). */
export function wipe(args: { what: string }): string {
  return \`wiped \${args.what}\`;
}

/** Reads something harmless. */
export function peek(): string {
  return "peeked";
}
`;

const CONFIG = {
  port: 0,
  exec: { typecheck: false },
  policy: [
    { match: "danger.peek", action: "allow" },
    { match: "danger.wipe", action: "ask" },
    { match: "*.forbidden*", action: "deny" },
  ],
};

async function pendingFor(gw: { cli(args: string[]): Promise<{ stdout: string }> }, runId: string) {
  return await pollUntil(`run ${runId} to wait for approval`, async () => {
    const listed = JSON.parse((await gw.cli(["approvals", "--json"])).stdout) as {
      pending: { id: string; runId: string; tool: string; args: string }[];
    };
    const held = listed.pending.filter((p) => p.runId === runId);
    return held.length > 0 ? held : undefined;
  }, { timeoutMs: 30_000 });
}

Deno.test("an ask policy holds a call until someone answers; the answer and who gave it are kept in history", async () => {
  await withHarness({
    files: { "gateway.json": JSON.stringify(CONFIG), "tools/danger.ts": TOOL },
  }, async (gw) => {
    const client = await gw.client();
    try {
      const script =
        `console.log(await tools.danger.peek());\nawait tools.danger.wipe({ what: "disk" })`;

      // Allowed from the CLI: the run waits, then finishes with the tool's value.
      const first = await client.request<RunningDocument>("exec", {
        source: script,
        yieldAfterMs: 1500,
      });
      assert.equal(first.status, "running");
      const held = await pendingFor(gw, first.runId);
      assert.equal(held.length, 1);
      assert.equal(held[0]!.tool, "wipe");
      assert.equal(held[0]!.args, '{"what":"disk"}');
      const approved = await gw.cli(["approve", first.runId, "--by", "ada"]);
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stdout, /allowed 1 held call/);
      const done = await client.request<RunDocument>("wait", { runId: first.runId });
      assert.equal(done.ok, true, JSON.stringify(done.error));
      assert.equal(done.result, "wiped disk");
      assert.equal(done.stdout, "peeked\n");
      const stored = await client.request<
        { toolCalls: { tool: string; approval?: { allowed: boolean; by: string } }[] }
      >(
        "history.get",
        { id: first.runId },
      );
      assert.deepEqual(stored.toolCalls.map((c) => c.tool), ["peek", "wipe"]);
      assert.equal(stored.toolCalls[1]!.approval?.allowed, true);
      assert.equal(stored.toolCalls[1]!.approval?.by, "ada");

      // Denied over RPC: the script sees PolicyDenied naming who denied it.
      const second = await client.request<RunningDocument>("exec", {
        source: script,
        yieldAfterMs: 1500,
      });
      await pendingFor(gw, second.runId);
      await client.request("approval.respond", { runId: second.runId, allow: false, by: "bob" });
      const denied = await client.request<RunDocument>("wait", { runId: second.runId });
      assert.equal(denied.ok, false);
      assert.equal(denied.error?.kind, "PolicyDenied");
      assert.match(denied.error?.message ?? "", /danger\.wipe was denied by bob/);

      // Unanswered shortly before the run's deadline: denied as PolicyDenied (the script can
      // still handle it), and recorded so.
      const third = await client.request<RunDocument>("exec", {
        source:
          `try { await tools.danger.wipe({ what: "all" }) } catch (e) { console.log(e.kind, e.message) }`,
        timeoutMs: 800,
      });
      assert.equal(third.ok, true, JSON.stringify(third.error));
      assert.match(
        third.stdout,
        /^PolicyDenied danger\.wipe needed approval .* not answered within 0\.\d s/,
      );
      const late = await client.request<
        { toolCalls: { errorKind: string | null; approval?: { by: string } }[] }
      >(
        "history.get",
        { id: third.runId },
      );
      assert.equal(late.toolCalls[0]?.errorKind, "PolicyDenied");
      assert.equal(late.toolCalls[0]?.approval?.by, "deadline");

      // A direct call cannot wait for an answer; deny rules fail before anything is sent.
      await assert.rejects(
        () => client.request("call", { namespace: "danger", tool: "wipe", args: { what: "x" } }),
        /only calls from a run can wait/,
      );
      const none = await gw.cli(["approve", "nope"]);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /No call of run "nope" is waiting/);
    } finally {
      await client.close();
    }
  });
});

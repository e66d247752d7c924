/**
 * End-to-end: a call an `ask` rule holds is visible. `gateway exec` prints one stderr line with
 * the exact `gateway approve` command; over MCP the gateway asks the host through elicitation,
 * or sends a log notification when the host cannot answer one; a hold nobody answers ends as
 * `PolicyDenied` ("not answered within …"), not `Timeout`. (The dashboard's side is in
 * dashboard_ui_test.ts.)
 * @module
 */

import { readUntil } from "./support/read_until.ts";
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  // deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { type GatewayHarness, MAIN, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import type { PendingApproval } from "../src/protocol/wire_views.ts";

const TOOL = `/** Removes everything (pretend). */
export function wipe(args: { what: string }): string {
  return \`wiped \${args.what}\`;
}
`;

const FILES = {
  "tools/danger.ts": TOOL,
  "gateway.json": JSON.stringify({ policy: [{ match: "danger.wipe", action: "ask" }] }),
};

function env(gw: GatewayHarness): Record<string, string> {
  return {
    GATEWAY_DATA_DIR: gw.dataDir,
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
  };
}

function textOf(result: { content: unknown }): string {
  const blocks = result.content as Array<{ type: string; text?: string }>;
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

Deno.test("gateway exec prints the held call and the exact approve command on stderr; running it lets the run finish", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    await gw.server();
    const child = gw.spawnCli(["exec", `await tools.danger.wipe({ what: "disk" })`]);
    const stdout = new Response(child.stdout).text();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    const seen = { text: "" };
    const line = await readUntil(
      reader,
      /waiting for approval: danger\.wipe\(\{"what":"disk"\}\) held by policy rule "danger\.wipe": (gateway --root "[^"]+" approve (\S+)) \(or \1 --deny\)\n/,
      seen,
    );
    const runId = line[2]!;
    assert.equal(line[1], `gateway --root ${JSON.stringify(gw.root)} approve ${runId}`);
    const approved = await gw.cli(["approve", runId]);
    assert.equal(approved.code, 0, approved.stderr);
    reader.releaseLock();
    await child.stderr.cancel().catch(() => undefined);
    const status = await child.status;
    assert.equal(status.code, 0, seen.text);
    assert.equal((await stdout).trim(), "wiped disk");
  });
});

Deno.test("a hold nobody answers ends as PolicyDenied, not answered within the run's time", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const result = await gw.cli([
      "exec",
      "--timeout",
      "1500",
      `await tools.danger.wipe({ what: "x" })`,
    ]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /error\[PolicyDenied\]: danger\.wipe needed approval \(rule "danger\.wipe"\) and was not answered within \d\.\d s: denied/,
    );
    assert.match(result.stderr, /waiting for approval: danger\.wipe/);
  });
});

Deno.test("over MCP the gateway asks the host by elicitation, or by a log notification when it cannot", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    await gw.server();
    const transport = () =>
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "--root", gw.root, "mcp"],
        env: env(gw),
        stderr: "pipe",
      });

    const asking = new Client({ name: "host", version: "1" }, {
      capabilities: { elicitation: {} },
    });
    const questions: string[] = [];
    asking.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
      questions.push(String(request.params.message));
      return { action: "accept", content: { allow: true } };
    });
    await asking.connect(transport());
    try {
      const result = await asking.callTool({
        name: "exec",
        arguments: { source: `await tools.danger.wipe({ what: "mcp" })` },
      });
      assert.equal(textOf(result), "wiped mcp", JSON.stringify(result));
      assert.equal(questions.length, 1);
      assert.match(
        questions[0]!,
        /danger\.wipe\(\{"what":"mcp"\}\) is held by policy rule "danger\.wipe"\. Allow it\?/,
      );
    } finally {
      await asking.close();
    }

    const plain = new Client({ name: "plain", version: "1" });
    const logged: string[] = [];
    let approved: Promise<unknown> | null = null;
    plain.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification: LoggingMessageNotification) => {
        const text = String(notification.params.data);
        logged.push(text);
        const runId = /gateway approve (\S+)/.exec(text)?.[1];
        if (runId && approved === null) approved = gw.cli(["approve", runId, "--by", "person"]);
      },
    );
    await plain.connect(transport());
    try {
      const result = await plain.callTool({
        name: "exec",
        arguments: { source: `await tools.danger.wipe({ what: "log" })` },
      });
      assert.equal(textOf(result), "wiped log", JSON.stringify(result));
      assert.equal(logged.length, 1);
      assert.match(
        logged[0]!,
        /^waiting for approval: danger\.wipe\(\{"what":"log"\}\) is held by policy rule "danger\.wipe": answer with gateway approve \S+ \(or gateway approve \S+ --deny\)$/,
      );
      assert.ok(approved);
      assert.equal((await approved as { code: number }).code, 0);
    } finally {
      await plain.close();
    }
  });
});

Deno.test("approval.watch pushes each new held call to a WebSocket client (what the dashboard listens to)", async () => {
  await withHarness({ files: FILES }, async (gw) => {
    const watcher = await gw.client();
    const runner = await gw.client();
    try {
      const pushed: PendingApproval[] = [];
      watcher.onNotification((n) => {
        if (n.method === "approval.pending") pushed.push(n.params as PendingApproval);
      });
      assert.deepEqual(await watcher.request("approval.watch", {}), { watching: true });
      const running = await runner.request<{ runId: string }>("exec", {
        source: `await tools.danger.wipe({ what: "pushed" })`,
        yieldAfterMs: 200,
      });
      const held = await pollUntil(
        "the held call pushed to the watcher",
        () => Promise.resolve(pushed.find((p) => p.runId === running.runId)),
      );
      assert.equal(held.args, '{"what":"pushed"}');
      await runner.request("approval.respond", { runId: held.id, allow: true, by: "test" });
      const done = await runner.request<{ ok: boolean; result: unknown }>("wait", {
        runId: running.runId,
      });
      assert.equal(done.result, "wiped pushed");
      const overHttp = await fetch(`http://127.0.0.1:${(await gw.server()).port}/approvals`, {
        headers: { authorization: `Bearer ${(await gw.server()).token}` },
      });
      assert.deepEqual(await overHttp.json(), { pending: [] });
    } finally {
      await watcher.close();
      await runner.close();
    }
  });
});

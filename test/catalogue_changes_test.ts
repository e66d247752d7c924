/**
 * End-to-end: after a catalogue change, a client asks what changed since the version it saw —
 * from the CLI (`gateway catalog --since V`), over RPC (`catalog` with `since`) and through the
 * MCP `catalog` tool — and reads only the lines that differ; a version the gateway does not
 * remember gets the whole catalogue with `known: false`.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { CLI_RUN_ARGS, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const MATH =
  "/** Adds two numbers. */\nexport function add(args: { a: number; b: number }): number {\n  return args.a + args.b;\n}\n";
const LATE =
  "/** Polishes a zebra crossing. */\nexport function polish(args: { id: string }): string {\n  return args.id;\n}\n";

Deno.test("a client reads what changed in the catalogue since a version, from CLI, RPC and MCP", async () => {
  await withHarness({ files: { "tools/math.ts": MATH } }, async (gw) => {
    const first = await gw.cli(["catalog", "--json"]);
    assert.equal(first.code, 0, first.stderr);
    const { version, text } = JSON.parse(first.stdout) as { version: string; text: string };
    assert.match(version, /^[0-9a-z]+$/);
    assert.ok(
      text.trimEnd().endsWith(
        `(catalogue version ${version}; catalog since it lists what changed)`,
      ),
      text,
    );

    const unchanged = await gw.cli(["catalog", "--since", version]);
    assert.equal(unchanged.stdout.trim(), `No changes since ${version}.`);

    await Deno.writeTextFile(join(gw.root, "tools/late.ts"), LATE);
    const client = await gw.client();
    try {
      const changes = await pollUntil("the new module to be in the catalogue", async () => {
        const answer = await client.request<
          { known: boolean; added: string[]; version: string; text: string }
        >("catalog", { since: version });
        return answer.added.length > 0 ? answer : undefined;
      }, { timeoutMs: 30_000 });
      assert.equal(changes.known, true);
      assert.notEqual(changes.version, version);
      assert.deepEqual(changes.added, [
        "tools.late.polish(args: { id: string }): Promise<string> — Polishes a zebra crossing.",
      ]);
      assert.match(changes.text, /^namespace late: \(new\) → ready$/m);
      assert.doesNotMatch(changes.text, /tools\.math\.add/, "what did not change is not repeated");

      const cli = await gw.cli(["catalog", "--since", version]);
      assert.match(cli.stdout, /^\+ tools\.late\.polish\(/m);

      const forgotten = await client.request<{ known: boolean; text: string }>("catalog", {
        since: "nosuchversion",
      });
      assert.equal(forgotten.known, false);
      assert.match(forgotten.text, /not one this gateway remembers/);
      assert.match(forgotten.text, /tools\.math\.add/, "then the whole catalogue");
    } finally {
      client.close();
    }

    const mcp = new Client({ name: "test", version: "1" });
    await mcp.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: [...CLI_RUN_ARGS, "--root", gw.root, "mcp"],
        env: {
          GATEWAY_DATA_DIR: gw.dataDir,
          PATH: Deno.env.get("PATH") ?? "",
          HOME: Deno.env.get("HOME") ?? "",
        },
        stderr: "pipe",
      }),
    );
    try {
      const result = await mcp.callTool({ name: "catalog", arguments: { since: version } });
      const shown = (result.content as Array<{ type: string; text: string }>)[0]!.text;
      assert.match(shown, /^\+ tools\.late\.polish\(/m);
    } finally {
      await mcp.close();
    }
  });
});

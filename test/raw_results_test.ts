/**
 * End-to-end: `tools.ns.tool.raw()` hands back the envelope an MCP server sent, `isError`
 * included, without throwing; the plain call throws `ToolError`.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO, withHarness } from "./support/gateway_harness.ts";

const FAKE_SERVER = join(REPO, "test", "fixtures", "mcp", "fault_server.ts");

Deno.test(".raw() returns an isError envelope instead of throwing; the plain call throws ToolError; results without a schema need no casts; upstream warnings are a note", async () => {
  const fake = {
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", "--config", join(REPO, "deno.json"), FAKE_SERVER],
  };
  await withHarness(
    { files: { "gateway.json": JSON.stringify({ mcpServers: { fake } }) } },
    async (gw) => {
      const raw = await gw.cli([
        "exec",
        "--json",
        "const envelope = await tools.fake.fail.raw();\n[envelope.isError, envelope.content[0]]",
      ]);
      const document = JSON.parse(raw.stdout) as { ok: boolean; result: unknown; error?: unknown };
      assert.equal(document.ok, true, JSON.stringify(document.error));
      assert.deepEqual(document.result, [true, { type: "text", text: "it broke: on purpose" }]);

      const thrown = await gw.cli([
        "exec",
        "--json",
        "let seen: unknown = null;\n" +
        "try { await tools.fake.fail() } catch (e) { seen = e instanceof ToolError ? [e.kind, e.message] : String(e) }\n" +
        "seen",
      ]);
      const caught = JSON.parse(thrown.stdout) as { ok: boolean; result: unknown; error?: unknown };
      assert.equal(caught.ok, true, JSON.stringify(caught.error));
      assert.deepEqual(caught.result, ["ToolError", "it broke: on purpose"]);

      // Without an outputSchema a result is typed `any` (like JSON.parse): no casts needed.
      const used = await gw.cli([
        "exec",
        "--json",
        "const parsed = await tools.fake.json_text();\n" +
        "const said = await tools.fake.echo({ message: 'hi' });\n" +
        "[parsed.a.map((n: number) => n * 2), said.toUpperCase()]",
      ]);
      const typed = JSON.parse(used.stdout) as { ok: boolean; result: unknown; error?: unknown };
      assert.equal(typed.ok, true, JSON.stringify(typed.error));
      assert.deepEqual(typed.result, [[2, 4], "ECHO: HI"]);

      // What an upstream reports (two tool names that sanitise alike) is one note per listing,
      // listed in full with --warnings.
      for (let i = 0; i < 2; i++) {
        const listed = await gw.cli(["tools"]);
        assert.match(
          listed.stderr,
          /^note: \d+ warnings? about namespaces and tools: gateway tools --warnings\n$/,
        );
      }
      const warned = await gw.cli(["tools", "--warnings"]);
      assert.match(warned.stderr, /warning: fake: .*fancy/);

      // An image left in the result reaches the caller as an attachment, a placeholder in place.
      const media = await gw.cli(["exec", "--json", "await tools.fake.mixed()"]);
      const withImage = JSON.parse(media.stdout) as {
        ok: boolean;
        result: unknown;
        attachments: unknown[];
      };
      assert.equal(withImage.ok, true, media.stdout);
      assert.deepEqual(withImage.result, [
        { type: "text", text: "a picture:" },
        "[image image/png: attachment 1]",
      ]);
      assert.deepEqual(withImage.attachments, [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ]);
    },
  );
});

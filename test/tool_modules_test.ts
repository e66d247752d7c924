/**
 * End-to-end: local tool modules in a root. A broken module (throws, hangs or has a syntax
 * error at import, or exports a 2-parameter function) is shown failed with file, line and
 * reason while the others stay ready and callable; files added, changed or removed reload only
 * their own namespace; a throwing tool reaches the script as `ToolError`.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type GatewayHarness, type RootFiles, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import type { GatewayClient } from "../src/client/gateway_client.ts";

const FIXTURES = new URL("./fixtures/tool_modules/", import.meta.url);

const STABLE_TOOL =
  `/** A module whose host process identity shows whether it was restarted. @module */
/** The pid of this module's tool host. */
export function pid(): number {
  return Deno.pid;
}
`;

async function fixture(name: string): Promise<string> {
  return await Deno.readTextFile(new URL(name, FIXTURES));
}

async function rootFiles(): Promise<RootFiles> {
  return {
    "gateway.json": '{ "port": 0 }\n',
    "tools/inventory.ts": await fixture("inventory.ts"),
    "tools/faulty.ts": await fixture("faulty_tools.ts"),
    "tools/throws.ts": await fixture("throws_at_import.ts"),
    "tools/hangs.ts": await fixture("hangs_at_import.ts"),
    "tools/syntax.ts": await fixture("syntax_error.txt"),
    "tools/two.ts": await fixture("two_params.ts"),
    "tools/stable.ts": STABLE_TOOL,
  };
}

interface NamespaceRow {
  name: string;
  status: string;
  reason?: string;
  tools: number;
}

async function namespaces(client: GatewayClient): Promise<Map<string, NamespaceRow>> {
  const answer = await client.request<{ namespaces: NamespaceRow[] }>("namespaces", {});
  return new Map(answer.namespaces.map((n) => [n.name, n]));
}

/** Polls until `check` accepts the namespace list; returns that list. */
async function waitForNamespaces(
  client: GatewayClient,
  what: string,
  check: (list: Map<string, NamespaceRow>) => boolean,
  timeoutMs = 20_000,
): Promise<Map<string, NamespaceRow>> {
  let last: Map<string, NamespaceRow> = new Map();
  return await pollUntil(what, async () => {
    last = await namespaces(client);
    return check(last) ? last : undefined;
  }, { timeoutMs, last: () => [...last.values()] });
}

async function execJson(
  gw: GatewayHarness,
  source: string,
): Promise<{ ok: boolean; result?: unknown; error?: { kind: string; message: string } }> {
  const result = await gw.cli(["exec", "--json", source]);
  return JSON.parse(result.stdout);
}

Deno.test("broken tool modules fail alone, with file, line and reason, and edits reload one namespace", async (t) => {
  await withHarness({ files: await rootFiles() }, async (gw) => {
    const client = await gw.client();
    try {
      const call = (namespace: string, tool: string, args?: unknown) =>
        client.request<{ value: unknown }>("call", { namespace, tool, args }).then((r) => r.value);

      await t.step(
        "modules that throw at import, have a syntax error or a 2-parameter export fail",
        async () => {
          const list = await waitForNamespaces(
            client,
            "the quick modules to settle",
            (l) =>
              ["inventory", "faulty", "stable"].every((n) => l.get(n)?.status === "ready") &&
              ["throws", "syntax", "two"].every((n) => l.get(n)?.status === "failed"),
          );
          assert.match(
            list.get("throws")!.reason!,
            /tools\/throws\.ts.*database is not configured.*line 3/,
          );
          assert.match(list.get("syntax")!.reason!, /tools\/syntax\.ts.*line 4/);
          assert.match(
            list.get("two")!.reason!,
            /tools\/two\.ts.*export "add" takes 2 parameters.*line 9/,
          );
        },
      );

      await t.step("the other namespaces answer while a module still hangs at import", async () => {
        assert.equal((await namespaces(client)).get("hangs")?.status, "starting");
        const item = { sku: "A-1", quantity: 3, location: { warehouse: "BER-1" }, tags: [] };
        assert.deepEqual(await call("inventory", "put", { item }), item);
        assert.deepEqual(await call("inventory", "count"), { total: 1, skus: ["A-1"] });
      });

      const stablePid = await call("stable", "pid");
      const added = join(gw.root, "tools", "added.ts");

      await t.step("a new module file becomes a ready namespace", async () => {
        await Deno.writeTextFile(
          added,
          "/** Added. @module */\n/** One. */\nexport function one(): number {\n  return 1;\n}\n",
        );
        await waitForNamespaces(
          client,
          "added to be ready",
          (l) => l.get("added")?.status === "ready" && l.get("added")?.tools === 1,
        );
        assert.equal(await call("added", "one"), 1);
      });

      await t.step("a changed module is reloaded with its new tools", async () => {
        await Deno.writeTextFile(
          added,
          "/** Added. @module */\n/** One. */\nexport function one(): number {\n  return 1;\n}\n" +
            "/** Two. */\nexport function two(): number {\n  return 2;\n}\n",
        );
        await waitForNamespaces(
          client,
          "added to have two tools",
          (l) => l.get("added")?.status === "ready" && l.get("added")?.tools === 2,
        );
        assert.equal(await call("added", "two"), 2);
      });

      await t.step("a module broken by an edit fails alone", async () => {
        await Deno.writeTextFile(added, "export function one(): number {\n  return 1 +;\n}\n");
        const list = await waitForNamespaces(
          client,
          "added to fail",
          (l) => l.get("added")?.status === "failed",
        );
        assert.match(list.get("added")!.reason!, /tools\/added\.ts.*line 2/);
        assert.equal(list.get("inventory")?.status, "ready");
      });

      await t.step("a removed module's namespace disappears", async () => {
        await Deno.remove(added);
        await waitForNamespaces(client, "added to disappear", (l) => !l.has("added"));
      });

      await t.step("the edits left the other namespaces' hosts and state alone", async () => {
        assert.equal(await call("stable", "pid"), stablePid);
        assert.deepEqual(await call("inventory", "count"), { total: 1, skus: ["A-1"] });
      });

      await t.step("a module hanging at import fails after its load timeout", async () => {
        const list = await waitForNamespaces(
          client,
          "hangs to fail",
          (l) => l.get("hangs")?.status === "failed",
          25_000,
        );
        assert.match(list.get("hangs")!.reason!, /tools\/hangs\.ts.*did not finish/);
      });

      await t.step(
        "gateway tools shows each failed module with file, line and reason",
        async () => {
          const result = await gw.cli(["tools"]);
          assert.equal(result.code, 0, result.stderr);
          const line = (name: string) =>
            result.stdout.split("\n").find((l) => l.startsWith(`${name} `)) ?? "";
          assert.match(line("inventory"), /ready$/);
          assert.match(line("faulty"), /ready$/);
          assert.match(
            line("throws"),
            /failed: Cannot load tool module "tools\/throws\.ts".*\(line 3\)/,
          );
          assert.match(
            line("syntax"),
            /failed: Cannot load tool module "tools\/syntax\.ts".*\(line 4\)/,
          );
          assert.match(
            line("two"),
            /failed: .*"tools\/two\.ts": export "add" takes 2 parameters \(line 9\)/,
          );
          assert.match(line("hangs"), /failed: .*"tools\/hangs\.ts"/);
        },
      );

      await t.step("gateway tools types keeps the nested interfaces of a module", async () => {
        const result = await gw.cli(["tools", "types", "inventory"]);
        assert.equal(result.code, 0, result.stderr);
        const types = result.stdout;
        assert.match(types, /export interface Item \{[^}]*location: Location;[^}]*tags: Tag\[\];/s);
        assert.match(types, /export interface Location \{[^}]*shelf\?: Shelf;/s);
        assert.match(types, /export type Shelf = \{ row: number; column: number \}/);
        assert.match(types, /put: GatewayTool<\{ item: Item; overwrite\?: boolean \}, Item>/);
        assert.doesNotMatch(types, /Unused/);
      });

      await t.step(
        "a tool that throws reaches the script as ToolError with its message",
        async () => {
          const run = await execJson(gw, 'await tools.faulty.fail({ message: "out of stock" })');
          assert.equal(run.ok, false);
          assert.equal(run.error?.kind, "ToolError");
          assert.match(run.error?.message ?? "", /out of stock/);
          const caught = await execJson(
            gw,
            'let seen = "nothing"; try { await tools.faulty.reject({ message: "later" }) } catch (e) { seen = e instanceof ToolError ? `${e.kind}: ${e.message}` : "other" } seen',
          );
          assert.equal(caught.ok, true, JSON.stringify(caught));
          assert.match(String(caught.result), /^ToolError: .*later/);
        },
      );

      await t.step("a script calling a failed namespace gets NamespaceUnavailable", async () => {
        const run = await execJson(gw, "await tools.throws.ping()");
        assert.equal(run.ok, false);
        assert.ok(
          ["NamespaceUnavailable", "CheckFailed"].includes(run.error?.kind ?? ""),
          JSON.stringify(run.error),
        );
        const unchecked = await gw.cli([
          "exec",
          "--json",
          "--no-check",
          "await tools.throws.ping()",
        ]);
        assert.equal(JSON.parse(unchecked.stdout).error.kind, "NamespaceUnavailable");
      });

      await t.step("a script calling an unknown tool gets UnknownTool", async () => {
        const result = await gw.cli([
          "exec",
          "--json",
          "--no-check",
          "await tools.inventory.nope()",
        ]);
        const run = JSON.parse(result.stdout);
        assert.equal(run.error.kind, "UnknownTool");
        assert.match(run.error.message, /nope/);
      });

      await t.step(
        'an export named "delete" is tools.x.delete_ and tools.x["delete"]',
        async () => {
          const run = await execJson(
            gw,
            `await tools.inventory.put({ item: { sku: "B-2", quantity: 1, location: { warehouse: "W" }, tags: [] } });
const first = await tools.inventory.delete_({ sku: "A-1" });
const second = await tools.inventory["delete"]({ sku: "B-2" });
const again = await tools.inventory.delete_({ sku: "A-1" });
[first, second, again, (await tools.inventory.count()).total]`,
          );
          assert.equal(run.ok, true, JSON.stringify(run.error));
          assert.deepEqual(run.result, [true, true, false, 0]);
        },
      );
    } finally {
      await client.close();
    }
  });
});

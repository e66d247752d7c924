/**
 * End-to-end proof that catalogue changes (a tool module added or removed, a
 * tool's JSDoc edited, a named script added) reach `catalog`, `search` and `gateway tools types`
 * within seconds, without a restart.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { GatewayClient } from "../src/client/gateway_client.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { toolModuleSource, waitForNamespaces } from "./support/discovery_root.ts";
import { pollUntil } from "./support/poll_until.ts";

/** How long a change may take to show (about a second is usual; this allows for load). */
const DEADLINE_MS = 5000;

interface SearchAnswer {
  results: Array<{ path: string; kind: string; description: string }>;
  total: number;
  next: number | null;
}

/** What the three discovery surfaces say right now, over RPC. */
async function surfaces(client: GatewayClient, query: string, namespace: string) {
  const [catalog, search, types] = await Promise.all([
    client.request<{ text: string; namespaces: Array<{ name: string; count: number }> }>(
      "catalog",
      { budget: 100000 },
    ),
    client.request<SearchAnswer>("search", { query }),
    // `gateway tools types NS`: an unknown namespace is an error, read as "not there".
    client.request<{ types: string }>("types", { namespaces: [namespace] }).then(
      (answer) => answer.types,
      () => "",
    ),
  ]);
  return { catalog, search, types };
}

/** Polls until `ready` holds for all three surfaces; returns how long it took after `since`. */
async function reflected(
  client: GatewayClient,
  options: {
    what: string;
    query: string;
    /** The namespace whose `types` are read. */
    namespace: string;
    since: number;
    ready: (s: Awaited<ReturnType<typeof surfaces>>) => boolean;
  },
): Promise<number> {
  let last: unknown = null;
  await pollUntil(options.what, async () => {
    const now = await surfaces(client, options.query, options.namespace);
    last = { search: now.search.results.slice(0, 3), namespaces: now.catalog.namespaces };
    return options.ready(now) ? true : undefined;
  }, { timeoutMs: DEADLINE_MS - (Date.now() - options.since), intervalMs: 50, last: () => last });
  return Date.now() - options.since;
}

Deno.test("catalogue changes reach catalog, search and types without a restart", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await withHarness({
    files: {
      "gateway.json": JSON.stringify({ port: 0 }),
      "tools/alpha.ts": toolModuleSource("alpha", 3),
      "scripts/.keep": "",
    },
  }, async (gw) => {
    await t.step(
      "the first catalogue after a cold start already lists the module's tools",
      async () => {
        // This call starts the server; discovery waits (bounded) for namespaces still starting.
        const result = await gw.cli(["catalog", "--json"]);
        assert.equal(result.code, 0, result.stderr);
        const catalog = JSON.parse(result.stdout) as {
          text: string;
          namespaces: Array<{ name: string; count: number; status: { state: string } }>;
        };
        assert.deepEqual(
          catalog.namespaces.map((ns) => [ns.name, ns.count, ns.status.state]),
          [["alpha", 3, "ready"]],
        );
        assert.match(catalog.text, /^Tool catalogue: COMPLETE, all 3 tools shown/);
        assert.doesNotMatch(catalog.text, /Still starting/);
      },
    );

    const client = await gw.client();
    try {
      await waitForNamespaces(client, ["alpha"]);
      const pidBefore = (await gw.server()).pid;

      await t.step("a new tool module file appears everywhere", async () => {
        const since = Date.now();
        await Deno.writeTextFile(
          join(gw.root, "tools", "late.ts"),
          [
            "/** Added while the server runs. @module */",
            "/** Polishes a zebra crossing until it shines. */",
            "export function polish_zebra(args: { street: string; coats?: number }): string {",
            "  return args.street;",
            "}",
            "",
          ].join("\n"),
        );
        await reflected(client, {
          what: "tools/late.ts to be listed",
          query: "zebra crossing",
          namespace: "late",
          since,
          ready: ({ catalog, search, types }) =>
            search.results[0]?.path === "tools.late.polish_zebra" &&
            catalog.namespaces.some((ns) => ns.name === "late" && ns.count === 1) &&
            catalog.text.includes("/** Polishes a zebra crossing until it shines. */") &&
            types.includes("  namespace late {") && types.includes("polish_zebra"),
        });
        const cli = await gw.cli(["search", "zebra", "--json"]);
        assert.equal(JSON.parse(cli.stdout).results[0].path, "tools.late.polish_zebra");
        const typesCli = await gw.cli(["tools", "types", "late"]);
        assert.equal(typesCli.code, 0, typesCli.stderr);
        assert.match(typesCli.stdout, /Polishes a zebra crossing until it shines\./);
        // The type check of scripts knows the new tool too.
        const run = await gw.cli([
          "exec",
          'await tools.late.polish_zebra({ street: "Abbey Road" })',
        ]);
        assert.equal(run.stdout, "Abbey Road\n", run.stderr);
        const typo = await gw.cli(["exec", 'await tools.late.polish_zebra({ road: "x" })']);
        assert.match(typo.stderr, /error\[CheckFailed\]/);
        assert.match(
          typesCli.stdout,
          /polish_zebra: GatewayTool<\{ street: string; coats\?: number \}/,
        );
      });

      await t.step("an edited JSDoc replaces the old text everywhere", async () => {
        const file = join(gw.root, "tools", "alpha.ts");
        const text = await Deno.readTextFile(file);
        const edited = text.replace(
          "Reads record 1 of alpha with 1 filters.",
          "Counts the quokkas seen on record 1.",
        );
        assert.notEqual(edited, text);
        const since = Date.now();
        await Deno.writeTextFile(file, edited);
        await reflected(client, {
          what: "the edited JSDoc of alpha.tool1",
          query: "quokkas",
          namespace: "alpha",
          since,
          ready: ({ catalog, search, types }) =>
            search.results[0]?.path === "tools.alpha.tool1" &&
            catalog.text.includes("/** Counts the quokkas seen on record 1. */") &&
            !catalog.text.includes("Reads record 1 of alpha") &&
            types.includes("Counts the quokkas seen on record 1.") &&
            !types.includes("Reads record 1 of alpha"),
        });
        const catalog = await gw.cli(["catalog"]);
        assert.match(catalog.stdout, /Counts the quokkas seen on record 1\./);
        const types = await gw.cli(["tools", "types", "alpha"]);
        assert.match(types.stdout, /Counts the quokkas seen on record 1\./);
        assert.doesNotMatch(types.stdout, /Reads record 1 of alpha/);
      });

      await t.step("a new named script is found by its description", async () => {
        const since = Date.now();
        await Deno.writeTextFile(
          join(gw.root, "scripts", "otter_census.ts"),
          "/**\n * Counts river otters by district.\n * @param district which district\n */\nconsole.log(args);\n",
        );
        await reflected(client, {
          what: "scripts/otter_census.ts to be searchable",
          query: "river otters",
          namespace: "alpha",
          since,
          ready: ({ catalog, search }) =>
            search.results[0]?.path === "otter_census" &&
            catalog.text.includes("Named scripts: 1"),
        });
        const described = await gw.cli(["describe", "otter_census"]);
        assert.match(described.stdout, /Counts river otters by district\./);
      });

      await t.step("a removed tool module disappears everywhere", async () => {
        const since = Date.now();
        await Deno.remove(join(gw.root, "tools", "late.ts"));
        await reflected(client, {
          what: "tools/late.ts to be gone",
          query: "zebra crossing",
          namespace: "late",
          since,
          ready: ({ catalog, search, types }) =>
            !search.results.some((r) => r.path.startsWith("tools.late.")) &&
            !catalog.namespaces.some((ns) => ns.name === "late") &&
            !types.includes("  namespace late {"),
        });
        const describe = await gw.cli(["describe", "tools.late.polish_zebra"]);
        assert.notEqual(describe.code, 0);
      });

      await t.step("all of it happened in the same server process", async () => {
        assert.equal((await gw.server()).pid, pidBefore);
      });
    } finally {
      await client.close();
    }
  });
});

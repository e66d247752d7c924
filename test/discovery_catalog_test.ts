/**
 * End-to-end proof of discovery (docs/protocol.md#discovery) on one server: 12 generated tool modules × 8 tools plus
 * the real `server-everything` MCP server and two named scripts. The token-budgeted catalogue,
 * search with paging, describe, the LLM guide and the HTTP routes, through the CLI, RPC and HTTP.
 * @module
 */

import assert from "node:assert/strict";
import type { GatewayClient } from "../src/client/gateway_client.ts";
import { RpcError } from "../src/protocol/json_rpc.ts";
import { type GatewayHarness, withHarness } from "./support/gateway_harness.ts";
import {
  EVERYTHING_ENTRY,
  type NamespaceInfo,
  toolModuleFiles,
  waitForNamespaces,
} from "./support/discovery_root.ts";

const MODULES = 12;
const TOOLS_PER_MODULE = 8;
const LOCAL_NAMESPACES = Array.from({ length: MODULES }, (_, n) => `ns${n}`);
const NAMESPACES = ["everything", ...LOCAL_NAMESPACES];

const FLAMINGO_SCRIPT = `/**
 * Compiles a weekly digest of flamingo sightings from the zoo logs.
 *
 * @param week ISO week to summarise, like 2024-W07
 * @param format output format: text or json
 * @example gateway run flamingo_digest 2024-W07 text
 */
const [week = "?", format = "text"] = args;
console.log(\`digest \${week} \${format}\`);
`;

const CLEANUP_SCRIPT = `/**
 * Removes stale temporary files older than a week.
 * @example gateway run tidy/stale_cleanup
 */
console.log("nothing to remove");
`;

const FILES = {
  "gateway.json": JSON.stringify({
    port: 0,
    mcpServers: { everything: { command: "node", args: [EVERYTHING_ENTRY, "stdio"] } },
    exec: { timeoutMs: 45000, maxToolCalls: 321 },
  }),
  ...toolModuleFiles(MODULES, TOOLS_PER_MODULE),
  "scripts/flamingo_digest.ts": FLAMINGO_SCRIPT,
  "scripts/tidy/stale_cleanup.ts": CLEANUP_SCRIPT,
};

/** What `catalog` answers (RPC, `--json`, HTTP). */
interface CatalogAnswer {
  text: string;
  complete: boolean;
  shown: number;
  total: number;
  namespaces: Array<
    {
      name: string;
      identifier: string;
      kind: string;
      status: { state: string };
      count: number;
      shown: number;
    }
  >;
}

/** What `search` answers. */
interface SearchAnswer {
  results: Array<{ path: string; kind: string; signature: string; description: string }>;
  total: number;
  next: number | null;
}

function json<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`Not JSON: ${text.slice(0, 400)}`, { cause: error });
  }
}

async function cliJson<T>(gw: GatewayHarness, args: string[]): Promise<T> {
  const result = await gw.cli([...args, "--json"]);
  assert.equal(result.code, 0, `gateway ${args.join(" ")} failed: ${result.stderr}`);
  return json<T>(result.stdout);
}

/**
 * The per-namespace sections of a catalogue text: heading numbers and the item texts (an
 * optional one-line JSDoc and the signature line) keyed by tool path, in the order shown.
 */
function parseSections(
  text: string,
): Map<string, { shown: number; count: number; items: Map<string, string> }> {
  const sections = new Map<string, { shown: number; count: number; items: Map<string, string> }>();
  for (const chunk of text.split(/^## /m).slice(1)) {
    const [heading = "", ...lines] = chunk.split("\n");
    const match = /^(\S+): (\d+) of (\d+) tools$/.exec(heading);
    assert.ok(match, `section heading "${heading}" does not read "NS: N of M tools"`);
    const items = new Map<string, string>();
    let doc = "";
    for (const line of lines) {
      if (line.startsWith("/** ")) doc = `${line}\n`;
      else if (line.startsWith("tools.")) {
        const path = /^(tools\.[^(]+)\(/.exec(line)?.[1];
        assert.ok(path, `signature line "${line}" has no path`);
        items.set(path, `${doc}${line}\n`);
        doc = "";
      }
    }
    sections.set(match[1]!, { shown: Number(match[2]), count: Number(match[3]), items });
  }
  return sections;
}

/** Every tool's catalogue item text, by namespace, cheapest first (length, then path). */
type Candidates = Map<string, Array<{ path: string; text: string }>>;

function candidatesOf(complete: CatalogAnswer): Candidates {
  const out: Candidates = new Map();
  for (const [ns, section] of parseSections(complete.text)) {
    out.set(
      ns,
      [...section.items].map(([path, text]) => ({ path, text })).sort((a, b) =>
        a.text.length - b.text.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
      ),
    );
  }
  return out;
}

/** The invariants every catalogue answer keeps, whatever its budget. */
function checkCatalog(
  answer: CatalogAnswer,
  context: { budget: number; candidates: Candidates; counts: Map<string, number> },
): void {
  const { budget, candidates, counts } = context;
  const where = `catalog --budget ${budget}`;
  assert.ok(
    answer.text.length <= budget * 4,
    `${where}: text is ${answer.text.length} characters, over ${budget * 4}`,
  );
  assert.deepEqual(answer.namespaces.map((ns) => ns.name).sort(), [...NAMESPACES].sort(), where);
  for (const ns of answer.namespaces) assert.equal(ns.count, counts.get(ns.name), where);
  assert.equal(answer.total, [...counts.values()].reduce((a, b) => a + b, 0), where);
  assert.equal(answer.shown, answer.namespaces.reduce((sum, ns) => sum + ns.shown, 0), where);
  assert.equal(answer.complete, answer.shown === answer.total, where);

  const [first = "", ...rest] = answer.text.split("\n");
  assert.equal(
    first,
    answer.complete
      ? `Tool catalogue: COMPLETE, all ${answer.total} tools shown (budget ${budget} tokens).`
      : `Tool catalogue: PARTIAL, ${answer.shown} of ${answer.total} tools shown (budget ${budget} tokens).`,
  );
  const header = rest.join("\n").split(/^## /m)[0]!;
  for (const ns of answer.namespaces) {
    const coverage = ns.shown === ns.count
      ? "COMPLETE"
      : `PARTIAL, ${ns.shown} of ${ns.count} shown`;
    assert.ok(
      header.includes(`- ${ns.name}: ${ns.count} tools, ${coverage}; ${ns.kind}, ready\n`),
      `${where}: header has no line for "${ns.name}" saying ${coverage}:\n${header}`,
    );
  }
  if (!answer.complete) {
    assert.match(header, /gateway search WORDS --namespace NS/, `${where}: no way to the rest`);
    assert.match(header, /gateway tools types NS/, `${where}: no way to the rest`);
  }

  const sections = parseSections(answer.text);
  for (const ns of answer.namespaces) {
    const section = sections.get(ns.name);
    if (ns.shown === 0) {
      assert.equal(section, undefined, `${where}: "${ns.name}" shows nothing but has a section`);
      continue;
    }
    assert.ok(section, `${where}: "${ns.name}" shows ${ns.shown} tools but has no section`);
    assert.equal(section.shown, ns.shown, `${where}: section of "${ns.name}"`);
    assert.equal(section.count, ns.count, `${where}: section of "${ns.name}"`);
    assert.equal(section.items.size, ns.shown, `${where}: signatures in "${ns.name}"`);
    // Each namespace adds its cheapest remaining signature: what is shown is a cheapest prefix.
    const cheapest = candidates.get(ns.name)!.slice(0, ns.shown);
    assert.deepEqual(
      [...section.items.keys()].sort(),
      cheapest.map((c) => c.path).sort(),
      `${where}: "${ns.name}" does not show its ${ns.shown} cheapest signatures`,
    );
    for (const c of cheapest) assert.equal(section.items.get(c.path), c.text, where);
  }
}

Deno.test(
  "discovery end to end: catalogue, search, describe and the guide over CLI, RPC and HTTP",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async (t) => {
    await withHarness({ files: FILES }, async (gw) => {
      const client: GatewayClient = await gw.client();
      try {
        const listed: NamespaceInfo[] = await waitForNamespaces(client, NAMESPACES);
        const everything = listed.find((ns) => ns.name === "everything")!;
        // BUG-GUARD: server-everything is a real upstream; if it did not come up the rest is moot.
        assert.equal(everything.status, "ready", `everything: ${everything.reason ?? ""}`);
        for (const ns of LOCAL_NAMESPACES) {
          const info = listed.find((n) => n.name === ns)!;
          assert.equal(info.status, "ready", `${ns}: ${info.reason ?? ""}`);
          assert.equal(info.tools, TOOLS_PER_MODULE, ns);
        }
        const counts = new Map(listed.map((ns) => [ns.name, ns.tools]));
        const totalTools = [...counts.values()].reduce((a, b) => a + b, 0);

        const complete = await cliJson<CatalogAnswer>(gw, ["catalog", "--budget", "100000"]);
        const candidates = candidatesOf(complete);

        await t.step("a budget that fits everything gives a COMPLETE catalogue", () => {
          checkCatalog(complete, { budget: 100000, candidates, counts });
          assert.equal(complete.complete, true);
          assert.equal(complete.shown, totalTools);
          for (const ns of complete.namespaces) assert.equal(ns.shown, ns.count, ns.name);
          // Every tool appears with its one-line JSDoc.
          assert.ok(complete.text.includes(
            "/** Reads record 5 of ns3 with 5 filters. */\ntools.ns3.tool5(args: { id: string;",
          ));
        });

        await t.step(
          "partial catalogues keep the budget, the numbers and the cheapest-first order",
          async () => {
            for (const budget of [300, 700, 1000, 1500, 3000]) {
              const answer = await cliJson<CatalogAnswer>(gw, [
                "catalog",
                "--budget",
                String(budget),
              ]);
              checkCatalog(answer, { budget, candidates, counts });
              assert.equal(answer.complete, false, `budget ${budget}`);
            }
          },
        );

        await t.step(
          "the default budget is 2000 tokens and the plain text is the JSON's text",
          async () => {
            const plain = await gw.cli(["catalog"]);
            assert.equal(plain.code, 0, plain.stderr);
            const answer = await cliJson<CatalogAnswer>(gw, ["catalog"]);
            checkCatalog(answer, { budget: 2000, candidates, counts });
            assert.equal(plain.stdout, `${answer.text}\n`);
            assert.ok(plain.stdout.startsWith(
              `Tool catalogue: PARTIAL, ${answer.shown} of ${totalTools} tools shown (budget 2000 tokens).`,
            ));
          },
        );

        await t.step(
          "no namespace is starved once the budget allows one signature each",
          async () => {
            for (const budget of [1000, 2000, 4000]) {
              const answer = await client.request<CatalogAnswer>("catalog", { budget });
              for (const ns of answer.namespaces) {
                assert.ok(ns.shown >= 1, `budget ${budget}: "${ns.name}" shows no signature`);
              }
              // Round-robin: modules of alike tools never differ by more than one signature.
              const local = answer.namespaces.filter((ns) => ns.kind === "local").map((ns) =>
                ns.shown
              );
              assert.ok(Math.max(...local) - Math.min(...local) <= 1, `budget ${budget}: ${local}`);
            }
            // The smallest budget at which every namespace shows one: one each must need all of it,
            // i.e. no budget that could hold one each leaves a namespace out.
            const oneEach = async (budget: number) => {
              const answer = await client.request<CatalogAnswer>("catalog", { budget });
              return { answer, ok: answer.namespaces.every((ns) => ns.shown >= 1) };
            };
            let low = 1;
            let high = 5000;
            while (low < high) {
              const mid = (low + high) >> 1;
              if ((await oneEach(mid)).ok) high = mid;
              else low = mid + 1;
            }
            const { answer } = await oneEach(low);
            checkCatalog(answer, { budget: low, candidates, counts });
            if (answer.shown === NAMESPACES.length) {
              assert.ok(
                answer.text.length > (low - 1) * 4,
                `one signature each fits in ${
                  low - 1
                } tokens (${answer.text.length} characters), ` +
                  `yet that budget leaves a namespace without one`,
              );
            }
          },
        );

        await t.step("the catalogue is deterministic over the CLI, RPC and HTTP", async () => {
          const { port, token } = await gw.server();
          const a = await cliJson<CatalogAnswer>(gw, ["catalog", "--budget", "900"]);
          const b = await cliJson<CatalogAnswer>(gw, ["catalog", "--budget", "900"]);
          const rpc = await client.request<CatalogAnswer>("catalog", { budget: 900 });
          const response = await fetch(`http://127.0.0.1:${port}/catalog?budget=900`, {
            headers: { authorization: `Bearer ${token}` },
          });
          assert.equal(response.status, 200);
          const http = await response.json() as CatalogAnswer;
          assert.equal(a.text, b.text);
          assert.deepEqual(rpc, a);
          assert.deepEqual(http, a);
          const refused = await fetch(`http://127.0.0.1:${port}/catalog`);
          assert.equal(refused.status, 401);
          await refused.body?.cancel();
        });

        await t.step("a budget that is not a positive number is a usage error", async () => {
          for (const budget of ["0", "-5", "many"]) {
            const result = await gw.cli(["catalog", "--budget", budget]);
            assert.equal(result.code, 2, `--budget ${budget}: ${result.stdout}${result.stderr}`);
            assert.match(result.stderr, /^error\[Usage\]: .*budget/);
          }
        });

        await t.step("paging a search visits every result exactly once", async () => {
          // CLI: "record" matches every generated tool.
          const seen: string[] = [];
          let offset: number | null = 0;
          let total = -1;
          for (let pages = 0; offset !== null; pages++) {
            assert.ok(pages < 20, "paging does not end");
            const page: SearchAnswer = await cliJson<SearchAnswer>(gw, [
              "search",
              "record",
              "--limit",
              "25",
              "--offset",
              String(offset),
            ]);
            if (total === -1) total = page.total;
            assert.equal(page.total, total, "total changes between pages");
            assert.ok(page.results.length <= 25);
            seen.push(...page.results.map((r) => r.path));
            assert.ok(page.next === null || page.next === offset + page.results.length);
            offset = page.next;
          }
          assert.equal(total, MODULES * TOOLS_PER_MODULE);
          assert.equal(new Set(seen).size, seen.length, "a result came twice");
          assert.equal(seen.length, total);
          const expected = LOCAL_NAMESPACES.flatMap((ns) =>
            Array.from({ length: TOOLS_PER_MODULE }, (_, k) => `tools.${ns}.tool${k}`)
          );
          assert.deepEqual([...seen].sort(), expected.sort());

          // RPC: the empty query lists everything, tools and scripts, in small pages.
          const all: string[] = [];
          let next: number | null = 0;
          let everythingTotal = -1;
          while (next !== null) {
            const page: SearchAnswer = await client.request<SearchAnswer>("search", {
              query: "",
              limit: 7,
              offset: next,
            });
            everythingTotal = page.total;
            all.push(...page.results.map((r) => r.path));
            next = page.next;
          }
          assert.equal(everythingTotal, totalTools + 2);
          assert.equal(new Set(all).size, all.length, "a result came twice");
          assert.equal(all.length, everythingTotal);
          assert.ok(all.includes("flamingo_digest") && all.includes("tidy/stale_cleanup"));
          const past = await client.request<SearchAnswer>("search", { query: "", offset: 500 });
          assert.deepEqual(past, {
            results: [],
            total: everythingTotal,
            next: null,
            text: `0 of ${everythingTotal}`,
          });
        });

        await t.step("named scripts are found by their description", async () => {
          const flamingo = await cliJson<SearchAnswer>(gw, ["search", "flamingo", "sightings"]);
          assert.equal(flamingo.results[0]?.path, "flamingo_digest");
          assert.equal(flamingo.results[0]?.kind, "script");
          assert.equal(flamingo.results[0]?.signature, "gateway run flamingo_digest WEEK FORMAT");
          assert.match(
            flamingo.results[0]?.description ?? "",
            /weekly digest of flamingo sightings/,
          );
          const stale = await cliJson<SearchAnswer>(gw, ["search", "stale temporary files"]);
          assert.equal(stale.results[0]?.path, "tidy/stale_cleanup");
          const plain = await gw.cli(["search", "flamingo"]);
          assert.equal(plain.code, 0, plain.stderr);
          assert.match(plain.stdout, /^gateway run flamingo_digest WEEK FORMAT — Compiles/);
          assert.match(plain.stdout, /^\d+ of \d+$/m);
        });

        await t.step("a query naming an exact path is a look-up of that item", async () => {
          for (const query of ["tools.ns3.tool5", "ns3.tool5"]) {
            const answer = await cliJson<SearchAnswer>(gw, ["search", query]);
            assert.equal(answer.results[0]?.path, "tools.ns3.tool5", query);
            assert.match(
              answer.results[0]?.signature ?? "",
              /^tools\.ns3\.tool5\(args: \{ id: string;/,
            );
          }
          const script = await cliJson<SearchAnswer>(gw, ["search", "flamingo_digest"]);
          assert.equal(script.results[0]?.path, "flamingo_digest");
          const http = await client.request<SearchAnswer>("search", {
            query: "tools.everything.echo",
          });
          assert.equal(http.results[0]?.path, "tools.everything.echo");
        });

        await t.step("an empty query with a namespace lists that namespace", async () => {
          const ns4 = await cliJson<SearchAnswer>(gw, ["search", "--namespace", "ns4"]);
          assert.equal(ns4.total, TOOLS_PER_MODULE);
          assert.equal(ns4.next, null);
          assert.deepEqual(
            ns4.results.map((r) => r.path),
            Array.from({ length: TOOLS_PER_MODULE }, (_, k) => `tools.ns4.tool${k}`),
          );
          const upstream = await cliJson<SearchAnswer>(gw, [
            "search",
            "--namespace",
            "everything",
            "--limit",
            "5",
          ]);
          assert.equal(upstream.total, counts.get("everything"));
          assert.equal(upstream.results.length, 5);
          assert.equal(upstream.next, 5);
          assert.ok(upstream.results.every((r) => r.path.startsWith("tools.everything.")));
          const missing = await gw.cli(["search", "x", "--namespace", "ns33"]);
          assert.notEqual(missing.code, 0);
          assert.match(missing.stderr, /"ns33".*"ns3"/);
          const noQuery = await gw.cli(["search"]);
          assert.equal(noQuery.code, 2);
        });

        await t.step("describe shows a tool compactly, and in full with --full", async () => {
          const compact = await gw.cli(["describe", "tools.ns3.tool7"]);
          assert.equal(compact.code, 0, compact.stderr);
          assert.match(compact.stdout, /^\/\*\* Reads record 7 of ns3 with 7 filters\. \*\/\n/);
          assert.match(
            compact.stdout,
            /^tools\.ns3\.tool7\(args: Ns3Tool7Options\): Promise<string>$/m,
          );
          assert.match(
            compact.stdout,
            /^interface Ns3Tool7Options \{\n {2}\/\*\* Field id of the record\. \*\/\n {2}id: string;/m,
          );
          assert.doesNotMatch(compact.stdout, /@param|\.raw\(/, "the rest waits for --full");
          const result = await gw.cli(["describe", "tools.ns3.tool7", "--full"]);
          assert.equal(result.code, 0, result.stderr);
          const text = result.stdout;
          assert.match(text, /^\/\*\*\n \* Reads record 7 of ns3 with 7 filters\.\n/);
          assert.ok(text.includes(" * @param args the record id and the filters\n"), text);
          assert.ok(text.includes(" * @param args.field7 Field field7 of the record.\n"), text);
          assert.ok(
            text.includes("tools.ns3.tool7(args: Ns3Tool7Options): Promise<string>\n"),
            text,
          );
          assert.ok(
            text.includes("/** Options of ns3.tool7: which record and how to filter it. */"),
          );
          assert.ok(text.includes("export interface Ns3Tool7Options {"), text);
          assert.ok(text.includes("  field6: number;"), text);
          const inline = await cliJson<{ kind: string; path: string; text: string }>(gw, [
            "describe",
            "ns3.tool2",
          ]);
          assert.equal(inline.kind, "tool");
          assert.equal(inline.path, "tools.ns3.tool2");
          assert.ok(inline.text.includes(
            "tools.ns3.tool2(args: { id: string; field1: string; field2: number }): Promise<string>",
          ));
          const upstream = await client.request<{ text: string }>("describe", {
            path: "tools.everything.get_sum",
            full: true,
          });
          assert.match(upstream.text, /Returns the sum of two numbers/);
          assert.match(upstream.text, /tools\.everything\.get_sum\(args: GetSumInput\)/);
          assert.match(upstream.text, /export interface GetSumInput \{/);
          assert.match(upstream.text, /Original name "get-sum"/);
        });

        await t.step(
          "describe shows a named script's description, parameters and examples",
          async () => {
            const result = await gw.cli(["describe", "flamingo_digest"]);
            assert.equal(result.code, 0, result.stderr);
            const text = result.stdout;
            assert.ok(
              text.startsWith(
                'Script "flamingo_digest": gateway run flamingo_digest WEEK FORMAT\n',
              ),
            );
            assert.ok(
              text.includes("Compiles a weekly digest of flamingo sightings from the zoo logs."),
            );
            assert.match(text, /week\s+ISO week to summarise, like 2024-W07/);
            assert.match(text, /format\s+output format: text or json/);
            assert.ok(text.includes("gateway run flamingo_digest 2024-W07 text"), text);
            const http = await client.request<{ kind: string; path: string }>("describe", {
              path: "tidy/stale_cleanup.ts",
            });
            assert.deepEqual([http.kind, http.path], ["script", "tidy/stale_cleanup"]);
          },
        );

        await t.step("an unknown path is an error that names the nearest paths", async () => {
          const result = await gw.cli(["describe", "tools.ns3.tol5"]);
          assert.notEqual(result.code, 0);
          assert.equal(result.stdout, "");
          assert.match(
            result.stderr,
            /^error\[UnknownTool\]: Cannot describe "tools\.ns3\.tol5": /,
          );
          assert.ok(result.stderr.includes('"tools.ns3.tool5"'), result.stderr);
          assert.doesNotMatch(result.stderr, /Internal/);
          const error = await client.request("describe", { path: "tools.nss3.tool5" }).then(
            () => null,
            (e: unknown) => e,
          );
          assert.ok(error instanceof RpcError, String(error));
          assert.equal(error.data?.kind, "UnknownTool");
          assert.ok((error.data?.nearest as string[]).includes("tools.ns3.tool5"), error.message);
          const script = await gw.cli(["describe", "flamingo_digets"]);
          assert.notEqual(script.code, 0);
          assert.ok(script.stderr.includes('"flamingo_digest"'), script.stderr);
        });

        await t.step("--llm-help names every namespace and the limits in force", async () => {
          const result = await gw.cli(["--llm-help"]);
          assert.equal(result.code, 0, result.stderr);
          const text = result.stdout;
          for (const ns of NAMESPACES) {
            const count = counts.get(ns)!;
            assert.ok(
              text.includes(
                `\`tools.${ns}\`: ${
                  ns === "everything" ? "MCP server" : "local module"
                }, ready, ${count} tools`,
              ),
              `guide misses ${ns}`,
            );
          }
          assert.ok(text.includes("Named scripts: 2"), "guide misses the scripts");
          assert.ok(text.includes("- Whole run: 45000 ms"), "guide misses the configured timeout");
          assert.ok(
            text.includes("Tool calls per run: 321"),
            "guide misses the configured call limit",
          );
          assert.match(text, /gateway catalog \[--budget TOKENS\]/);
          assert.match(text, /gateway search QUERY/);
          const guide = await gw.cli(["guide"]);
          assert.equal(guide.stdout, text);
        });

        await t.step("HTTP /search and /describe answer like RPC", async () => {
          const { port, token } = await gw.server();
          const get = async (path: string) => {
            const response = await fetch(`http://127.0.0.1:${port}${path}`, {
              headers: { authorization: `Bearer ${token}` },
            });
            return { status: response.status, body: await response.json() };
          };
          const search = await get("/search?q=flamingo%20sightings&limit=3");
          assert.equal(search.status, 200);
          assert.deepEqual(
            search.body,
            await client.request("search", { query: "flamingo sightings", limit: 3 }),
          );
          assert.equal((search.body as SearchAnswer).results[0]?.path, "flamingo_digest");
          const paged = await get("/search?q=record&limit=10&offset=90");
          assert.equal((paged.body as SearchAnswer).results.length, 6);
          assert.equal((paged.body as SearchAnswer).next, null);
          const listed = await get("/search?namespace=ns5");
          assert.equal((listed.body as SearchAnswer).total, TOOLS_PER_MODULE);
          const described = await get("/describe?path=tools.ns3.tool7");
          assert.equal(described.status, 200);
          assert.match((described.body as { text: string }).text, /Ns3Tool7Options/);
          const unknown = await get("/describe?path=tools.ns3.tol5");
          assert.notEqual(unknown.status, 200);
          assert.match(JSON.stringify(unknown.body), /tools\.ns3\.tool5/);
        });

        await t.step("search() and describe() inside a script answer like the CLI", async () => {
          const source = [
            'const hits = search("flamingo sightings", { limit: 3 });',
            'const listed = search("", { namespace: "ns4", limit: 5 });',
            'let unknown = "";',
            'try { describe("tools.ns3.tol5"); } catch (e) { unknown = String(e); }',
            "({ first: hits.results[0]?.path, total: hits.total, listed: listed.results.map((r) => r.path),",
            '   next: listed.next, declaration: describe("tools.ns3.tool7"), unknown })',
          ].join("\n");
          const result = await gw.cli(["exec", "--json", source]);
          assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
          const run = json<{ ok: boolean; result: Record<string, unknown>; error?: unknown }>(
            result.stdout,
          );
          assert.equal(run.ok, true, JSON.stringify(run.error));
          const rpcHits = await client.request<SearchAnswer>("search", {
            query: "flamingo sightings",
            limit: 3,
          });
          assert.equal(run.result.first, "flamingo_digest");
          assert.equal(run.result.total, rpcHits.total);
          assert.deepEqual(
            run.result.listed,
            Array.from({ length: 5 }, (_, k) => `tools.ns4.tool${k}`),
          );
          assert.equal(run.result.next, 5);
          const rpcDescribe = await client.request<{ text: string }>("describe", {
            path: "tools.ns3.tool7",
          });
          assert.equal(run.result.declaration, rpcDescribe.text);
          assert.match(String(run.result.unknown), /tools\.ns3\.tool5/);
        });
      } finally {
        await client.close();
      }
    });
  },
);

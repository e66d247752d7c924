import assert from "node:assert/strict";
import type { CatalogueSnapshot, ToolDescriptor } from "../protocol/catalogue.ts";
import { buildToolIdentifiers } from "../protocol/names.ts";
import { searchCatalogue, SearchIndex, searchTerms, stem } from "./search.ts";
import { syntheticSnapshot } from "./synthetic_snapshot.ts";

function mailSnapshot(): CatalogueSnapshot {
  const tool = (
    originalName: string,
    description: string,
    params: string[] = [],
  ): ToolDescriptor => ({
    originalName,
    description,
    inputType: null,
    inputOptional: true,
    outputType: "unknown",
    params: params.map((name) => ({ name, description: "", required: false })),
  });
  const catalogue = {
    tools: [
      tool("list_drafts", "Lists unsent email drafts."),
      tool("compose", "Writes a message.", ["email_address"]),
      tool("send_email", "Sends it."),
      tool("archive", "Moves old threads away."),
    ],
    declarations: "",
    warnings: [],
  };
  return {
    namespaces: [{
      name: "mail",
      identifier: "mail",
      kind: "mcp",
      status: { state: "ready" },
      catalogue,
      toolIdentifiers: buildToolIdentifiers(catalogue).identifiers,
    }],
    scripts: [],
  };
}

Deno.test("`stem()` and `searchTerms()` fold case, separators, camelCase and plurals", () => {
  assert.deepEqual(searchTerms("getHTTPItems"), ["get", "http", "item"]);
  assert.deepEqual(searchTerms("list-all_ENTRIES"), ["list", "all", "entry"]);
  assert.equal(stem("issues"), stem("issue"));
  assert.equal(stem("matches"), stem("match"));
  assert.equal(stem("boxes"), stem("box"));
  assert.equal(stem("status"), "status");
  assert.equal(stem("class"), stem("classes"));
});

Deno.test("`searchCatalogue()` ranks name over parameter over description matches", () => {
  const answer = searchCatalogue(mailSnapshot(), "email");
  assert.deepEqual(answer.results.map((hit) => hit.path), [
    "tools.mail.send_email",
    "tools.mail.compose",
    "tools.mail.list_drafts",
  ]);
  assert.equal(answer.total, 3);
  assert.equal(answer.next, null);
});

Deno.test("`searchCatalogue()` matches plurals, case and separators in any spelling", () => {
  const index = new SearchIndex(syntheticSnapshot());
  for (const query of ["get issue", "getIssue", "GET_ISSUE", "get-issues", "getissue"]) {
    assert.equal(index.search(query).results[0]?.path, "tools.github.get_issue", query);
  }
  const issues = index.search("issues", { limit: 100 });
  assert.equal(issues.total, 8);
  assert.ok(issues.results.every((hit) => hit.path.startsWith("tools.github.")));
});

Deno.test("`searchCatalogue()` answers an exact path with that item alone", () => {
  const index = new SearchIndex(syntheticSnapshot());
  for (
    const path of [
      "tools.github.get_issue",
      'tools.github["get-issue"]',
      "github.get-issue",
      "  tools.github.get_issue ",
    ]
  ) {
    const answer = index.search(path);
    assert.deepEqual(answer.results.map((hit) => hit.path), ["tools.github.get_issue"], path);
    assert.equal(answer.total, 1);
  }
  const script = index.search("deploy");
  assert.deepEqual(script.results.map((hit) => [hit.path, hit.kind]), [["deploy", "script"]]);
  const hit = index.search("tools.kv.get_entry").results[0]!;
  assert.equal(
    hit.signature,
    "tools.kv.get_entry(args: { id: string }): Promise<{ id: string; title: string; owner: GatewayNamespaces.kv.Owner }>",
  );
  assert.equal(hit.description, "Gets one entry from kv by id.");
});

Deno.test("`searchCatalogue()` finds named scripts by their description and examples", () => {
  const index = new SearchIndex(syntheticSnapshot());
  assert.equal(index.search("production").results[0]?.path, "deploy");
  assert.equal(index.search("pull requests").results[0]?.path, "weekly-report");
  const backup = index.search("key value json").results.find((hit) => hit.kind === "script");
  assert.equal(backup?.path, "backup/kv");
  assert.equal(backup?.signature, "gateway run backup/kv FILE");
});

Deno.test("`searchCatalogue()` pages cover every result exactly once", () => {
  const index = new SearchIndex(syntheticSnapshot());
  for (const query of ["list", "a", "entries in kv", ""]) {
    const all = index.search(query, { limit: 1000 });
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: ReturnType<SearchIndex["search"]> = index.search(query, { limit: 7, offset });
      assert.equal(page.total, all.total);
      assert.ok(page.results.length <= 7);
      seen.push(...page.results.map((hit) => hit.path));
      offset = page.next;
    }
    assert.equal(seen.length, all.total, query);
    assert.equal(new Set(seen).size, seen.length, `duplicates for "${query}"`);
    assert.deepEqual(seen, all.results.map((hit) => hit.path));
  }
  assert.equal(index.search("list", { offset: 10_000 }).results.length, 0);
});

Deno.test("`searchCatalogue()` lists a namespace in path order for an empty query", () => {
  const index = new SearchIndex(syntheticSnapshot());
  for (const namespace of ["fancy-name", "fancy_name"]) {
    const answer = index.search("", { namespace, limit: 100 });
    const paths = answer.results.map((hit) => hit.path);
    assert.equal(answer.total, 8);
    assert.ok(paths.every((path) => path.startsWith("tools.fancy_name.")));
    assert.deepEqual(paths, [...paths].sort());
  }
  const scoped = index.search("list", { namespace: "kv" });
  assert.deepEqual(scoped.results.map((hit) => hit.path), ["tools.kv.list_entry"]);
});

Deno.test("`searchCatalogue()` breaks ties by path, so answers are deterministic", () => {
  const index = new SearchIndex(syntheticSnapshot());
  const answer = index.search("archive", { limit: 100 });
  const paths = answer.results.map((hit) => hit.path);
  assert.equal(answer.total, 12);
  assert.deepEqual(paths, [...paths].sort());
  assert.deepEqual(searchCatalogue(syntheticSnapshot(), "archive", { limit: 100 }), answer);
});

Deno.test("`searchCatalogue()` refuses a bad page or an unknown namespace, naming it", () => {
  const index = new SearchIndex(syntheticSnapshot());
  assert.throws(() => index.search("x", { limit: 0 }), {
    name: "RangeError",
    message: 'Cannot search: "limit" must be a positive integer, got "0"',
  });
  assert.throws(() => index.search("x", { offset: -1 }), { name: "RangeError" });
  assert.throws(() => index.search("x", { namespace: "githb" }), {
    name: "RangeError",
    message: 'Cannot search namespace "githb": no such namespace (did you mean "github"?)',
  });
});

Deno.test("`searchCatalogue()` returns nothing for words that match nothing", () => {
  const answer = searchCatalogue(syntheticSnapshot(), "zzyzx quux");
  assert.deepEqual(answer, { results: [], total: 0, next: null });
});

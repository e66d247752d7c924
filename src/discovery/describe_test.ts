import assert from "node:assert/strict";
import { renderNamespaceTypes } from "../namespaces/render_types.ts";
import { CatalogueEntries } from "./catalogue_entries.ts";
import { describePath, UnknownPathError } from "./describe.ts";
import { syntheticSnapshot } from "./synthetic_snapshot.ts";

Deno.test("`describePath()` with full gives a tool's JSDoc, signature and the declarations it uses", () => {
  const description = describePath(syntheticSnapshot(), "tools.github.get_issue", { full: true });
  assert.equal(description.kind, "tool");
  assert.equal(description.path, "tools.github.get_issue");
  const text = description.text;
  assert.match(text, /^\/\*\*\n \* Gets one issue from github by id\.\n/);
  assert.match(text, / \* @param args\.id The issue id\.\n \*\/\n/);
  assert.match(text, /^tools\.github\.get_issue\(args: GetIssueArgs\): Promise<Issue>$/m);
  assert.match(
    text,
    /^tools\.github\.get_issue\.raw\(args: GetIssueArgs\): Promise<GatewayRawResult>$/m,
  );
  assert.match(text, /Original name "get-issue": tools\.github\["get-issue"\]/);
  assert.match(text, /Namespace "github": MCP server, ready\./);
  assert.match(text, /\/\*\* One issue as github stores it\. \*\/\ninterface Issue \{/);
  assert.match(text, /interface Owner \{ login: string \}/, "declarations used indirectly too");
  assert.match(text, /interface GetIssueArgs \{ id: string \}/);
  assert.doesNotMatch(text, /ExportFormat/, "declarations not used are left out");
});

Deno.test("`describePath()` is compact by default: the input in full, the output's top level", () => {
  const text = describePath(syntheticSnapshot(), "tools.github.get_issue").text;
  assert.match(
    text,
    /^\/\*\* Gets one issue from github by id\. See the github documentation\. \*\/\n/,
  );
  assert.match(text, /^tools\.github\.get_issue\(args: GetIssueArgs\): Promise<Issue>$/m);
  assert.match(text, /^interface GetIssueArgs \{ id: string \}$/m, "the input's declaration");
  assert.match(text, /Original name "get-issue": tools\.github\["get-issue"\]/);
  assert.doesNotMatch(text, /\.raw\(|Namespace "github"/, "no .raw line, no status when ready");
  assert.match(text, /^\/\/ Returns \(depth: 2 expands the types named here\):$/m);
  assert.match(text, /^\/\/ Issue: \{ [^\n]*owner: Owner/m, "the output's top level, one line");
  assert.doesNotMatch(text, /Owner: \{|interface Owner/, "types the output names wait for depth 2");
  const deeper = describePath(syntheticSnapshot(), "tools.github.get_issue", { depth: 2 }).text;
  assert.match(deeper, /^\/\/ Owner: \{ login: string \}$/m);
  assert.match(deeper, /^\/\/ Returns:$/m, "nothing deeper is left to expand");
});

Deno.test("`describePath()` cuts a long description and says how to read the rest", () => {
  const snapshot = syntheticSnapshot({ namespaces: 1 });
  const tool = snapshot.namespaces[0]!.catalogue.tools[0]!;
  tool.description = `${"Does a thing with many words. ".repeat(12)}\n\nSecond paragraph.`;
  const path = `tools.github.${tool.originalName.replaceAll("-", "_")}`;
  const text = describePath(snapshot, path).text;
  assert.match(text, /… \(full: true shows all\) \*\//);
  assert.ok(text.split("\n")[0]!.length < 260, text.split("\n")[0]);
  assert.match(describePath(snapshot, path, { full: true }).text, /Second paragraph\./);
});

Deno.test("`describePath()` accepts every way a script or a person writes a path", () => {
  const entries = new CatalogueEntries(syntheticSnapshot());
  for (
    const path of [
      "tools.fancy_name.get_widget",
      'tools.fancy_name["get-widget"]',
      "tools['fancy-name']['get-widget']",
      'tools["fancy-name"].get_widget',
      "fancy-name.get-widget",
      "fancy_name.get_widget",
    ]
  ) {
    assert.equal(describePath(entries, path).path, "tools.fancy_name.get_widget", path);
  }
});

Deno.test("`describePath()` gives a script's description, parameters and examples", () => {
  const description = describePath(syntheticSnapshot(), "deploy");
  assert.equal(description.kind, "script");
  assert.equal(
    description.text,
    [
      'Script "deploy": gateway run deploy TARGET VERSION',
      "",
      "Deploys the site to production after the checks pass.",
      "Runs the smoke tests too.",
      "",
      "Parameters (in `args`, in this order):",
      "  target   Where to deploy.",
      "  version  Release tag.",
      "",
      "Examples:",
      "  gateway run deploy staging",
      "  gateway run deploy production v1.2",
      "",
    ].join("\n"),
  );
  assert.equal(describePath(syntheticSnapshot(), "backup/kv.ts").path, "backup/kv");
});

Deno.test("`describePath()` gives a whole namespace's types for a namespace path", () => {
  const snapshot = syntheticSnapshot();
  const kv = snapshot.namespaces.find((ns) => ns.name === "kv")!;
  for (const path of ["tools.kv", "kv"]) {
    const description = describePath(snapshot, path);
    assert.equal(description.kind, "namespace");
    assert.equal(description.text, renderNamespaceTypes(kv));
  }
});

Deno.test("`describePath()` throws UnknownPathError naming the nearest paths", () => {
  const snapshot = syntheticSnapshot();
  assert.throws(() => describePath(snapshot, "tools.kv.gte_entry"), UnknownPathError);
  let caught: unknown;
  try {
    describePath(snapshot, "kv.gte_entry");
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof UnknownPathError);
  assert.equal(caught.path, "kv.gte_entry");
  assert.equal(caught.nearest[0], "tools.kv.get_entry");
  assert.match(
    caught.message,
    /^Cannot describe "kv\.gte_entry": no such tool, namespace or script \(did you mean "tools\.kv\.get_entry"/,
  );
  try {
    describePath(snapshot, "qqqqqqqqqqqqqqqqqq");
    assert.fail("expected a throw");
  } catch (e) {
    assert.ok(e instanceof UnknownPathError);
    assert.deepEqual(e.nearest, []);
    assert.match(e.message, /search\("words"\) lists what exists/);
  }
});

import assert from "node:assert/strict";
import { CatalogueEntries, splitPath, summarise } from "./catalogue_entries.ts";
import { syntheticSnapshot } from "./synthetic_snapshot.ts";

Deno.test("`splitPath()` splits dotted and bracketed names, and refuses what is not a path", () => {
  assert.deepEqual(splitPath("tools.kv.get"), ["tools", "kv", "get"]);
  assert.deepEqual(splitPath('tools.kv["get-item"]'), ["tools", "kv", "get-item"]);
  assert.deepEqual(splitPath('tools[\'a.b\']["c\\"d"]'), ["tools", "a.b", 'c"d']);
  assert.deepEqual(splitPath("deploy"), ["deploy"]);
  assert.equal(splitPath("get item"), null);
  assert.equal(splitPath('tools["open'), null);
  assert.equal(splitPath(""), null);
});

Deno.test("`CatalogueEntries` lists tools by namespace then name, then scripts", () => {
  const entries = new CatalogueEntries(syntheticSnapshot({ namespaces: 3, toolsPerNamespace: 2 }));
  assert.deepEqual(entries.entries.map((entry) => entry.path), [
    "tools.github.get_issue",
    "tools.github.list_issue",
    "tools.kv.get_entry",
    "tools.kv.list_entry",
    "tools.sqlite.get_table",
    "tools.sqlite.list_table",
    "backup/kv",
    "deploy",
    "weekly-report",
  ]);
  assert.equal(entries.resolve("tools.nope.get"), undefined);
  assert.equal(entries.resolve("kv.nope"), undefined);
  assert.equal(entries.resolve("not a path"), undefined);
  const kv = entries.resolve("tools.kv");
  assert.equal(kv?.kind === "namespace" ? kv.namespace.name : null, "kv");
});

Deno.test("`summarise()` keeps the first sentence, or cuts at a word boundary", () => {
  assert.equal(summarise("Reads a file. Large files are streamed."), "Reads a file.");
  assert.equal(summarise("Version 1.2 of the reader\nmore"), "Version 1.2 of the reader");
  const long = "word ".repeat(40).trim();
  const cut = summarise(long, 30);
  assert.ok(cut.length <= 30, cut);
  assert.match(cut, /^(word )*word…$/, "never mid-word");
  assert.equal(summarise(""), "");
});

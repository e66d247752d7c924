/**
 * End-to-end: `gateway history` takes the dashboard's filters — `--kind` (a failure kind,
 * refused with the nearest one when misspelt) and `--text` (words in the id, source, script
 * name or client) — alone or with `--failed` and `--limit`.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";

Deno.test("gateway history --kind and --text filter the runs as the dashboard does", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const run = async (source: string) => {
      const result = await gw.cli(["exec", "--json", "--no-check", source]);
      return (JSON.parse(result.stdout) as { runId: string }).runId;
    };
    const thrown = await run("throw new Error('filter-me')");
    const unknown = await run("await tools.nowhere.at_all()");
    const fine = await run("'filter-me too'");

    const byKind = await gw.cli(["history", "--kind", "ScriptError"]);
    assert.equal(byKind.code, 0, byKind.stderr);
    assert.match(byKind.stdout, new RegExp(`^${thrown}\\b.*failed ScriptError`, "m"));
    assert.doesNotMatch(byKind.stdout, new RegExp(`${unknown}|${fine}`));

    const byText = await gw.cli(["history", "--text", "filter-me"]);
    assert.equal(byText.code, 0, byText.stderr);
    assert.match(byText.stdout, new RegExp(thrown));
    assert.match(byText.stdout, new RegExp(fine));
    assert.doesNotMatch(byText.stdout, new RegExp(unknown));

    const failedText = await gw.cli(["history", "--text", "filter-me", "--failed"]);
    assert.match(failedText.stdout, new RegExp(thrown));
    assert.doesNotMatch(failedText.stdout, new RegExp(fine));

    const one = await gw.cli(["history", "--text", "filter-me", "--limit", "1"]);
    assert.equal(one.stdout.trim().split("\n").length, 1, one.stdout);
    assert.equal(one.stderr, "1 more run match: raise --limit to see them\n");

    const none = await gw.cli(["history", "--text", "no such words anywhere"]);
    assert.equal(none.stdout, "no runs match\n");

    const json = await gw.cli(["history", "--kind", "UnknownTool", "--json"]);
    const listed = JSON.parse(json.stdout) as { runs: Array<{ runId: string }>; total: number };
    assert.deepEqual(listed.runs.map((r) => r.runId), [unknown]);
    assert.equal(listed.total, 1);

    const typo = await gw.cli(["history", "--kind", "ScriptErorr"]);
    assert.equal(typo.code, 2);
    assert.match(
      typo.stderr,
      /^error\[Usage\]: --kind takes a failure kind, not "ScriptErorr": did you mean "ScriptError"\?/,
    );
  });
});

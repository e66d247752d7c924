/**
 * The corpora's measure, in the suite: every valid corpus script passes the type check and runs,
 * and at least 95% of each half of the wrong scripts (the tuning half and the measure half that
 * nothing is tuned on) fail with the right kind, the script's own line and an actionable hint —
 * against one real gateway (bundled tool modules, real MCP servers). `deno task corpus` prints
 * the same numbers.
 * @module
 */

import assert from "node:assert/strict";
import { startCorpusGateway } from "./corpus/corpus_gateway.ts";
import { formatReport, runCorpora, share } from "./corpus/script_corpus.ts";
import { WRONG_SCRIPTS } from "./corpus/wrong_scripts.ts";
import { MEASURE_SCRIPTS } from "./corpus/wrong_scripts_measure.ts";

Deno.test("the script corpora: valid scripts all run, wrong scripts teach the fix", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const gateway = await startCorpusGateway();
  try {
    const report = await runCorpora(gateway.client, {
      root: gateway.gw.root,
      dataDir: gateway.dataDir,
    });
    const text = formatReport(report);
    console.log(text);
    await t.step("the corpora hold at least 100 valid, 60 wrong and 25 measure scripts", () => {
      assert.ok(report.valid.length >= 100, `${report.valid.length} valid scripts`);
      assert.ok(WRONG_SCRIPTS.length >= 60, `${WRONG_SCRIPTS.length} wrong scripts`);
      assert.ok(MEASURE_SCRIPTS.length >= 25, `${MEASURE_SCRIPTS.length} measure scripts`);
    });
    await t.step("every valid script passes the check and runs", () => {
      assert.equal(share(report.valid), 100, text);
    });
    await t.step("at least 95% of the tuning half give kind, line and hint", () => {
      assert.ok(share(report.wrong) >= 95, text);
    });
    await t.step("at least 95% of the measure half give kind, line and hint", () => {
      assert.ok(share(report.measure) >= 95, text);
    });
  } finally {
    await gateway.close();
  }
});

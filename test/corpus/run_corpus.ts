/**
 * `deno task corpus`: starts the corpus gateway, runs the script corpora and prints the shares
 * (valid scripts that pass; each half of the wrong scripts graded kind + line + hint). Exits 1
 * when a valid script fails or either wrong half's share is under 95%.
 * @module
 */

import { startCorpusGateway } from "./corpus_gateway.ts";
import { formatReport, runCorpora, share } from "./script_corpus.ts";

const gateway = await startCorpusGateway();
let code = 0;
try {
  const report = await runCorpora(gateway.client, {
    root: gateway.gw.root,
    dataDir: gateway.dataDir,
  });
  console.log(formatReport(report));
  if (share(report.valid) < 100 || share(report.wrong) < 95 || share(report.measure) < 95) {
    code = 1;
  }
} finally {
  await gateway.close();
}
Deno.exit(code);

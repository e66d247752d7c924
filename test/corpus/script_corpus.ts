/**
 * The script corpora and their grading: `valid/*.ts` (scripts in the styles models write; each
 * must pass the type check and run) and the wrong scripts (common model mistakes; each failure
 * is graded for its kind, the script's own line and an actionable hint), in two halves: the
 * tuning half (`wrong_scripts.ts`) and the measure half (`wrong_scripts_measure.ts`, never tuned
 * on). Run `deno task corpus` to print the shares; `test/script_corpus_test.ts` asserts them.
 * @module
 */

import type { GatewayClient } from "../../src/client/gateway_client.ts";
import type { RunDocument } from "../../src/protocol/run_document.ts";
import { WRONG_SCRIPTS, type WrongScript } from "./wrong_scripts.ts";
import { MEASURE_SCRIPTS } from "./wrong_scripts_measure.ts";

export type { WrongScript };

const VALID_DIR = new URL("./valid/", import.meta.url);

/** One valid script and how to run it (from its `// @corpus {…}` first line). */
export interface ValidScript {
  name: string;
  source: string;
  stdin?: string;
  args?: string[];
  permissions?: Record<string, string[] | boolean>;
  /** Pass the corpus data directory as `args[0]`. */
  data?: boolean;
}

/** The outcome of one corpus script. */
export interface CorpusOutcome {
  name: string;
  passed: boolean;
  /** Why it did not pass (empty when it did). */
  problems: string[];
  document: RunDocument | null;
}

/** Where the corpus gateway keeps its files, for scripts that need paths. */
export interface CorpusPlaces {
  /** The root directory (the runs' working directory: `./data` is granted there). */
  root: string;
  dataDir: string;
}

/** Reads `valid/*.ts`, sorted by name. */
export async function loadValidScripts(): Promise<ValidScript[]> {
  const scripts: ValidScript[] = [];
  for await (const entry of Deno.readDir(VALID_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, VALID_DIR));
    const header = /^\/\/ @corpus (\{.*\})\n/.exec(text);
    const options = header ? JSON.parse(header[1]!) as Omit<ValidScript, "name" | "source"> : {};
    // The header line is kept: it is a comment, and it keeps the file's line numbers.
    scripts.push({ name: entry.name, source: text, ...options });
  }
  return scripts.sort((a, b) => a.name.localeCompare(b.name));
}

/** Runs `items` through `fn` with at most `limit` at once, keeping their order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Runs one valid script: it passes when the type check accepts it and it runs (`ok: true`). */
export async function runValid(
  client: GatewayClient,
  script: ValidScript,
  places: CorpusPlaces,
): Promise<CorpusOutcome> {
  const document = await client.request<RunDocument>("exec", {
    source: script.source,
    check: true,
    cwd: places.root,
    timeoutMs: 30_000,
    args: script.data ? [places.dataDir] : script.args ?? [],
    ...(script.stdin === undefined ? {} : { stdin: script.stdin }),
    ...(script.permissions === undefined ? {} : { permissions: script.permissions }),
  });
  const problems = document.ok
    ? []
    : [`${document.error?.kind}: ${document.error?.message} (line ${document.error?.line})`];
  return { name: script.name, passed: document.ok, problems, document };
}

/**
 * Runs one wrong script and grades it: the failure kind (or `Warning` for a run that succeeded
 * with a warning), the line in the script's own text, and every hint pattern found in the
 * message, hint or warnings.
 */
export async function gradeWrong(
  client: GatewayClient,
  script: WrongScript,
  places: CorpusPlaces,
): Promise<CorpusOutcome> {
  const document = await client.request<RunDocument>("exec", {
    source: script.source,
    check: script.check ?? true,
    cwd: places.root,
    timeoutMs: script.timeoutMs ?? 20_000,
    ...(script.stdin === undefined ? {} : { stdin: script.stdin }),
    ...(script.permissions === undefined ? {} : { permissions: script.permissions }),
    ...(script.callTimeoutMs === undefined ? {} : { callTimeoutMs: script.callTimeoutMs }),
    ...(script.maxToolCalls === undefined ? {} : { maxToolCalls: script.maxToolCalls }),
    ...(script.maxMemoryMb === undefined ? {} : { maxMemoryMb: script.maxMemoryMb }),
  });
  const warnings = document.warnings.join("\n");
  const kind = document.error?.kind ?? (document.warnings.length > 0 ? "Warning" : "ok");
  const line = document.error?.line ??
    (kind === "Warning" ? Number(/\(line (\d+)\)/.exec(warnings)?.[1]) : undefined);
  const text = [document.error?.message ?? "", document.error?.hint ?? "", warnings].join("\n");
  const problems: string[] = [];
  if (kind !== script.expect.kind) problems.push(`kind ${kind}, expected ${script.expect.kind}`);
  if (line !== (script.expect.line ?? undefined)) {
    problems.push(`line ${line}, expected ${script.expect.line}`);
  }
  for (const pattern of script.expect.hint) {
    if (!pattern.test(text)) problems.push(`no hint matching ${pattern}`);
  }
  if (/file:\/\/|\/runs-\d+\//.test(text)) problems.push("an internal path is in the message");
  if (problems.length > 0) problems.push(`message: ${text.trim()}`);
  return { name: script.name, passed: problems.length === 0, problems, document };
}

/** The corpora's outcomes. */
export interface CorpusReport {
  valid: CorpusOutcome[];
  /** The tuning half of the wrong scripts. */
  wrong: CorpusOutcome[];
  /** The measure half of the wrong scripts (never tuned on). */
  measure: CorpusOutcome[];
}

/** Runs the corpora against a corpus gateway, a few runs at a time. */
export async function runCorpora(
  client: GatewayClient,
  places: CorpusPlaces,
  options: { concurrency?: number } = {},
): Promise<CorpusReport> {
  const concurrency = options.concurrency ?? 4;
  const valid = await mapBounded(
    await loadValidScripts(),
    concurrency,
    (script) => runValid(client, script, places),
  );
  const grade = (scripts: readonly WrongScript[]) =>
    mapBounded(scripts, concurrency, (script) => gradeWrong(client, script, places));
  const wrong = await grade(WRONG_SCRIPTS);
  const measure = await grade(MEASURE_SCRIPTS);
  return { valid, wrong, measure };
}

/** The share of outcomes that passed, in percent with one decimal. */
export function share(outcomes: readonly CorpusOutcome[]): number {
  if (outcomes.length === 0) return 0;
  const passed = outcomes.filter((o) => o.passed).length;
  return Math.round((passed / outcomes.length) * 1000) / 10;
}

/** The report as text: the shares, then every outcome that did not pass with why. */
export function formatReport(report: CorpusReport): string {
  const count = (o: readonly CorpusOutcome[]) => `${o.filter((x) => x.passed).length}/${o.length}`;
  const lines = [
    `valid scripts: ${count(report.valid)} pass the check and run (${share(report.valid)}%)`,
    `wrong scripts, tuning half: ${count(report.wrong)} graded kind + line + hint (${
      share(report.wrong)
    }%)`,
    `wrong scripts, measure half (never tuned on): ${count(report.measure)} (${
      share(report.measure)
    }%)`,
  ];
  for (const outcome of [...report.valid, ...report.wrong, ...report.measure]) {
    if (outcome.passed) continue;
    lines.push(`  FAIL ${outcome.name}: ${outcome.problems.join("; ")}`);
  }
  return lines.join("\n");
}

/**
 * Runs the official MCP conformance suite against a server URL for one specification
 * revision's frozen requirement set (`--requirements`), under Deno (the suite needs Node ≥ 22),
 * and reads back every scenario's checks, which of them the revision scores, and a summary.
 * @module
 */

import { join } from "node:path";
import { REPO_ROOT } from "../fixtures/mcp/mcp_test_servers.ts";

/** The suite, pinned. */
export const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";

/** The requirement sets the suite ships. */
export type Revision = "2025-11-25" | "2026-07-28";

/** One check as `checks.json` records it. */
export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
}

/** One revision's run: every scenario's checks, and the ones it does not score. */
export interface SuiteRun {
  revision: Revision;
  scenarios: Map<string, Check[]>;
  /** Scenarios run for visibility only (extensions, pending, added after release). */
  notScored: Set<string>;
  output: string;
}

/** Runs the requirement set of `revision` against `url`. */
export async function runConformance(url: string, revision: Revision): Promise<SuiteRun> {
  const out = await Deno.makeTempDir({ prefix: "gateway-conformance-" });
  try {
    const { stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        "--lock",
        "test/deno.lock",
        CONFORMANCE,
        "server",
        "--url",
        url,
        "--requirements",
        revision,
        "-o",
        out,
      ],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = `${new TextDecoder().decode(stdout)}\n${new TextDecoder().decode(stderr)}`;
    const scenarios = new Map<string, Check[]>();
    for await (const entry of Deno.readDir(out)) {
      const name = entry.name.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
      scenarios.set(
        name,
        JSON.parse(await Deno.readTextFile(join(out, entry.name, "checks.json"))) as Check[],
      );
    }
    if (scenarios.size < 20) {
      throw new Error(`conformance ran ${scenarios.size} scenarios against ${url}:\n${output}`);
    }
    const notScored = new Set<string>();
    const section = output.split(/Not scored for [^:]+:/)[1] ?? "";
    for (const match of section.matchAll(/^\s+[✓✗] (\S+) \(/gm)) notScored.add(match[1]!);
    return { revision, scenarios, notScored, output };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

/** The checks of `scenario` that failed (warnings and skips are not failures). */
export function failures(run: SuiteRun, scenario: string): Check[] {
  return (run.scenarios.get(scenario) ??
    [{ id: scenario, status: "FAILURE", errorMessage: "not run" }])
    .filter((c) => c.status === "FAILURE");
}

/** The scored scenarios of a run. */
export function scored(run: SuiteRun): string[] {
  return [...run.scenarios.keys()].filter((s) => !run.notScored.has(s)).sort();
}

/** The scored scenarios with no failing check. */
export function passed(run: SuiteRun): string[] {
  return scored(run).filter((s) => failures(run, s).length === 0);
}

/** "label 2026-07-28: 20/37 required scenarios, 110/157 checks". */
export function summary(label: string, run: SuiteRun): string {
  let checks = 0;
  let ok = 0;
  for (const list of run.scenarios.values()) {
    for (const c of list) {
      if (c.status === "SKIPPED" || c.status === "INFO") continue;
      checks++;
      if (c.status === "SUCCESS") ok++;
    }
  }
  return `${label} ${run.revision}: ${passed(run).length}/${
    scored(run).length
  } required scenarios, ${ok}/${checks} checks`;
}

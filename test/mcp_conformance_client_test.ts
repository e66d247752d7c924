/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance@0.2.0-alpha.12`, run
 * under Deno since it needs Node >= 22) judging the gateway as an MCP client: for each scenario
 * the suite starts its server and runs `test/fixtures/mcp/conformance_client.ts`, which makes
 * the gateway's client code connect to it as an upstream, log in when it asks, list its tools
 * and call the scenario's tool. `--suite core` and `--suite auth`, each at 2025-11-25 (the
 * `initialize` era) and 2026-07-28 (`server/discover`, per-request `_meta`). Every scenario
 * passes; the one warning left is named with its reason in {@linkcode KNOWN_WARNINGS}.
 * Prints the scores.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "./fixtures/mcp/mcp_test_servers.ts";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const CLIENT = join(REPO_ROOT, "test/fixtures/mcp/conformance_client.ts");

/**
 * Checks that may warn, by `scenario:check`, with the reason. A warning is a SHOULD the
 * gateway does not follow; every other warning, and every failure, fails the test.
 */
const KNOWN_WARNINGS: Record<string, string> = {
  "auth/basic-cimd:cimd-client-id-used":
    "a Client ID Metadata Document is a URL the authorization server fetches: a gateway on a " +
    "user's machine has none to publish, so it registers dynamically (which the scenario passes)",
};

interface ScenarioScore {
  passed: number;
  failed: string[];
  warnings: string[];
}

/** Runs one suite at one spec version; the checks of each scenario, by scenario. */
async function runSuite(suite: string, version: string): Promise<Map<string, ScenarioScore>> {
  const out = await Deno.makeTempDir({ prefix: "gateway-conformance-client-" });
  try {
    const command = [
      Deno.execPath(),
      "run",
      "--allow-all",
      "--no-prompt",
      "--quiet",
      "--config",
      join(REPO_ROOT, "deno.json"),
      "--lock",
      join(REPO_ROOT, "test/deno.lock"),
      CLIENT,
    ].join(" ");
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        "--lock",
        "test/deno.lock",
        CONFORMANCE,
        "client",
        "--command",
        command,
        "--suite",
        suite,
        "--spec-version",
        version,
        "-o",
        out,
      ],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    });
    const { stdout, stderr } = await child.output();
    const scores = new Map<string, ScenarioScore>();
    for await (const path of checkFiles(out)) {
      const scenario = path.slice(out.length + 1).replace(
        /-\d{4}-\d\d-\d\dT[^/]*\/checks\.json$/,
        "",
      );
      const checks = JSON.parse(await Deno.readTextFile(path)) as {
        id: string;
        status: string;
        errorMessage?: string;
      }[];
      scores.set(scenario, {
        passed: checks.filter((c) => c.status === "SUCCESS").length,
        failed: checks.filter((c) => c.status === "FAILURE").map((c) =>
          `${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ""}`
        ),
        warnings: checks.filter((c) => c.status === "WARNING").map((c) => c.id),
      });
    }
    assert.ok(
      scores.size > 0,
      `conformance ran no scenario:\n${new TextDecoder().decode(stdout)}\n${
        new TextDecoder().decode(stderr)
      }`,
    );
    return scores;
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

/** Every `checks.json` under `dir`. */
async function* checkFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* checkFiles(path);
    else if (entry.name === "checks.json") yield path;
  }
}

/** The scenarios every run must include, so a suite that shrank cannot pass by itself. */
const EXPECTED: Record<string, string[]> = {
  "core 2025-11-25": [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
  ],
  "core 2026-07-28": ["tools_call"],
  "auth 2025-11-25": ["auth/scope-step-up", "auth/pre-registration", "auth/metadata-default"],
  "auth 2026-07-28": ["auth/scope-step-up", "auth/pre-registration", "auth/metadata-default"],
};

for (const suite of ["core", "auth"]) {
  for (const version of ["2025-11-25", "2026-07-28"]) {
    Deno.test(`conformance client --suite ${suite} --spec-version ${version}: the gateway as a client passes`, async () => {
      const scores = await runSuite(suite, version);
      const lines: string[] = [];
      let passed = 0;
      let total = 0;
      const problems: string[] = [];
      for (const [scenario, score] of [...scores].sort(([a], [b]) => a.localeCompare(b))) {
        const unexplained = score.warnings.filter((w) => !(`${scenario}:${w}` in KNOWN_WARNINGS));
        const ok = score.failed.length === 0 && unexplained.length === 0;
        passed += ok ? 1 : 0;
        total++;
        const notes = score.warnings.map((w) =>
          `warning ${w}${
            KNOWN_WARNINGS[`${scenario}:${w}`]
              ? ` (known: ${KNOWN_WARNINGS[`${scenario}:${w}`]})`
              : ""
          }`
        );
        lines.push(
          `  ${
            ok ? "✓" : "✗"
          } ${scenario}: ${score.passed} checks passed, ${score.failed.length} failed${
            notes.length > 0 ? `; ${notes.join("; ")}` : ""
          }`,
        );
        for (const failure of score.failed) problems.push(`${scenario}: ${failure}`);
        for (const warning of unexplained) problems.push(`${scenario}: warning ${warning}`);
      }
      console.log(
        `conformance client --suite ${suite} --spec-version ${version}: ${passed}/${total} scenarios\n${
          lines.join("\n")
        }`,
      );
      for (const scenario of EXPECTED[`${suite} ${version}`] ?? []) {
        assert.ok(scores.has(scenario), `scenario ${scenario} ran`);
      }
      assert.deepEqual(problems, []);
    });
  }
}

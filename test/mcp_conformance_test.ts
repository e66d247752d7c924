/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance@0.2.0-alpha.12`, run
 * under Deno since it needs Node ≥ 22) with the frozen requirement sets of both protocol eras
 * (`--requirements 2026-07-28` and `--requirements 2025-11-25`), against:
 * (a) `/mcp` in code mode, where every scenario about a feature the gateway serves passes —
 *     scenarios that call the suite's own fixture tools, resources and prompts cannot, since code
 *     mode serves its own (each named below with the reason);
 * (b) `/mcp?expose=reference` in front of the reference server (a v2-SDK server implementing the
 *     suite's fixtures, test/fixtures/mcp/reference_server.ts), scored against that server alone
 *     over HTTP: the same required scenarios pass through the gateway as alone (all of them),
 *     its questions (input-required results, the 2025 elicitation and sampling requests), log
 *     messages and progress reaching the suite's client as the reference sends them.
 * The scores are printed.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";
import { startTokenProxy } from "./support/token_proxy.ts";
import {
  fixtureConfig,
  realServerBin,
  startHttpReference,
} from "./fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "./support/poll_until.ts";
import {
  failures,
  passed,
  type Revision,
  runConformance,
  scored,
  type SuiteRun,
  summary,
} from "./support/conformance_suite.ts";

/** Why a scenario cannot pass on code mode: it calls a fixture code mode does not serve. */
const FIXTURE_TOOLS = "calls one of the suite's fixture tools (test_*); code mode serves its own";
const FIXTURE_RESOURCES = "reads the suite's fixture resources (test://…)";
const FIXTURE_PROMPTS = "gets the suite's fixture prompts (test_*_prompt)";

/** Required scenarios that are not about a feature code mode serves, per revision. */
const NOT_APPLICABLE_TO_CODE_MODE: Record<Revision, Record<string, string>> = {
  "2026-07-28": {
    "tools-call-simple-text": FIXTURE_TOOLS,
    "tools-call-image": FIXTURE_TOOLS,
    "tools-call-audio": FIXTURE_TOOLS,
    "tools-call-embedded-resource": FIXTURE_TOOLS,
    "tools-call-mixed-content": FIXTURE_TOOLS,
    "tools-call-error": FIXTURE_TOOLS,
    "tools-call-with-progress": FIXTURE_TOOLS,
    "resources-read-text": FIXTURE_RESOURCES,
    "resources-read-binary": FIXTURE_RESOURCES,
    "resources-templates-read": FIXTURE_RESOURCES,
    "prompts-get-simple": FIXTURE_PROMPTS,
    "prompts-get-with-args": FIXTURE_PROMPTS,
    "prompts-get-embedded-resource": FIXTURE_PROMPTS,
    "prompts-get-with-image": FIXTURE_PROMPTS,
    "input-required-result-basic-elicitation": FIXTURE_TOOLS,
    "input-required-result-basic-sampling": FIXTURE_TOOLS,
    "input-required-result-basic-list-roots": FIXTURE_TOOLS,
    "input-required-result-request-state": FIXTURE_TOOLS,
    "input-required-result-multiple-input-requests": FIXTURE_TOOLS,
    "input-required-result-multi-round": FIXTURE_TOOLS,
    "input-required-result-non-tool-request": FIXTURE_PROMPTS,
    "input-required-result-result-type": FIXTURE_TOOLS,
    "input-required-result-tampered-state": FIXTURE_TOOLS,
    "input-required-result-capability-check": FIXTURE_TOOLS,
  },
  "2025-11-25": {
    "tools-call-simple-text": FIXTURE_TOOLS,
    "tools-call-image": FIXTURE_TOOLS,
    "tools-call-audio": FIXTURE_TOOLS,
    "tools-call-embedded-resource": FIXTURE_TOOLS,
    "tools-call-mixed-content": FIXTURE_TOOLS,
    "tools-call-with-logging": FIXTURE_TOOLS,
    "tools-call-error": FIXTURE_TOOLS,
    "tools-call-with-progress": FIXTURE_TOOLS,
    "tools-call-sampling": FIXTURE_TOOLS,
    "tools-call-elicitation": FIXTURE_TOOLS,
    "elicitation-sep1034-defaults": FIXTURE_TOOLS,
    "elicitation-sep1330-enums": FIXTURE_TOOLS,
    "resources-read-text": FIXTURE_RESOURCES,
    "resources-read-binary": FIXTURE_RESOURCES,
    "resources-templates-read": FIXTURE_RESOURCES,
    "prompts-get-simple": FIXTURE_PROMPTS,
    "prompts-get-with-args": FIXTURE_PROMPTS,
    "prompts-get-embedded-resource": FIXTURE_PROMPTS,
    "prompts-get-with-image": FIXTURE_PROMPTS,
  },
};

/**
 * Checks of `server-stateless` (which code mode otherwise passes) that need a diagnostic tool
 * of the suite's fixture (test_missing_capability, test_streaming_elicitation, test_logging_tool).
 */
const STATELESS_FIXTURE_CHECKS = new Set([
  "sep-2575-server-rejects-undeclared-capability",
  "sep-2575-missing-capability-http-400",
  "sep-2575-http-server-no-independent-requests-on-stream",
  "sep-2575-server-no-log-without-loglevel",
]);

function describeFailures(run: SuiteRun, scenario: string): string {
  return failures(run, scenario).map((c) => `${c.id}: ${c.errorMessage ?? ""}`).join("; ");
}

/** (a): every applicable required scenario passes on code mode. */
function assertCodeMode(run: SuiteRun): void {
  const notApplicable = NOT_APPLICABLE_TO_CODE_MODE[run.revision];
  for (const scenario of scored(run)) {
    if (scenario in notApplicable) continue;
    const failed = failures(run, scenario).filter((c) =>
      scenario !== "server-stateless" || !STATELESS_FIXTURE_CHECKS.has(c.id)
    );
    assert.deepEqual(
      failed.map((c) => `${c.id}: ${c.errorMessage ?? ""}`),
      [],
      `code mode ${run.revision} fails ${scenario}`,
    );
  }
  for (const scenario of Object.keys(notApplicable)) {
    assert.ok(run.scenarios.has(scenario), `${scenario} is no longer in the ${run.revision} set`);
  }
}

/**
 * (b): through the gateway, the required scenarios are scored exactly as the reference alone:
 * every one it passes alone passes through the gateway, and every check of those scenarios
 * that passes alone passes too.
 */
function assertSameScore(direct: SuiteRun, proxied: SuiteRun): void {
  assert.deepEqual(scored(proxied), scored(direct), `the ${direct.revision} sets differ`);
  for (const scenario of passed(direct)) {
    assert.deepEqual(
      failures(proxied, scenario).map((c) => `${c.id}: ${c.errorMessage ?? ""}`),
      [],
      `?expose=reference ${direct.revision} fails ${scenario}, which the reference passes alone: ${
        describeFailures(proxied, scenario)
      }`,
    );
  }
  assert.deepEqual(passed(proxied), passed(direct), `?expose=reference ${direct.revision}`);
}

Deno.test({
  name:
    "MCP conformance, 2026-07-28 and 2025-11-25 requirements: code mode passes every scenario about a feature it serves; ?expose=reference scores as the reference server alone",
  async fn() {
    const config = {
      port: 0,
      mcpServers: {
        everything: { command: "node", args: [realServerBin("everything")] },
        reference: fixtureConfig("reference_server.ts"),
      },
    };
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      const { port, token } = await gw.server();
      const client = await gw.client();
      try {
        await pollUntil("every namespace to be ready", async () => {
          const ns = await client.request<{ namespaces: { status: string }[] }>("namespaces");
          return ns.namespaces.length >= 2 && ns.namespaces.every((n) => n.status === "ready");
        }, { timeoutMs: 30_000 });
      } finally {
        await client.close();
      }
      const code = startTokenProxy({ port, token });
      const exposed = startTokenProxy({ port, token, path: "/mcp?expose=reference" });
      const reference = await startHttpReference();
      try {
        for (const revision of ["2026-07-28", "2025-11-25"] as const) {
          const codeRun = await runConformance(`http://127.0.0.1:${code.port}/mcp`, revision);
          const proxied = await runConformance(`http://127.0.0.1:${exposed.port}/mcp`, revision);
          const direct = await runConformance(reference.url, revision);
          console.log(summary("gateway /mcp (code mode)", codeRun));
          console.log(summary("gateway /mcp?expose=reference", proxied));
          console.log(summary("reference server alone", direct));
          assertCodeMode(codeRun);
          assert.deepEqual(
            scored(direct).filter((s) => !passed(direct).includes(s)),
            [],
            `the reference server alone fails required ${revision} scenarios`,
          );
          assertSameScore(direct, proxied);
        }
      } finally {
        await code.close();
        await exposed.close();
        await reference.stop();
      }
    });
  },
});

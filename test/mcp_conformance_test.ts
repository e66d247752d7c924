/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance@0.1.16`, run under
 * Deno since it needs Node >= 22) against the gateway's `/mcp` in code mode, against the proxy
 * exposure in front of server-everything, and against server-everything directly for
 * comparison. Scenarios that need the suite's own fixture tools (`test_simple_text`,
 * `test://static-text` …) cannot pass on a gateway, which serves its own tools; every scenario
 * about a feature the gateway offers must pass.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { startTokenProxy } from "./support/token_proxy.ts";
import { realServerBin, REPO_ROOT, startHttpEverything } from "./fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "./support/poll_until.ts";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";

/** Scenarios about features the gateway serves whatever its upstreams are. */
const GATEWAY_FEATURES = [
  "server-initialize",
  "logging-set-level",
  "ping",
  "completion-complete",
  "tools-list",
  "server-sse-multiple-streams",
  "resources-list",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "dns-rebinding-protection",
];

/** Per scenario: checks passed and failed. */
type Scores = Map<string, { passed: number; failed: number }>;

async function runConformance(url: string): Promise<Scores> {
  const out = await Deno.makeTempDir({ prefix: "gateway-conformance-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      // The tests' lock: the product's deno.lock holds only what users download.
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
        "-o",
        out,
      ],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    });
    const { stdout, stderr } = await child.output();
    const scores: Scores = new Map();
    for await (const entry of Deno.readDir(out)) {
      const scenario = entry.name.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
      const checks = JSON.parse(await Deno.readTextFile(join(out, entry.name, "checks.json"))) as {
        status: string;
      }[];
      const passed = checks.filter((c) => c.status === "SUCCESS").length;
      scores.set(scenario, { passed, failed: checks.length - passed });
    }
    assert.ok(
      scores.size > 20,
      `conformance ran ${scores.size} scenarios:\n${new TextDecoder().decode(stdout)}\n${
        new TextDecoder().decode(stderr)
      }`,
    );
    return scores;
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

function passedScenarios(scores: Scores): string[] {
  return [...scores].filter(([, s]) => s.passed > 0 && s.failed === 0).map(([n]) => n).sort();
}

function checksPassed(scores: Scores): number {
  return [...scores.values()].reduce((sum, s) => sum + s.passed, 0);
}

function summary(label: string, scores: Scores): string {
  const total = [...scores.values()].reduce((sum, s) => sum + s.passed + s.failed, 0);
  return `${label}: ${passedScenarios(scores).length}/${scores.size} scenarios, ${
    checksPassed(scores)
  }/${total} checks`;
}

Deno.test({
  name:
    "MCP conformance: /mcp passes every scenario about a feature it serves; the proxy exposure scores at least server-everything alone",
  async fn() {
    const config = {
      port: 0,
      mcpServers: { everything: { command: "node", args: [realServerBin("everything")] } },
    };
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      const { port, token } = await gw.server();
      const client = await gw.client();
      try {
        // The upstream must be ready before the proxy exposure lists its tools.
        await pollUntil("every namespace to be ready", async () => {
          const ns = await client.request<{ namespaces: { status: string }[] }>("namespaces");
          return ns.namespaces.every((n) => n.status === "ready");
        }, { timeoutMs: 20_000 });
      } finally {
        await client.close();
      }
      const code = startTokenProxy({ port, token });
      const tools = startTokenProxy({ port, token, path: "/mcp?expose=tools" });
      const everything = await startHttpEverything("streamableHttp");
      try {
        const codeScores = await runConformance(`http://127.0.0.1:${code.port}/mcp`);
        const toolsScores = await runConformance(`http://127.0.0.1:${tools.port}/mcp`);
        const directScores = await runConformance(everything.url);
        console.log(summary("gateway /mcp (code mode)", codeScores));
        console.log(summary("gateway /mcp?expose=tools (server-everything behind)", toolsScores));
        console.log(summary("server-everything directly", directScores));

        for (const scenario of GATEWAY_FEATURES) {
          assert.ok(
            passedScenarios(codeScores).includes(scenario),
            `code mode fails ${scenario}: ${JSON.stringify(codeScores.get(scenario))}`,
          );
          assert.ok(
            passedScenarios(toolsScores).includes(scenario),
            `proxy exposure fails ${scenario}: ${JSON.stringify(toolsScores.get(scenario))}`,
          );
        }
        assert.ok(
          checksPassed(toolsScores) >= checksPassed(directScores),
          `${summary("proxy", toolsScores)} < ${summary("direct", directScores)}`,
        );
      } finally {
        await code.close();
        await tools.close();
        await everything.stop();
      }
    });
  },
});

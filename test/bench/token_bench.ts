/**
 * What a model reads, in tokens (o200k, `gpt-tokenizer`): a plain aggregator's `tools/list`
 * (`gateway mcp --expose tools`) as the baseline, against code mode's fixed surface (the
 * `tools/list` of `gateway mcp` and the `gateway://guide` resource) and one task's discovery
 * (a search, then a describe of the tool it found). The workload: server-everything,
 * server-filesystem, server-memory and GitHub's REST API document from `@octokit/openapi`.
 * Targets are stated, never asserted. Run: `deno task bench:tokens`.
 * @module
 */

import { join } from "node:path";
// The pinned tokenizer is a bench-only dependency: imported by full specifier, not mapped.
// deno-lint-ignore no-import-prefix
import { encode } from "npm:gpt-tokenizer@4.0.0/encoding/o200k_base";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import {
  CLI_RUN_ARGS,
  createHarness,
  type GatewayHarness,
  REPO,
} from "../support/gateway_harness.ts";
import { GITHUB_SPEC } from "../support/prism_server.ts";
import { pollUntil } from "../support/poll_until.ts";
import { target, valueRow } from "./bench_support.ts";

const SERVERS = join(REPO, "test/servers/node_modules/@modelcontextprotocol");
/** The task whose discovery is counted: find the tool, then read its signature. */
export const TASK_QUERY = "create an issue on a repository";
/** The tool the task needs. */
export const TASK_TOOL = "tools.github.issues_create";
/** Inputs the task's describe must still name. */
export const TASK_INPUTS = ["owner", "repo", "title", "body", "assignees", "labels", "milestone"];

/** Tokens of a text (o200k, what current OpenAI models read; a stand-in for any model's). */
export function tokens(text: string): number {
  return encode(text).length;
}

/** The text blocks of a tool result, joined (what is shown with `--show`). */
function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.filter((block) => block.type === "text").map((block) => block.text).join("\n");
}

/**
 * The tokens of a tool result as a host hands it to a model: its `content`, as JSON (what the
 * issue's table counted; `structuredContent`, a copy for programs, is left out).
 */
function resultTokens(result: unknown): number {
  return tokens(JSON.stringify((result as { content?: unknown }).content ?? []));
}

/** A gateway over the workload, every namespace ready. */
async function workloadGateway(): Promise<GatewayHarness> {
  const gw = await createHarness({ files: { "files/readme.txt": "hello\n" } });
  const config = {
    port: 0,
    mcpServers: {
      everything: { command: "node", args: [join(SERVERS, "server-everything/dist/index.js")] },
      filesystem: {
        command: "node",
        args: [join(SERVERS, "server-filesystem/dist/index.js"), join(gw.root, "files")],
      },
      memory: {
        command: "node",
        args: [join(SERVERS, "server-memory/dist/index.js")],
        env: { MEMORY_FILE_PATH: join(gw.root, "memory.jsonl") },
      },
    },
    apis: { github: { openapi: GITHUB_SPEC } },
  };
  await Deno.writeTextFile(join(gw.root, "gateway.json"), JSON.stringify(config, null, 2));
  const client = await gw.client();
  try {
    await pollUntil("the workload's namespaces to be ready", async () => {
      const list = await client.request<{ namespaces: Array<{ status: string }> }>(
        "namespaces",
        {},
      );
      return list.namespaces.length === 4 && list.namespaces.every((ns) => ns.status === "ready");
    }, { timeoutMs: 120_000, intervalMs: 250 });
  } finally {
    client.close();
  }
  return gw;
}

/** An MCP client of `gateway mcp [--expose …]` over stdio, as a host starts it. */
async function mcpClient(gw: GatewayHarness, expose: "code" | "tools"): Promise<Client> {
  const client = new Client({ name: "token-bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: [...CLI_RUN_ARGS, "--root", gw.root, "mcp", "--expose", expose],
      env: {
        GATEWAY_DATA_DIR: gw.dataDir,
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? "",
      },
      stderr: "pipe",
    }),
  );
  return client;
}

/** The counted texts and their tokens. */
export interface TokenReport {
  aggregator: { tools: number; tokens: number };
  toolList: { tools: number; tokens: number };
  guide: { tokens: number; text: string };
  search: { hits: number; tokens: number; text: string };
  describe: { tokens: number; text: string };
}

/** Measures the workload's token table. */
export async function measureTokens(): Promise<TokenReport> {
  const gw = await workloadGateway();
  try {
    const proxy = await mcpClient(gw, "tools");
    let aggregator: TokenReport["aggregator"];
    try {
      const listed = await proxy.listTools();
      aggregator = { tools: listed.tools.length, tokens: tokens(JSON.stringify(listed)) };
    } finally {
      await proxy.close();
    }
    const code = await mcpClient(gw, "code");
    try {
      const listed = await code.listTools();
      const guide = await code.readResource({ uri: "gateway://guide" });
      const guideText = guide.contents.map((c: { text?: string }) => (c.text ?? "")).join("\n");
      const search = await code.callTool({
        name: "search",
        arguments: { query: TASK_QUERY, limit: 5 },
      });
      const searchText = resultText(search);
      const describe = await code.callTool({ name: "describe", arguments: { path: TASK_TOOL } });
      const describeText = resultText(describe);
      return {
        aggregator,
        toolList: { tools: listed.tools.length, tokens: tokens(JSON.stringify(listed)) },
        guide: { tokens: tokens(guideText), text: guideText },
        search: {
          hits: searchText.split("\n").filter((line) => line.startsWith("tools.")).length,
          tokens: resultTokens(search),
          text: searchText,
        },
        describe: { tokens: resultTokens(describe), text: describeText },
      };
    } finally {
      await code.close();
    }
  } finally {
    await gw.dispose();
  }
}

/** Prints the token table, the aggregator as baseline, each row beside its target. */
export function printTokens(report: TokenReport): void {
  const count = (n: number) => n.toLocaleString("en-US");
  const fixed = report.toolList.tokens + report.guide.tokens;
  const task = fixed + report.search.tokens + report.describe.tokens;
  const share = (task / report.aggregator.tokens) * 100;
  const missing = TASK_INPUTS.filter((name) =>
    !new RegExp(`\\b${name}\\??:`).test(report.describe.text)
  );
  console.log("what a model reads (o200k tokens, gpt-tokenizer 4.0.0)");
  valueRow(
    `aggregator tools/list (--expose tools, ${count(report.aggregator.tools)} tools)`,
    count(report.aggregator.tokens),
    "(baseline)",
  );
  valueRow(
    `code mode: tools/list of gateway mcp (${report.toolList.tools} tools)`,
    count(report.toolList.tokens),
  );
  valueRow("code mode: gateway://guide", count(report.guide.tokens));
  valueRow("  fixed surface (tools/list + guide)", count(fixed), target("≤ 1,500", fixed <= 1500));
  valueRow(
    `search "${TASK_QUERY}" (${report.search.hits} hits)`,
    count(report.search.tokens),
    target("≤ 600", report.search.tokens <= 600),
  );
  valueRow(
    `describe ${TASK_TOOL}`,
    count(report.describe.tokens),
    `${missing.length === 0 ? "names every input" : `MISSING ${missing.join(", ")}`} ${
      target("≤ 800", report.describe.tokens <= 800 && missing.length === 0)
    }`,
  );
  valueRow(
    "one task's discovery (fixed + search + describe)",
    count(task),
    `${share.toFixed(2)} % of the aggregator, ${(100 - share).toFixed(1)} % fewer ${
      target("≤ 1 %", share <= 1)
    }`,
  );
}

if (import.meta.main) {
  if (!(await Deno.stat(GITHUB_SPEC).then(() => true, () => false))) {
    console.log(
      "(GitHub's document not installed: run deno task test once to install test/servers)",
    );
    Deno.exit(0);
  }
  const report = await measureTokens();
  printTokens(report);
  if (Deno.args.includes("--show")) {
    console.log(
      `\n--- guide ---\n${report.guide.text}\n--- search ---\n${report.search.text}\n--- describe ---\n${report.describe.text}`,
    );
  }
}

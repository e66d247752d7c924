/**
 * The gateway both script corpora run against: a temporary root with the bundled
 * tool modules (kv, sqlite, fs, memory), the real MCP test servers (everything, memory as
 * `graph`, filesystem as `files`), a server that never starts (`ghost`), a policy rule written
 * with a tool's identifier, and an `exec.maxPermissions` ceiling.
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { GatewayClient } from "../../src/client/gateway_client.ts";
import { createHarness, type GatewayHarness } from "../support/gateway_harness.ts";
import { killPids, processesMatching } from "../support/run_test_support.ts";
import { pollUntil } from "../support/poll_until.ts";

const SERVERS = fileURLToPath(
  new URL("../servers/node_modules/@modelcontextprotocol/", import.meta.url),
);
const BUNDLED = new URL("../../tools/", import.meta.url);

/** A running corpus gateway and a client connected to it. */
export interface CorpusGateway {
  gw: GatewayHarness;
  client: GatewayClient;
  /** The root's `data` directory (granted by `exec.maxPermissions`, served by `fs`). */
  dataDir: string;
  close(): Promise<void>;
}

/** Namespaces the corpora call; the gateway is ready when these are. */
const READY = ["everything", "graph", "files", "kv", "sqlite", "fs", "memory"];

/** Starts the corpus gateway and waits until every namespace but `ghost` is ready. */
export async function startCorpusGateway(): Promise<CorpusGateway> {
  const files: Record<string, string> = { "data/hello.txt": "hello from the corpus\n" };
  for (const name of ["kv", "sqlite", "fs", "memory"]) {
    files[`tools/${name}.ts`] = await Deno.readTextFile(new URL(`${name}.ts`, BUNDLED));
  }
  const gw = await createHarness({ files: { ...files, "gateway.json": "{}" } });
  const dataDir = join(gw.root, "data");
  const config = {
    port: 0,
    mcpServers: {
      everything: { command: "node", args: [join(SERVERS, "server-everything/dist/index.js")] },
      graph: {
        command: "node",
        args: [join(SERVERS, "server-memory/dist/index.js")],
        env: { MEMORY_FILE_PATH: join(gw.root, "graph.jsonl") },
      },
      files: { command: "node", args: [join(SERVERS, "server-filesystem/dist/index.js"), dataDir] },
      ghost: { command: "/nonexistent/gateway-corpus-server", args: [] },
    },
    exec: {
      maxPermissions: { read: ["./data"], env: ["HOME", "CORPUS_FLAG"] },
      maxToolCalls: 50,
    },
    policy: [{ match: "everything.get_env", action: "deny" }],
    tools: { fs: { settings: { roots: ["./data"] } } },
  };
  await Deno.writeTextFile(join(gw.root, "gateway.json"), JSON.stringify(config, null, 2));
  let client: GatewayClient | null = null;
  try {
    client = await gw.client();
    const connected = client;
    await pollUntil("the corpus namespaces to be ready", async () => {
      const list = await connected.request<{ namespaces: Array<{ name: string; status: string }> }>(
        "namespaces",
        {},
      );
      return READY.every((name) =>
        list.namespaces.some((ns) => ns.name === name && ns.status === "ready")
      );
    }, { timeoutMs: 60_000, intervalMs: 200 });
  } catch (error) {
    client?.close();
    await gw.dispose();
    throw error;
  }
  const base = join(gw.dataDir, "..");
  return {
    gw,
    client,
    dataDir,
    close: async () => {
      await client.close();
      await gw.dispose();
      killPids(processesMatching(base));
    },
  };
}

/**
 * The subjects the Namespace contract runs MCP namespaces on, loaded (`McpNamespace`) or as
 * production builds them (`DeferredMcpNamespace`, whose code loads as it starts): the real
 * server-everything, which has resources, prompts, log messages and resource updates to probe
 * every optional capability with, and the fault fixture, which can change its tool list.
 * @module
 */

import type { McpServerConfig } from "../../src/config/gateway_config.ts";
import type { Namespace, ToolCallOptions } from "../../src/namespaces/namespace.ts";
import { callOptions, fixtureConfig, realServerConfig } from "../fixtures/mcp/mcp_test_servers.ts";
import type { NamespaceSubject, Upstream } from "./namespace_contract.ts";

/** Fails at once: the command cannot be found. */
const MISSING_COMMAND: McpServerConfig = {
  command: "/nonexistent/gateway-contract-server",
  args: [],
  env: {},
  disabled: false,
  startTimeoutMs: 5_000,
};

/** What every MCP namespace states. */
const MCP_CAPABILITIES = [
  "resources",
  "upstream-requests",
  "stderr-tail",
  "upstream-events",
] as const;

/** A resource server-everything lists, reads and reports updates of once subscribed. */
const EVERYTHING_RESOURCE = "demo://resource/static/document/architecture.md";

/** Builds an MCP namespace (loaded or deferred) named `name` over `config`. */
export type MakeMcpNamespace = (
  name: string,
  config: McpServerConfig,
  options: { killGraceMs: number },
) => Namespace & {
  callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<unknown>;
  upstreamRequest(method: "resources/subscribe", params: { uri: string }): Promise<unknown>;
};

/** server-everything (failing: a command that does not exist), every capability probed. */
export function everythingSubject(make: MakeMcpNamespace, upstream: Upstream): NamespaceSubject {
  const namespace = make(
    "everything",
    upstream === "failing"
      ? MISSING_COMMAND
      : { ...realServerConfig("everything"), disabled: upstream === "disabled" },
    { killGraceMs: 500 },
  );
  return {
    namespace,
    call: { tool: "echo", args: { message: "hi" } },
    slowCall: { tool: "trigger-long-running-operation", args: { duration: 60, steps: 60 } },
    capabilities: MCP_CAPABILITIES,
    probes: {
      resources: { uri: EVERYTHING_RESOURCE },
      "upstream-requests": {
        method: "prompts/list",
        params: {},
        answered: (value) =>
          Array.isArray(value) && value.some((prompt) => prompt?.name === "simple-prompt"),
      },
      "stderr-tail": { written: "Starting default (STDIO) server" },
      "upstream-events": {
        async logMessage() {
          await namespace.callTool("toggle-simulated-logging", {}, callOptions());
        },
        async resourceUpdate() {
          await namespace.upstreamRequest("resources/subscribe", { uri: EVERYTHING_RESOURCE });
          await namespace.callTool("toggle-subscriber-updates", {}, callOptions());
          return EVERYTHING_RESOURCE;
        },
      },
    },
    close: () => Promise.resolve(),
  };
}

/** The fault fixture (failing: slower to start than allowed), which can add a tool. */
export function faultFixtureSubject(make: MakeMcpNamespace, upstream: Upstream): NamespaceSubject {
  const config = upstream === "failing"
    ? fixtureConfig("fault_server.ts", {
      env: { FAULT_START_DELAY_MS: "10000" },
      startTimeoutMs: 300,
    })
    : { ...fixtureConfig("fault_server.ts"), disabled: upstream === "disabled" };
  const namespace = make("faults", config, { killGraceMs: 200 });
  return {
    namespace,
    call: { tool: "echo", args: { message: "hi" } },
    slowCall: { tool: "hang", args: {} },
    capabilities: MCP_CAPABILITIES,
    async changeTools() {
      await namespace.callTool("add_tool", { name: "added_by_contract" }, callOptions());
    },
    close: () => Promise.resolve(),
  };
}

/** The cases the fault fixture leaves to server-everything's subject (it has tools only). */
export const FAULT_FIXTURE_SKIPS = {
  "resources list and read": "the fault fixture has tools only; server-everything's run probes it",
  "upstream requests answer": "the fault fixture has tools only; server-everything's run probes it",
  "stderr tail keeps what the upstream wrote":
    "the fault fixture writes no stderr; server-everything's run probes it",
  "upstream events reach listeners":
    "the fault fixture sends no events; server-everything's run probes them",
} as const;

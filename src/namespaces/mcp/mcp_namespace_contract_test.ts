import {
  callOptions,
  fixtureConfig,
  realServerConfig,
} from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { namespaceContract } from "../../../test/support/namespace_contract.ts";
import { McpNamespace } from "./mcp_namespace.ts";

/** Fails at once: the command cannot be found. */
const MISSING_COMMAND = {
  command: "/nonexistent/gateway-contract-server",
  args: [],
  env: {},
  disabled: false,
  startTimeoutMs: 5_000,
};

namespaceContract({
  name: "MCP (server-everything)",
  make(upstream) {
    const namespace = new McpNamespace(
      "everything",
      upstream === "failing"
        ? MISSING_COMMAND
        : { ...realServerConfig("everything"), disabled: upstream === "disabled" },
      { killGraceMs: 500 },
    );
    return Promise.resolve({
      namespace,
      call: { tool: "echo", args: { message: "hi" } },
      slowCall: { tool: "trigger-long-running-operation", args: { duration: 60, steps: 60 } },
      close: () => Promise.resolve(),
    });
  },
  skip: {
    "onChange fires when tools change":
      "server-everything cannot be asked to change its tool list; the fault fixture can",
  },
});

namespaceContract({
  name: "MCP (fault fixture)",
  make(upstream) {
    // Failing: a server slower to start than startTimeoutMs allows.
    const config = upstream === "failing"
      ? fixtureConfig("fault_server.ts", {
        env: { FAULT_START_DELAY_MS: "10000" },
        startTimeoutMs: 300,
      })
      : { ...fixtureConfig("fault_server.ts"), disabled: upstream === "disabled" };
    const namespace = new McpNamespace("faults", config, { killGraceMs: 200 });
    return Promise.resolve({
      namespace,
      call: { tool: "echo", args: { message: "hi" } },
      slowCall: { tool: "hang", args: {} },
      async changeTools() {
        await namespace.callTool("add_tool", { name: "added_by_contract" }, callOptions());
      },
      close: () => Promise.resolve(),
    });
  },
});

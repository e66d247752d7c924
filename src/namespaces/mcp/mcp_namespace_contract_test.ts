import { namespaceContract } from "../../../test/support/namespace_contract.ts";
import {
  everythingSubject,
  FAULT_FIXTURE_SKIPS,
  faultFixtureSubject,
  type MakeMcpNamespace,
} from "../../../test/support/mcp_contract_subjects.ts";
import { McpNamespace } from "./mcp_namespace.ts";

const loaded: MakeMcpNamespace = (name, config, options) => new McpNamespace(name, config, options);

namespaceContract({
  name: "MCP (server-everything)",
  make: (upstream) => Promise.resolve(everythingSubject(loaded, upstream)),
  skip: {
    "onChange fires when tools change":
      "server-everything cannot be asked to change its tool list; the fault fixture can",
  },
});

namespaceContract({
  name: "MCP (fault fixture)",
  make: (upstream) => Promise.resolve(faultFixtureSubject(loaded, upstream)),
  skip: FAULT_FIXTURE_SKIPS,
});

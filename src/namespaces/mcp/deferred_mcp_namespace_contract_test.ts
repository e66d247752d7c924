import { namespaceContract } from "../../../test/support/namespace_contract.ts";
import {
  everythingSubject,
  FAULT_FIXTURE_SKIPS,
  faultFixtureSubject,
  type MakeMcpNamespace,
} from "../../../test/support/mcp_contract_subjects.ts";
import { DeferredMcpNamespace } from "./deferred_mcp_namespace.ts";

/** As the server builds MCP namespaces: the code loads as the namespace starts. */
const deferred: MakeMcpNamespace = (name, config, options) =>
  new DeferredMcpNamespace(name, config, options);

namespaceContract({
  name: "MCP deferred (server-everything)",
  make: (upstream) => Promise.resolve(everythingSubject(deferred, upstream)),
  skip: {
    "onChange fires when tools change":
      "server-everything cannot be asked to change its tool list; the fault fixture can",
  },
});

namespaceContract({
  name: "MCP deferred (fault fixture)",
  make: (upstream) => Promise.resolve(faultFixtureSubject(deferred, upstream)),
  skip: FAULT_FIXTURE_SKIPS,
});

import { namespaceContract } from "../../test/support/namespace_contract.ts";
import { BlockedNamespace } from "./blocked_namespace.ts";

namespaceContract({
  name: "blocked",
  make: () =>
    Promise.resolve({
      namespace: new BlockedNamespace(
        "github",
        "mcp",
        'blocked: "GITHUB_TOKEN" is not set in the gateway server\'s environment',
      ),
      call: { tool: "create_issue", args: { title: "t" } },
      capabilities: [],
      close: () => Promise.resolve(),
    }),
  without: {
    working: "a blocked entry never runs: it stands in for one that cannot start",
    disabled: "a disabled entry makes no namespace at all, blocked or not",
  },
});

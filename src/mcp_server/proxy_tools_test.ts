import assert from "node:assert/strict";
import { nameProxyTools } from "./proxy_tools.ts";

const tool = (identifier: string, name: string) => ({
  namespace: identifier,
  identifier,
  name,
  description: "",
  inputSchema: { type: "object" },
});

Deno.test("proxy tools are named <namespace>__<tool> with MCP-safe characters, collisions suffixed", () => {
  const named = nameProxyTools([
    tool("github", "create issue"),
    tool("github", "create_issue"),
    tool("fs", "read.file"),
  ]);
  assert.deepEqual(named.map((t) => t.exposedName), [
    "github__create_issue",
    "github__create_issue_2",
    "fs__read.file",
  ]);
  assert.equal(named[0]!.name, "create issue", "calls still go to the upstream's own name");
});

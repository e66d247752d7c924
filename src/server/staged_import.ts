/**
 * Loads the server's heavy half a few modules at a time, yielding to the event loop between
 * steps: evaluating a module graph blocks the thread, so one big `import()` would hold
 * `/health` (already listening) for the whole load. Leaf packages come first, each its own
 * step; a module missing from the list is still loaded, only in a longer step. What the parts
 * load on first use (the MCP endpoint, workflows, the schema renderer) is not listed.
 * @module
 */

/** The MCP namespace code, which the parts load only when the config names an MCP server. */
const MCP_STEPS: (() => Promise<unknown>)[] = [
  () => import("ajv"),
  () => import("@modelcontextprotocol/sdk/client/index.js"),
  () => import("../namespaces/mcp/mcp_namespace.ts"),
];

/** The packages every part uses, first. */
const LEAVES: (() => Promise<unknown>)[] = [
  () => import("zod"),
  () => import("hono"),
];

/** Then the parts, leaf-first. */
const PARTS: (() => Promise<unknown>)[] = [
  () => import("../exec/script_runner.ts"),
  () => import("./http_routes.ts"),
  () => import("./method_table.ts"),
  () => import("./gateway_core.ts"),
];

/**
 * Imports the server's parts step by step and returns `./server_parts.ts`; with `mcp`, the MCP
 * namespace code first (the config names an MCP server).
 */
export async function importServerParts(
  options: { mcp: boolean },
): Promise<typeof import("./server_parts.ts")> {
  for (const step of [...LEAVES, ...(options.mcp ? MCP_STEPS : []), ...PARTS]) {
    await step();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return await import("./server_parts.ts");
}

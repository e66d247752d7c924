/**
 * Loads the server's heavy half a few modules at a time, yielding to the event loop between
 * steps: evaluating a module graph blocks the thread, so one big `import()` would hold
 * `/health` (already listening) for the whole load. Leaf packages come first, each its own
 * step; a module missing from the list is still loaded, only in a longer step. What the parts
 * load on first use (the MCP endpoint, workflows, the MCP namespace code) is not listed.
 * @module
 */

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
 * Imports the server's parts step by step and returns `./server_parts.ts`. The MCP namespace
 * code is not among them: each MCP namespace loads it as it starts (deferred_mcp_namespace.ts).
 */
export async function importServerParts(): Promise<typeof import("./server_parts.ts")> {
  for (const step of [...LEAVES, ...PARTS]) {
    await step();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return await import("./server_parts.ts");
}

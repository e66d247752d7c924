/**
 * One tool, one name: calls travel and are recorded under the upstream's names (`everything`,
 * `get-sum`), but a person reads and types the script's (`everything.get_sum`). These helpers
 * turn the first into the second wherever a call is shown or an error names it, with the
 * upstream's name as a note where it differs.
 * @module
 */

import type { ToolMap } from "./channel_messages.ts";

/**
 * The path a script types for tool `tool` of namespace `namespace` (both as the upstream names
 * them), e.g. `everything.get_sum`; undefined when the tool is not exposed to scripts now.
 *
 * @example
 * ```ts
 * import { typedToolName } from "./typed_tool_name.ts";
 * import assert from "node:assert/strict";
 * const map = { my_api: { name: "my-api", tools: { get_sum: "get-sum" } } };
 * assert.equal(typedToolName(map, "my-api", "get-sum"), "my_api.get_sum");
 * assert.equal(typedToolName(map, "my-api", "gone"), undefined);
 * ```
 */
export function typedToolName(map: ToolMap, namespace: string, tool: string): string | undefined {
  for (const [identifier, ns] of Object.entries(map)) {
    if (ns.name !== namespace) continue;
    for (const [toolIdentifier, original] of Object.entries(ns.tools)) {
      if (original === tool) return `${identifier}.${toolIdentifier}`;
    }
  }
  return undefined;
}

/** How the gateway's own messages refer to a tool, just before its quoted path. */
const TOOL_REFERENCE = /(?:\b[Tt]ool |\bCall to )$/;

/**
 * `message` with the quoted upstream path of the tool (`tool "everything.get-sum"`, as the
 * gateway's own messages say it) replaced by the typed one, the upstream tool name following
 * the first as a note when it differs: `tool "everything.get_sum" (upstream name "get-sum")`.
 * Only the gateway's references are changed: the same text quoted elsewhere (a policy rule,
 * the tool's own words) stays as it is. Unchanged when the names agree.
 *
 * @example
 * ```ts
 * import { withTypedToolName } from "./typed_tool_name.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   withTypedToolName('Invalid input for tool "everything.get-sum": "/b" must be number', {
 *     namespace: "everything",
 *     tool: "get-sum",
 *     typed: "everything.get_sum",
 *   }),
 *   'Invalid input for tool "everything.get_sum" (upstream name "get-sum"): "/b" must be number',
 * );
 * ```
 */
export function withTypedToolName(
  message: string,
  names: { namespace: string; tool: string; typed: string },
): string {
  const upstream = `"${names.namespace}.${names.tool}"`;
  const typed = `"${names.typed}"`;
  if (upstream === typed) return message;
  const typedTool = names.typed.slice(names.typed.indexOf(".") + 1);
  const note = typedTool === names.tool ? "" : ` (upstream name "${names.tool}")`;
  let out = "";
  let rest = message;
  let noted = false;
  for (let at = rest.indexOf(upstream); at >= 0; at = rest.indexOf(upstream)) {
    const before = rest.slice(0, at);
    const ours = TOOL_REFERENCE.test(before);
    out += before + (ours ? typed + (noted ? "" : note) : upstream);
    noted ||= ours;
    rest = rest.slice(at + upstream.length);
  }
  return out + rest;
}

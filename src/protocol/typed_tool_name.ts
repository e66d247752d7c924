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

/**
 * `message` with the quoted upstream path (`"everything.get-sum"`) replaced by the typed one,
 * the upstream tool name following the first as a note when it differs:
 * `"everything.get_sum" (upstream name "get-sum")`. Unchanged when the names agree or the
 * message does not quote the path.
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
  const at = message.indexOf(upstream);
  if (at < 0) return message;
  const typedTool = names.typed.slice(names.typed.indexOf(".") + 1);
  const note = typedTool === names.tool ? "" : ` (upstream name "${names.tool}")`;
  const rest = message.slice(at + upstream.length).replaceAll(upstream, typed);
  return `${message.slice(0, at)}${typed}${note}${rest}`;
}

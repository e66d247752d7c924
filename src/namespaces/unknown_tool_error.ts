/**
 * The one wording of a call to a tool a namespace does not have, shared by every namespace kind
 * so a model sees the same hint wherever it mistyped.
 * @module
 */

import { ToolCallError } from "./namespace.ts";
import { nearestNames } from "../protocol/names.ts";

/**
 * An `UnknownTool` error for `namespace.tool`, naming the nearest of `known` (original tool
 * names), or how many tools the namespace has when none is near.
 */
export function unknownToolError(
  namespace: string,
  tool: string,
  known: readonly string[],
): ToolCallError {
  const near = nearestNames(tool, [...known]);
  return new ToolCallError(
    "UnknownTool",
    `Unknown tool "${namespace}.${tool}": ${
      near.length > 0
        ? `nearest are ${near.map((n) => `"${n}"`).join(", ")}`
        : `"${namespace}" has ${known.length} tools`
    }`,
  );
}

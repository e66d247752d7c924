/**
 * The one wording of a call to a tool a namespace does not have, shared by the registry and
 * every namespace kind so a model sees the same hint wherever it mistyped.
 * @module
 */

import { ToolCallError } from "./namespace.ts";
import { nearestNames } from "../protocol/names.ts";

/** What the registry knows beyond the namespace itself. */
export interface UnknownToolContext {
  /** Full paths (`ns.tool`) to suggest, nearest first; by default the nearest of `known`. */
  suggestions?: readonly string[];
  /** Why the namespace may be missing tools (` (namespace "x" is starting)`), or empty. */
  status?: string;
}

/**
 * An `UnknownTool` error for `namespace.tool`: the nearest names as paths, then every tool the
 * namespace has, so the fix is in the message whether the name was misspelt or guessed.
 */
export function unknownToolError(
  namespace: string,
  tool: string,
  known: readonly string[],
  context: UnknownToolContext = {},
): ToolCallError {
  const near = context.suggestions ??
    nearestNames(tool, [...known]).map((name) => `${namespace}.${name}`);
  return new ToolCallError(
    "UnknownTool",
    `Unknown tool "${namespace}.${tool}"${
      near.length ? `: did you mean ${near.map((n) => `"${n}"`).join(", ")}?` : ""
    }${context.status ?? ""}; "${namespace}" has: ${known.join(", ") || "(no tools)"}`,
  );
}

/**
 * The shared wording of bad tool input, apart from the ajv-based validator so a namespace that
 * only checks arguments with schemas compiled elsewhere never loads ajv (ajv is off
 * the server's start path and loads with the first schema compile).
 * @module
 */

import { ToolCallError } from "../namespace.ts";

/** Checks one value; returns the problems, empty when the value is valid. */
export type ArgumentCheck = (value: unknown) => string[];

/**
 * The argument of a call to tool `what` (`"ns.tool"`) as an object (`undefined` is `{}`) that
 * passed `check()`, so every namespace kind words bad input the same way. Throws a
 * `ToolCallError` of kind `InvalidToolInput` naming the tool, the path and the rule.
 */
export function checkedToolInput(
  args: unknown,
  check: () => ArgumentCheck | undefined,
  what: string,
): Record<string, unknown> {
  const input = args ?? {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new ToolCallError(
      "InvalidToolInput",
      `Invalid input for tool "${what}": "/" must be an object, not ${
        Array.isArray(input) ? "an array" : typeof input
      } (type)`,
    );
  }
  const problems = check()?.(input) ?? [];
  if (problems.length > 0) {
    throw new ToolCallError(
      "InvalidToolInput",
      `Invalid input for tool "${what}": ${problems.join("; ")}`,
    );
  }
  return input as Record<string, unknown>;
}

/**
 * A tool descriptor for unit tests: no input, unknown output, no parameters, with any field
 * overridden, so each test spells out only what it is about.
 * @module
 */

import type { ToolDescriptor } from "../../src/protocol/catalogue.ts";

/** `originalName` with empty defaults, overridden by `fields`. */
export function toolDescriptor(
  originalName: string,
  fields: Partial<ToolDescriptor> = {},
): ToolDescriptor {
  return {
    originalName,
    description: "",
    inputType: null,
    inputOptional: true,
    outputType: "unknown",
    params: [],
    ...fields,
  };
}

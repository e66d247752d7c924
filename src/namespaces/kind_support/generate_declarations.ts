/**
 * The call into `json-schema-to-typescript` (with lodash, prettier and js-yaml under it, ≈ 13 MB
 * that never go back once loaded), apart so it runs in the process that renders: the server's
 * schema render process, or the caller's own in tests and tools (schema_to_typescript.ts).
 * @module
 */

import type { JsonSchema } from "../namespace.ts";

/** The generator's declarations for an already normalised schema, root type `typeName`. */
export async function generateDeclarations(
  normalized: JsonSchema,
  typeName: string,
): Promise<string> {
  const { compile } = await import("json-schema-to-typescript");
  return await compile(normalized as Parameters<typeof compile>[0], typeName, {
    bannerComment: "",
    format: false,
    declareExternallyReferenced: true,
    additionalProperties: false,
    unreachableDefinitions: false,
    strictIndexSignatures: false,
    // `minItems: 1` would make `string[]` a tuple (`[string, ...string[]]`), so a script's
    // plain array would not check; the bounds stay in the JSDoc and the input validator.
    ignoreMinAndMaxItems: true,
    $refOptions: { resolve: { external: false } },
  });
}

/**
 * Checks tool arguments against a tool's input JSON Schema with ajv, before anything is sent
 * upstream, and words the problems so a model can fix its call.
 * @module
 */

import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema } from "../namespace.ts";
import type { ArgumentCheck } from "./tool_input_check.ts";
import { messageOf } from "../../protocol/message_of.ts";

// Kept here too for the importers of the validator (the API namespaces).
export { type ArgumentCheck, checkedToolInput } from "./tool_input_check.ts";

const MAX_PROBLEMS = 5;

/**
 * Compiles input schemas into {@linkcode ArgumentCheck}s. The JSON Schema dialect follows
 * `$schema` (draft-07 and older → ajv's draft-07 validator, 2019-09 → Ajv2019); a schema without
 * `$schema` is 2020-12, the MCP default. Formats are not checked (no `ajv-formats`) and unknown
 * keywords are ignored, because upstream schemas are often loose. One instance per namespace, so
 * compiled schemas are cached for the namespace's lifetime.
 *
 * @example
 * ```ts
 * import { InputValidator } from "./input_validator.ts";
 * import assert from "node:assert/strict";
 * const check = new InputValidator().compile({
 *   type: "object",
 *   properties: { message: { type: "string" } },
 *   required: ["message"],
 * });
 * assert.deepEqual(check({ message: 1 }), ['"/message" must be string (type)']);
 * ```
 */
export class InputValidator {
  #ajv07: Ajv | undefined;
  #ajv2019: Ajv2019 | undefined;
  #ajv2020: Ajv2020 | undefined;

  /** Compiles `schema`; throws an `Error` naming the problem when ajv cannot compile it. */
  compile(schema: JsonSchema): ArgumentCheck {
    const { $schema, ...rest } = schema;
    const dialect = typeof $schema === "string" ? $schema : "";
    let validate: ValidateFunction;
    try {
      validate = this.#ajvFor(dialect).compile(rest);
    } catch (first) {
      // A schema that mixes dialects (e.g. 2020-12 `prefixItems` with a draft-07 `$schema`) may
      // still compile under the other family.
      try {
        validate =
          (dialect.includes("draft-0") ? this.#ajvFor("2020-12") : this.#ajvFor("draft-07"))
            .compile(rest);
      } catch {
        throw new Error(
          `Cannot compile input schema: ${messageOf(first)}`,
          { cause: first },
        );
      }
    }
    return (value) => {
      if (validate(value)) return [];
      const problems = (validate.errors ?? []).map(describeError);
      const unique = [...new Set(problems)];
      return unique.length > MAX_PROBLEMS
        ? [...unique.slice(0, MAX_PROBLEMS), `and ${unique.length - MAX_PROBLEMS} more`]
        : unique;
    };
  }

  #ajvFor(dialect: string): Ajv | Ajv2019 | Ajv2020 {
    const options = {
      allErrors: true,
      strict: false,
      validateFormats: false,
      validateSchema: false,
    } as const;
    if (dialect.includes("draft-0") || dialect.includes("draft/0")) {
      return this.#ajv07 ??= new Ajv(options);
    }
    if (dialect.includes("2019-09")) return this.#ajv2019 ??= new Ajv2019(options);
    return this.#ajv2020 ??= new Ajv2020(options);
  }
}

/** `"/path" <rule text> (<keyword>)`, the path pointing at the offending argument. */
function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    return `"${error.instancePath}/${params.missingProperty}" is required (required)`;
  }
  if (
    (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") &&
    typeof params.additionalProperty === "string"
  ) {
    return `"${error.instancePath}/${params.additionalProperty}" is not allowed (${error.keyword})`;
  }
  const path = error.instancePath === "" ? "/" : error.instancePath;
  let message = error.message ?? "is invalid";
  if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    message = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  } else if (error.keyword === "const") {
    message = `must be ${JSON.stringify(params.allowedValue)}`;
  }
  return `"${path}" ${message} (${error.keyword})`;
}

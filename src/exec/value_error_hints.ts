/**
 * Explains a run's `TypeError` about a value from a tool (the unchecked path's side of the
 * checker's hints): a Promise used as its value (`x.join is not a function`, `Cannot read
 * properties of undefined` after a tool call without `await`), and an object used as an array
 * (`graph.map is not a function`, `hits is not iterable`), naming the object's fields. Reads
 * the script's text; pure.
 * @module
 */

import { ARRAY_MEMBERS } from "./array_members.ts";

/** A variable the script set from a tool call: `const NAME = [await] tools.ns.tool(…)`. */
interface ToolVariable {
  name: string;
  awaited: boolean;
  namespace: string;
  tool: string;
  line: number;
}

/** What the explanation needs beside the script. */
export interface ValueHintContext {
  /** The script as the author wrote it. */
  source: string;
  /** The top-level fields of a tool's output (`entities: Entity[]` …), or null when unknown. */
  outputFields?: (namespace: string, tool: string) => string[] | null;
}

const DECLARATION =
  /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(await\s+)?tools\s*(?:\.\s*([\w$]+)|\[\s*["']([^"']+)["']\s*\])\s*(?:\.\s*([\w$]+)|\[\s*["']([^"']+)["']\s*\])/;

function toolVariables(source: string): ToolVariable[] {
  return source.split(/\r?\n/).flatMap((text, index) => {
    const match = DECLARATION.exec(text);
    if (match === null) return [];
    return [{
      name: match[1]!,
      awaited: match[2] !== undefined,
      namespace: (match[3] ?? match[4])!,
      tool: (match[5] ?? match[6])!,
      line: index + 1,
    }];
  });
}

/**
 * The fix for a `TypeError` message about a value a tool call produced, or null when the
 * message is about something else. `line` is where the error was thrown.
 *
 * @example
 * ```ts
 * import { explainValueError } from "./value_error_hints.ts";
 * import assert from "node:assert/strict";
 * const source = "const entries = tools.kv.list();\nentries.join(', ')";
 * const fix = explainValueError("TypeError: entries.join is not a function", 2, { source });
 * assert.match(fix ?? "", /entries holds a Promise: .*await tools\.kv\.list/);
 * ```
 */
export function explainValueError(
  message: string,
  line: number | undefined,
  context: ValueHintContext,
): string | null {
  const variables = toolVariables(context.source);
  if (variables.length === 0) return null;
  const notFunction = /^TypeError: ([\w$]+)((?:\.[\w$]+)*)\.([\w$]+) is not a function/.exec(
    message,
  );
  const notIterable =
    /^TypeError: ([\w$]+)((?:\.[\w$]+)*) is not (?:a function or its return value is not )?iterable/
      .exec(message);
  const undefinedRead =
    /^TypeError: Cannot read properties of (?:undefined|null) \(reading '([^']*)'\)/
      .exec(message);
  if (notFunction || notIterable) {
    const root = (notFunction ?? notIterable)![1]!;
    const path = (notFunction ?? notIterable)![2] ?? "";
    const variable = latestBefore(variables, root, line);
    if (variable === undefined) return null;
    if (!variable.awaited) return promiseFix(variable);
    const member = notFunction?.[3];
    if (path === "" && (notIterable || ARRAY_MEMBERS.has(member!))) {
      return objectFix(variable, member === undefined ? "iteration" : `.${member}`, context);
    }
    return null;
  }
  if (undefinedRead && line !== undefined) {
    const text = context.source.split(/\r?\n/)[line - 1] ?? "";
    const used = variables.filter((v) =>
      !v.awaited && v.line < line && new RegExp(`\\b${escape(v.name)}\\s*\\.`).test(text)
    );
    if (used.length === 1) return promiseFix(used[0]!);
  }
  return null;
}

function latestBefore(
  variables: readonly ToolVariable[],
  name: string,
  line: number | undefined,
): ToolVariable | undefined {
  const candidates = variables.filter((v) =>
    v.name === name && (line === undefined || v.line <= line)
  );
  return candidates.at(-1);
}

function promiseFix(variable: ToolVariable): string {
  const call = `tools.${variable.namespace}.${variable.tool}(…)`;
  return `${variable.name} holds a Promise: ${call} on line ${variable.line} is not awaited; ` +
    `add \`await\`: const ${variable.name} = await ${call}`;
}

function objectFix(variable: ToolVariable, use: string, context: ValueHintContext): string | null {
  const fields = context.outputFields?.(variable.namespace, variable.tool)?.map(collapseBodies) ??
    null;
  if (fields === null || fields.length === 0) {
    return `${variable.name} (from tools.${variable.namespace}.${variable.tool} on line ${variable.line}) ` +
      `is not an array; describe("tools.${variable.namespace}.${variable.tool}") shows what it returns`;
  }
  const array = fields.find((field) => /\[\]$|^[^:]+\??: Array</.test(field));
  const arrayName = array?.split(/\??:/)[0];
  const example = arrayName === undefined
    ? ""
    : `, e.g. ${variable.name}.${arrayName}${use === "iteration" ? "" : `${use}(…)`}`;
  return `${variable.name} is an object (what tools.${variable.namespace}.${variable.tool} returns), ` +
    `not an array; its fields: ${fields.join(", ")}${
      arrayName === undefined ? "" : `. Use the array inside it${example}`
    }`;
}

/** Object literal bodies in a field's type as `{…}`, so a field list stays one short line. */
function collapseBodies(field: string): string {
  let text = field;
  for (let i = 0; i < 5 && /\{[^{}]*\}/.test(text); i++) text = text.replace(/\{[^{}]*\}/g, "{…}");
  return text;
}

function escape(text: string): string {
  return text.replace(/[$]/g, "\\$");
}

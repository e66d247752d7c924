/**
 * Workflow files: YAML parsed with positions kept, checked with zod, so a bad file is
 * refused with its path, the line and column, and what is wrong.
 * The zod schema and the positioned messages for each of its keys are one contract, so they
 * live together.
 * @module
 */

import { createHash } from "node:crypto";
import {
  CST,
  type Document,
  isMap,
  isNode,
  isPair,
  isScalar,
  LineCounter,
  parseDocument,
  Parser,
} from "yaml";
import { z } from "zod";
import { WorkflowError, type WorkflowErrorLocation } from "./workflow_error.ts";
import { messageOf } from "../protocol/message_of.ts";

/** A value of a workflow variable, from the file's `vars` or from `--var k=v`. */
export type WorkflowVarValue = string | number | boolean;

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const loopSchema = z.strictObject({
  min: z.int().min(0),
  max: z.int().min(1),
}).superRefine((loop, context) => {
  if (loop.min > loop.max) {
    context.addIssue({
      code: "custom",
      path: ["min"],
      message: `loop.min (${loop.min}) is greater than loop.max (${loop.max})`,
    });
  }
});

const stepSchema = z.strictObject({
  title: z.string().refine((text) => text.trim() !== "", "must not be empty"),
  prompt: z.string().refine((text) => text.trim() !== "", "must not be empty"),
  loop: loopSchema.optional(),
});

/**
 * The shape of a workflow file, unknown keys refused at every level. Exported so the JSON Schema
 * for editors (and the docs) can be generated from the one definition.
 */
export const workflowFileSchema = z.strictObject({
  description: z.string().optional(),
  vars: z.record(
    z.string().regex(VAR_NAME, "variable names are letters, digits and _"),
    z.union([z.string(), z.number(), z.boolean()]),
  ).optional(),
  steps: z.array(stepSchema).min(1),
});

/** A loop step's bounds: it is shown at least `min` and at most `max` times. */
export interface WorkflowLoop {
  min: number;
  max: number;
}

/** One step of a workflow, its title and prompt still templates. */
export interface WorkflowStep {
  title: string;
  prompt: string;
  loop: WorkflowLoop | null;
}

/** A validated workflow file. */
export interface WorkflowDefinition {
  description: string | null;
  /** Defaults for template `vars`; `--var k=v` at start overrides them. */
  vars: Record<string, WorkflowVarValue>;
  steps: WorkflowStep[];
}

/** A workflow file as read from disk: its text, the hash sessions compare, and the definition. */
export interface LoadedWorkflowFile {
  /** Absolute path of the file. */
  path: string;
  text: string;
  /** sha256 of `text`, hex; a session notices an edited file by this. */
  hash: string;
  definition: WorkflowDefinition;
}

/**
 * Parses and validates workflow YAML. `file` is only used in messages. Throws a
 * {@linkcode WorkflowError} with code `BadFile` and the location of the first problem.
 *
 * @example
 * ```ts
 * import { parseWorkflowFile } from "./workflow_file.ts";
 * import assert from "node:assert/strict";
 * const workflow = parseWorkflowFile("steps:\n  - title: Plan\n    prompt: Write a plan.\n", "plan.yaml");
 * assert.equal(workflow.steps[0]?.title, "Plan");
 * ```
 */
export function parseWorkflowFile(text: string, file: string): WorkflowDefinition {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  const at = (offset: number): WorkflowErrorLocation => {
    const pos = lineCounter.linePos(offset);
    return { file, line: pos.line, column: pos.col };
  };
  const yamlError = doc.errors[0];
  if (yamlError !== undefined) {
    const location = yamlError.linePos?.[0] === undefined
      ? at(yamlError.pos[0])
      : { file, line: yamlError.linePos[0].line, column: yamlError.linePos[0].col };
    const what = (yamlError.message.split("\n")[0] ?? "").replace(
      / at line \d+, column \d+:?$/,
      "",
    );
    // The parser notices an unclosed `{`/`[` only lines later; point at the bracket itself.
    const unclosed = firstUnclosed(text);
    if (unclosed !== null && unclosed.offset <= yamlError.pos[0]) {
      throw badFile(
        at(unclosed.offset),
        `invalid YAML: ${
          unclosed.open === unclosed.close
            ? `the ${unclosed.open} quote opened here is never closed`
            : `"${unclosed.open}" is never closed: add "${unclosed.close}"`
        } ` +
          `(the parser stopped at line ${location.line}, column ${location.column}: ${what})`,
      );
    }
    throw badFile(location, `invalid YAML: ${what}`);
  }
  if (doc.contents === null) {
    throw badFile(at(0), 'the file is empty: a workflow needs a "steps:" list');
  }
  const parsed = workflowFileSchema.safeParse(doc.toJS(), { reportInput: true });
  if (!parsed.success) {
    // An unknown key is usually a misspelt one that is then also "missing": name it first.
    const problems = parsed.error.issues.map((issue) => ({
      unknown: issue.code === "unrecognized_keys",
      location: at(issueOffset(doc, issue)),
      text: describeIssue(issue, parsed.error.issues),
    })).sort((a, b) =>
      Number(b.unknown) - Number(a.unknown) || a.location.line - b.location.line ||
      a.location.column - b.location.column
    );
    const first = problems[0];
    if (first === undefined) throw badFile(at(0), "does not match the workflow schema");
    const more = problems.slice(1).map((p) =>
      `\n  line ${p.location.line}, column ${p.location.column}: ${p.text}`
    );
    throw badFile(first.location, first.text + more.join(""));
  }
  const value = parsed.data;
  return {
    description: value.description ?? null,
    vars: value.vars ?? {},
    steps: value.steps.map((step) => ({
      title: step.title,
      prompt: step.prompt,
      loop: step.loop === undefined ? null : { min: step.loop.min, max: step.loop.max },
    })),
  };
}

/**
 * Reads and validates the workflow file at `path` (absolute). A missing or unreadable file is a
 * {@linkcode WorkflowError} with code `NotFound`; a bad one, `BadFile`.
 */
export async function readWorkflowFile(path: string): Promise<LoadedWorkflowFile> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new WorkflowError(
      "NotFound",
      `Cannot read workflow "${path}": ${messageOf(error)}`,
      { cause: error },
    );
  }
  return { path, text, hash: hashWorkflowText(text), definition: parseWorkflowFile(text, path) };
}

/** The content hash sessions store, so a file edited under a running session is noticed. */
export function hashWorkflowText(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The first bracket (`{`, `[`) or quote in `text` that is never closed, if any: the YAML parser
 * reports those where it gave up, often lines later, so the message points here instead.
 */
function firstUnclosed(
  text: string,
): { offset: number; open: string; close: string } | null {
  let found: { offset: number; open: string; close: string } | null = null;
  const offer = (offset: number, open: string, close: string) => {
    if (found === null || offset < found.offset) found = { offset, open, close };
  };
  for (const token of new Parser().parse(text)) {
    if (token.type !== "document") continue;
    CST.visit(token, (item) => {
      const value = item.value;
      if (value?.type === "flow-collection") {
        const closed = value.end.some((end) =>
          end.type === "flow-map-end" || end.type === "flow-seq-end"
        );
        if (!closed) {
          offer(value.start.offset, value.start.source, value.start.source === "{" ? "}" : "]");
        }
      } else if (value?.type === "double-quoted-scalar" || value?.type === "single-quoted-scalar") {
        const quote = value.source[0] ?? "";
        const body = value.source.trimEnd();
        const closed = body.length >= 2 && body.endsWith(quote) &&
          (quote === "'" || !/(?:^|[^\\])(?:\\\\)*\\"$/.test(body));
        if (!closed) offer(value.offset, quote, quote);
      }
    });
  }
  return found;
}

function badFile(location: WorkflowErrorLocation, what: string): WorkflowError {
  return new WorkflowError(
    "BadFile",
    `Cannot load workflow "${location.file}": line ${location.line}, column ${location.column}: ${what}`,
    { location },
  );
}

/**
 * Says what a zod issue means in the words of a workflow file: "step 2: missing "title"". `all`
 * holds every issue of the file, so an unknown key can name the missing one it may stand for.
 */
function describeIssue(issue: z.core.$ZodIssue, all: readonly z.core.$ZodIssue[]): string {
  const path = issue.path.map((key) => (typeof key === "symbol" ? String(key) : key));
  const where = pathLabel(path);
  const prefix = where === "" ? "" : `${where}: `;
  const last = path[path.length - 1];
  switch (issue.code) {
    case "unrecognized_keys": {
      const allowed = allowedKeys(path);
      const missing = missingKeys(all, path);
      const guess = missing.length === 1 && issue.keys.length === 1
        ? `; did you mean "${missing[0]}"?`
        : "";
      return `${prefix}unknown key ${issue.keys.map((k) => `"${k}"`).join(", ")}${
        allowed === "" ? "" : ` (allowed: ${allowed}${guess})`
      }`;
    }
    case "invalid_type": {
      if (issue.input === undefined && typeof last === "string") {
        const parent = pathLabel(path.slice(0, -1));
        return `${parent === "" ? "" : `${parent}: `}missing "${last}"`;
      }
      const got = describeValue(issue.input);
      if (path.length === 0) return `expected a mapping with "steps", got ${got}`;
      return `${where}: expected ${TYPE_NAMES[issue.expected] ?? issue.expected}, got ${got}`;
    }
    case "invalid_key":
      return `${prefix}invalid variable name: use letters, digits and _, not starting with a digit`;
    case "too_small": {
      if (last === "steps") return `"steps" is empty: a workflow needs at least one step`;
      if (issue.origin === "string") return `${where}: must not be empty`;
      return `${where}: must be at least ${String(issue.minimum)}`;
    }
    case "custom":
      // The loop check points at `min`; name the step, not the key, before its message.
      if (last === "min") return `${pathLabel(path.slice(0, -2))}: ${issue.message}`;
      return `${prefix}${issue.message}`;
    default:
      return `${prefix}${issue.message}`;
  }
}

/** Required keys reported missing directly under `path`. */
function missingKeys(
  issues: readonly z.core.$ZodIssue[],
  path: readonly (string | number)[],
): string[] {
  const missing: string[] = [];
  for (const issue of issues) {
    const last = issue.path[issue.path.length - 1];
    if (
      issue.code === "invalid_type" && issue.input === undefined && typeof last === "string" &&
      issue.path.length === path.length + 1 && path.every((key, i) => issue.path[i] === key)
    ) {
      missing.push(last);
    }
  }
  return missing;
}

const TYPE_NAMES: Record<string, string> = {
  object: "a mapping",
  array: "a list",
  string: "text",
  int: "a whole number",
  number: "a number",
};

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing (the file is empty)";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  // Text is described, never quoted: a file that is not a workflow (say, one holding secrets)
  // must not come back inside the error.
  if (typeof value === "string") return `text (${value.length} characters)`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** `["steps", 1, "loop", "min"]` → `step 2 loop.min`. */
function pathLabel(path: readonly (string | number)[]): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (key === "steps" && typeof path[i + 1] === "number") {
      parts.push(`step ${Number(path[i + 1]) + 1}`);
      i++;
    } else if (typeof key === "number") {
      parts.push(`[${key}]`);
    } else {
      parts.push(key ?? "");
    }
  }
  const [head, ...rest] = parts;
  if (head === undefined) return "";
  return rest.length === 0 ? head : `${head} ${rest.join(".")}`;
}

function allowedKeys(path: readonly (string | number)[]): string {
  const last = path[path.length - 1];
  if (path.length === 0) return "description, vars, steps";
  if (last === "loop") return "min, max";
  if (typeof last === "number" && path[0] === "steps") return "title, prompt, loop";
  return "";
}

/** Where an issue points in the source: the offending key or value, else its parent. */
function issueOffset(doc: Document, issue: z.core.$ZodIssue): number {
  const path = issue.path.filter((key): key is string | number => typeof key !== "symbol");
  for (let depth = path.length; depth >= 0; depth--) {
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (!isNode(node)) continue;
    if (issue.code === "unrecognized_keys" && depth === path.length && isMap(node)) {
      const key = issue.keys[0];
      const pair = node.items.find((item) =>
        isPair(item) && isScalar(item.key) && item.key.value === key
      );
      if (pair !== undefined && isNode(pair.key) && pair.key.range) return pair.key.range[0];
    }
    if (node.range) return node.range[0];
  }
  return 0;
}

/**
 * The variables a workflow takes: its `vars:` defaults and every `vars.NAME` its titles and
 * prompts name, sorted.
 */
export function workflowVarNames(definition: WorkflowDefinition): string[] {
  const names = new Set(Object.keys(definition.vars));
  for (
    const match of JSON.stringify(definition.steps).matchAll(/\bvars\.([A-Za-z_][A-Za-z0-9_]*)/g)
  ) {
    names.add(match[1]!);
  }
  return [...names].sort();
}

/**
 * Checks `--var` names (a `BadArgument` {@linkcode WorkflowError} when wrong) and turns values into the type of the file's default for that name
 * (`--var rounds=3` is the number 3 when the file says `rounds: 2`).
 */
export function checkWorkflowVars(
  given: Record<string, WorkflowVarValue>,
  definition: WorkflowDefinition,
): Record<string, WorkflowVarValue> {
  const vars: Record<string, WorkflowVarValue> = {};
  const taken = workflowVarNames(definition);
  for (const [key, value] of Object.entries(given)) {
    if (!VAR_NAME.test(key)) {
      throw new WorkflowError(
        "BadArgument",
        `Cannot use variable "${key}": names are letters, digits and _, not starting with a digit`,
      );
    }
    if (!taken.includes(key)) {
      // A misspelt --var would otherwise be ignored while the default (or nothing) is used.
      throw new WorkflowError(
        "BadArgument",
        `Cannot use variable "${key}": the workflow does not use it (it takes ${
          taken.length === 0 ? "no variables" : taken.map((n) => `"${n}"`).join(", ")
        })`,
      );
    }
    const fallback = definition.vars[key];
    if (typeof value === "string" && typeof fallback === "number") {
      const number = Number(value);
      if (value.trim() === "" || Number.isNaN(number)) {
        throw new WorkflowError(
          "BadArgument",
          `Cannot use variable "${key}": "${value}" is not a number, and the file's default is ${fallback}`,
        );
      }
      vars[key] = number;
    } else if (typeof value === "string" && typeof fallback === "boolean") {
      if (value !== "true" && value !== "false") {
        throw new WorkflowError(
          "BadArgument",
          `Cannot use variable "${key}": "${value}" is not true or false, and the file's default is ${fallback}`,
        );
      }
      vars[key] = value === "true";
    } else {
      vars[key] = value;
    }
  }
  return vars;
}

/**
 * The file's text and hash as it is now, or nulls when it cannot be read: how a session finds
 * out that its file changed or vanished, without failing on it.
 */
export async function readWorkflowSnapshot(
  path: string,
): Promise<{ text: string | null; hash: string | null }> {
  try {
    const text = await Deno.readTextFile(path);
    return { text, hash: hashWorkflowText(text) };
  } catch {
    return { text: null, hash: null };
  }
}

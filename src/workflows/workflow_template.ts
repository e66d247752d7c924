/**
 * Step templates: Handlebars in strict mode without HTML escaping, the comparison and
 * logic helpers, and a static check that finds unknown variables before a workflow starts.
 * @module
 */

import Handlebars from "handlebars";
import { WorkflowError } from "./workflow_error.ts";
import type { WorkflowDefinition, WorkflowVarValue } from "./workflow_file.ts";
import { messageOf } from "../protocol/message_of.ts";

/** The variables every step template sees. */
export interface WorkflowTemplateContext {
  /** 1-based number of the step shown. */
  step: number;
  totalSteps: number;
  /** The loop pass (1-based) of a loop step; null in other steps. */
  loop: number | null;
  /** The loop's `min`, or null in a step without a loop. */
  min: number | null;
  /** The loop's `max`, or null in a step without a loop. */
  max: number | null;
  /** The session name. */
  session: string;
  vars: Record<string, WorkflowVarValue>;
}

/** Which template of a step is meant, for messages. */
export interface WorkflowTemplateSite {
  /** 1-based step number. */
  step: number;
  /** The step's title as written in the file. */
  stepTitle: string;
  field: "title" | "prompt";
}

/** The names a template may use at its top level. */
const CONTEXT_NAMES: ReadonlySet<string> = new Set([
  "step",
  "totalSteps",
  "loop",
  "min",
  "max",
  "session",
  "vars",
]); // deno-fmt-ignore

const OUR_HELPERS = {
  eq: (a: unknown, b: unknown) => a === b,
  ne: (a: unknown, b: unknown) => a !== b,
  lt: (a: unknown, b: unknown) => compare(a, b) < 0,
  gt: (a: unknown, b: unknown) => compare(a, b) > 0,
  lte: (a: unknown, b: unknown) => compare(a, b) <= 0,
  gte: (a: unknown, b: unknown) => compare(a, b) >= 0,
  and: (...args: unknown[]) => args.slice(0, -1).every(Boolean),
  or: (...args: unknown[]) => args.slice(0, -1).some(Boolean),
  not: (value: unknown) => !value,
} as const;

/** Helpers templates may call: ours plus the Handlebars built-ins. */
const HELPER_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(OUR_HELPERS),
  "if",
  "unless",
  "each",
  "with",
  "lookup",
  "log",
]); // deno-fmt-ignore

/** Built-in block helpers that change `this`, so plain names inside them are not checked. */
const CONTEXT_CHANGING: ReadonlySet<string> = new Set(["each", "with"]);

/**
 * Checks a template without running it: it must parse, call only known helpers, use no
 * partials, and name only known variables (`vars.NAME` only for `NAME` in `varNames`). Strict
 * mode alone misses names inside `{{#if}}` and helper arguments, so this walk is what lets
 * `start` refuse a workflow whose step 4 has a typo. Throws `WorkflowError` (`BadTemplate`).
 */
export function checkWorkflowTemplate(
  source: string,
  options: WorkflowTemplateSite & { varNames: readonly string[] },
): void {
  const ast = parseTemplate(source, options);
  const vars = new Set(options.varNames);
  const fail = (what: string, node: hbs.AST.Node) => {
    throw templateError(
      options,
      `${what} (${options.field} line ${node.loc.start.line}, column ${node.loc.start.column + 1})`,
    );
  };
  const checkPath = (path: hbs.AST.PathExpression, scope: Scope) => {
    if (path.data) {
      // `@root.x` is the context; other data (`@index`, `@key`) belongs to the block helpers.
      if (path.parts[0] === "root") checkName(path.parts.slice(1), { node: path, fail, vars });
      return;
    }
    const head = path.parts[0];
    if (head === undefined) return; // `this`
    if (path.depth > 0 || scope.blockParams.has(head) || !scope.rootContext) return;
    checkName(path.parts, { node: path, fail, vars });
  };
  const checkExpression = (node: hbs.AST.Expression, scope: Scope) => {
    if (node.type === "PathExpression") checkPath(node as hbs.AST.PathExpression, scope);
    if (node.type === "SubExpression") checkCall(node as hbs.AST.SubExpression, scope);
  };
  const checkCall = (
    node: hbs.AST.MustacheStatement | hbs.AST.BlockStatement | hbs.AST.SubExpression,
    scope: Scope,
  ) => {
    const callee = node.path;
    const hasArguments = node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0;
    if (callee.type === "PathExpression") {
      const path = callee as hbs.AST.PathExpression;
      const name = path.original;
      if (HELPER_NAMES.has(name)) {
        // a helper call
      } else if (hasArguments || node.type === "SubExpression") {
        fail(`unknown helper "${name}"`, path);
      } else {
        checkPath(path, scope);
      }
    }
    for (const param of node.params) checkExpression(param, scope);
    for (const pair of node.hash?.pairs ?? []) checkExpression(pair.value, scope);
  };
  const walk = (program: hbs.AST.Program | undefined, scope: Scope) => {
    for (const statement of program?.body ?? []) {
      switch (statement.type) {
        case "MustacheStatement":
          checkCall(statement as hbs.AST.MustacheStatement, scope);
          break;
        case "BlockStatement": {
          const block = statement as hbs.AST.BlockStatement;
          checkCall(block, scope);
          const name = block.path.type === "PathExpression"
            ? (block.path as hbs.AST.PathExpression).original
            : "";
          const inner: Scope = {
            rootContext: scope.rootContext && !CONTEXT_CHANGING.has(name) && HELPER_NAMES.has(name),
            blockParams: new Set([...scope.blockParams, ...(block.program?.blockParams ?? [])]),
          };
          walk(block.program, inner);
          walk(block.inverse, scope);
          break;
        }
        case "PartialStatement":
        case "PartialBlockStatement":
          fail("partials are not supported in workflow templates", statement);
          break;
        case "DecoratorBlock":
        case "Decorator":
          fail("decorators are not supported in workflow templates", statement);
          break;
        default:
          break;
      }
    }
  };
  walk(ast, { rootContext: true, blockParams: new Set() });
}

/**
 * Checks every step's title and prompt of `definition` with {@linkcode checkWorkflowTemplate},
 * so `start` refuses a workflow whose late step has a typo before anything is recorded.
 */
export function checkWorkflowTemplates(
  definition: WorkflowDefinition,
  vars: Record<string, WorkflowVarValue>,
): void {
  const varNames = Object.keys(vars);
  definition.steps.forEach((step, index) => {
    const site = { step: index + 1, stepTitle: step.title, varNames };
    checkWorkflowTemplate(step.title, { ...site, field: "title" });
    checkWorkflowTemplate(step.prompt, { ...site, field: "prompt" });
  });
}

/**
 * Renders one step template. Unknown variables and helpers are errors naming the variable and
 * the step, never an empty string in the prompt.
 */
export function renderWorkflowTemplate(
  source: string,
  context: WorkflowTemplateContext,
  site: WorkflowTemplateSite,
): string {
  checkWorkflowTemplate(source, { ...site, varNames: Object.keys(context.vars) });
  const env = Handlebars.create();
  env.registerHelper(OUR_HELPERS);
  try {
    return env.compile(source, { strict: true, noEscape: true })(
      context,
    );
  } catch (error) {
    const message = messageOf(error);
    const missing = /^"([^"]+)" not defined/.exec(message);
    throw templateError(
      site,
      missing ? `unknown variable "${missing[1]}"` : message.split("\n")[0] ?? message,
      { cause: error },
    );
  }
}

interface Scope {
  /** `this` is still the template context (not inside `#each`/`#with`). */
  rootContext: boolean;
  blockParams: Set<string>;
}

function checkName(
  parts: readonly string[],
  options: {
    node: hbs.AST.Node;
    fail: (what: string, node: hbs.AST.Node) => never;
    vars: ReadonlySet<string>;
  },
): void {
  const { node, fail, vars } = options;
  const [head, second] = parts;
  if (head === undefined) return;
  const full = parts.join(".");
  if (!CONTEXT_NAMES.has(head)) {
    fail(
      `unknown variable "${full}" (known: ${[...CONTEXT_NAMES].join(", ")}; vars.NAME for vars)`,
      node,
    );
  }
  if (head === "vars") {
    if (second !== undefined && !vars.has(second)) {
      const known = vars.size === 0 ? "none given" : [...vars].join(", ");
      fail(
        `unknown variable "${full}" (vars known: ${known}; give it with --var ${second}=VALUE or under vars: in the file)`,
        node,
      );
    }
    if (parts.length > 2) fail(`unknown variable "${full}": vars hold plain values`, node);
  } else if (parts.length > 1) {
    fail(`unknown variable "${full}": "${head}" is a plain value`, node);
  }
}

function parseTemplate(source: string, site: WorkflowTemplateSite): hbs.AST.Program {
  try {
    return Handlebars.parse(source);
  } catch (error) {
    const message = messageOf(error);
    const lines = message.split("\n");
    const expecting = lines.find((line) => line.startsWith("Expecting")) ?? "";
    const got = /got '([^']+)'/.exec(expecting)?.[1];
    throw templateError(
      site,
      `${(lines[0] ?? message).replace(/:$/, "")}${
        got === undefined
          ? ""
          : `: unexpected ${got === "EOF" ? "end of template (a block is not closed)" : got}`
      }`,
      { cause: error },
    );
  }
}

function templateError(
  site: WorkflowTemplateSite,
  what: string,
  options: { cause?: unknown } = {},
): WorkflowError {
  return new WorkflowError(
    "BadTemplate",
    `Cannot render step ${site.step} "${site.stepTitle}" (${site.field}): ${what}`,
    options.cause === undefined ? {} : { cause: options.cause },
  );
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = Number(a);
  const y = Number(b);
  if (!Number.isNaN(x) && !Number.isNaN(y) && a !== null && b !== null && a !== "" && b !== "") {
    return x - y;
  }
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

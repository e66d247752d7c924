/**
 * Adds the fix to a run's failure after it is classified: the knob behind a limit,
 * the line a thrown non-Error came from, what a `ReferenceError` meant (`True`, `kv.get`
 * without `tools.`, a hyphenated tool name), and permission advice that agrees with
 * `exec.maxPermissions`. Pure: the run's facts in, a better `RunError` out.
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import { FOREIGN_NAMES } from "./check_hints.ts";
import { requireAdvice } from "./shape_hints.ts";
import { explainValueError } from "./value_error_hints.ts";
import type { PermissionSet } from "../config/gateway_config.ts";
import { permissionsBeyond } from "../config/permission_flags.ts";
import type { ToolMap } from "../protocol/channel_messages.ts";
import type { RunError } from "../protocol/run_document.ts";

/** The facts about a run its failure is explained with. */
export interface RunErrorContext {
  /** The script as the author wrote it. */
  source: string;
  toolMap: ToolMap;
  limits: { timeoutMs: number; callTimeoutMs: number; maxToolCalls: number; maxMemoryMb: number };
  /** `exec.maxPermissions`, with relative paths against `configDir`. */
  ceiling: PermissionSet;
  configDir: string | null;
  /** The run's working directory: a relative path the script used resolves against it. */
  cwd: string;
  /**
   * Where the script can wait without a tool call (non-tool awaits, loops without `await`),
   * from its syntax tree: a timeout with exactly one names its line.
   */
  stallLines?: readonly number[];
  /** The top-level fields of a tool's output, for an object used as an array. */
  outputFields?: (namespace: string, tool: string) => string[] | null;
}

/**
 * Replaces the run's scratch paths (where the runner put the script) in a failure's message:
 * they are the gateway's business. The script becomes "the script"; a path beside it (a
 * relative import) becomes `./name`, and is explained: a snippet has no directory of its own.
 */
export function withoutRunPaths(
  error: RunError,
  run: { scriptPath: string; dir: string },
): RunError {
  const relative = error.kind === "PermissionDenied" &&
    error.message.includes(`${run.dir}/`) && !error.message.includes(run.scriptPath);
  const message = error.message
    .replace(/\n\s+at (?:file:\/\/)?\S+:\d+:\d+/g, "")
    .replaceAll(`file://${run.scriptPath}`, "the script")
    .replaceAll(run.scriptPath, "the script")
    .replaceAll(`file://${run.dir}/`, "./")
    .replaceAll(`${run.dir}/`, "./");
  if (!relative) return { ...error, message };
  const target = /access to "?(\.\/[^\s",;]+)/.exec(message)?.[1] ?? "a relative path";
  const { hint: _hint, ...rest } = error;
  return {
    ...rest,
    kind: "ScriptError",
    message: `Cannot import "${target}": a snippet has no directory of its own, so relative ` +
      "imports find nothing; inline that code in the script, or import it by absolute path " +
      "(with --allow-read=PATH)",
  };
}

/**
 * A module that V8 could not parse fails at import with "SyntaxError: … at the script:L:C":
 * that is a `SyntaxError` of the script at that line, like the ones found before the run.
 */
export function asModuleSyntaxError(error: RunError): RunError {
  if (error.kind !== "ScriptError") return error;
  const parse = /^SyntaxError: (.*) at the script:(\d+):(\d+)$/s.exec(error.message);
  if (parse === null) return error;
  return {
    kind: "SyntaxError",
    message: `${parse[1]}: fix line ${parse[2]} of the script`,
    line: Number(parse[2]),
    column: Number(parse[3]),
  };
}

/** Returns `error` with its hint added to the message (and a line when one can be found). */
export function explainRunError(error: RunError, context: RunErrorContext): RunError {
  switch (error.kind) {
    case "Timeout":
      return withLoopLine(error, context, {
        fix: `raise it with --timeout MS (or timeoutMs over RPC, exec.timeoutMs in gateway.json) ` +
          "or do less per run",
      });
    case "MemoryLimit":
      return withLoopLine(error, context, {
        fix: `raise exec.maxMemoryMb (now ${context.limits.maxMemoryMb} MB; maxMemoryMb over ` +
          "RPC) or keep less in memory (page through the data)",
      });
    case "ToolTimeout":
      return appendFix(
        error,
        `raise exec.callTimeoutMs (now ${context.limits.callTimeoutMs} ms; callTimeoutMs over ` +
          "RPC) or ask the tool for less",
      );
    case "ToolCallLimitExceeded":
      return appendFix(
        error,
        "batch the work into fewer calls, split it over several runs, or raise " +
          "exec.maxToolCalls (maxToolCalls over RPC)",
      );
    case "PermissionDenied":
      return explainPermission(error, context);
    case "PermissionRefused":
      return appendFix(error, `exec.maxPermissions allows: ${describeCeiling(context.ceiling)}`);
    case "ScriptError":
      return explainScriptError(error, context);
    default:
      return error;
  }
}

function appendFix(error: RunError, fix: string): RunError {
  if (error.message.includes(fix)) return error;
  return { ...error, message: `${error.message.replace(/[.\s]+$/, "")}; ${fix}` };
}

/**
 * A run stopped from outside (timeout, memory) has no stack. With no tool call in flight (that
 * call's line was given already) it was at one of the script's stall points: named when there
 * is exactly one, else the one endless-looking loop (`while (true)`, `for (;;)`), where such
 * runs are nearly always stuck.
 */
function withLoopLine(
  error: RunError,
  context: RunErrorContext,
  options: { fix: string },
): RunError {
  const explained = appendFix(error, options.fix);
  if (explained.line !== undefined) return explained;
  const texts = context.source.split(/\r?\n/);
  const endless = texts.flatMap((text, index) =>
    /\bwhile\s*\(\s*(true|1)\s*\)|\bfor\s*\(\s*;\s*;\s*\)/.test(text) ? [index + 1] : []
  );
  const stalls = context.stallLines ?? [];
  const line = stalls.length === 1 ? stalls[0]! : endless.length === 1 ? endless[0]! : undefined;
  if (line === undefined) return explained;
  const what = /\bawait\b/.test(texts[line - 1] ?? "")
    ? `it was waiting at line ${line}`
    : `it was still running the loop at line ${line}`;
  return { ...explained, message: `${explained.message} (${what})`, line };
}

function explainScriptError(error: RunError, context: RunErrorContext): RunError {
  if (error.message.startsWith("TypeError: ")) {
    const fix = explainValueError(error.message, error.line, context);
    return fix === null ? error : appendFix(error, fix);
  }
  const reference = /^ReferenceError: ([\w$]+) is not defined/.exec(error.message);
  if (reference) {
    const name = reference[1]!;
    const fix = explainUndefinedName(name, context);
    return fix === null ? error : appendFix(error, fix);
  }
  if (/^Error: Uncaught /.test(error.message) && error.line === undefined) {
    return withThrowLine(error, context.source);
  }
  return error;
}

function explainUndefinedName(name: string, context: RunErrorContext): string | null {
  if (name === "require") {
    const module = /\brequire\s*\(\s*["'`]([^"'`]+)["'`]/.exec(context.source)?.[1] ?? null;
    return requireAdvice(module, Object.keys(context.toolMap));
  }
  const foreign = FOREIGN_NAMES[name];
  if (foreign !== undefined) return `JavaScript writes ${foreign}, not ${name}`;
  if (name in context.toolMap) {
    return `"${name}" is a namespace: call its tools through \`tools\`, as tools.${name}.TOOL(…)`;
  }
  // `tools.ns.get-env()` runs as `tools.ns.get - env()`: `env` is what is not defined.
  const hyphen = new RegExp(`tools\\.([\\w$]+)\\.([\\w$-]*-${name}\\b[\\w-]*)`).exec(
    context.source,
  );
  if (hyphen) {
    const [, namespace, original] = hyphen;
    const identifier = Object.entries(context.toolMap[namespace!]?.tools ?? {})
      .find(([, orig]) => orig === original)?.[0];
    return `"${original}" is not an identifier, so tools.${namespace}.${original} subtracts: write ` +
      `${identifier ? `tools.${namespace}.${identifier}(…) or ` : ""}` +
      `tools.${namespace}[${JSON.stringify(original)}](…)`;
  }
  return null;
}

/**
 * A thrown string or plain object has no stack. Its line is found in the source: the one
 * `throw` that is not `throw new …`, or the one whose text holds the thrown value.
 */
function withThrowLine(error: RunError, source: string): RunError {
  const thrown = error.message.replace(/^Error: Uncaught /, "");
  const candidates = source.split(/\r?\n/).flatMap((text, index) =>
    /\bthrow\s+(?!new\b)/.test(text) ? [{ line: index + 1, text }] : []
  );
  const matching = candidates.filter((c) => {
    const literal = /\bthrow\s+(["'`])(.*)\1/.exec(c.text);
    return literal !== null && thrown.startsWith(literal[2]!.slice(0, 20));
  });
  const found = matching.length === 1
    ? matching[0]
    : candidates.length === 1
    ? candidates[0]
    : undefined;
  const fix = "throw new Error(…) instead of a bare value, so the failure carries a stack";
  const explained = appendFix({ ...error, message: `Uncaught value thrown: ${thrown}` }, fix);
  return found === undefined ? explained : { ...explained, line: found.line, column: 1 };
}

function explainPermission(error: RunError, context: RunErrorContext): RunError {
  const name = error.hint;
  if (name === "import") {
    const net = context.ceiling.net;
    if (net === true || (Array.isArray(net) && net.length > 0)) return error;
    return appendFix(
      error,
      "exec.maxPermissions.net allows no host, so such a grant would be refused: add the host " +
        "(true for npm: imports) to exec.maxPermissions.net in gateway.json first, or inline the code",
    );
  }
  if (name === undefined || name === "unknown") return error;
  const target = /access to ("[^"]*"|[^\s,;]+)/.exec(error.message)?.[1]?.replace(/^"|"$/g, "");
  const path = target !== undefined && (name === "read" || name === "write") && !isAbsolute(target)
    ? resolve(context.cwd, target)
    : target;
  const request: PermissionSet = { [name]: path === undefined ? true : [path] };
  const ceiling = resolveCeiling(context.ceiling, context.configDir);
  if (permissionsBeyond(request, ceiling).length === 0) return error;
  // The flag the message advises would be refused: say what to change in the config instead.
  const entry = target === undefined ? "true" : JSON.stringify(target);
  return {
    ...error,
    message: `Permission denied: ${name} access${
      target === undefined ? "" : ` to "${target}"`
    } is not granted to this run, and exec.maxPermissions does not allow it (allowed: ${
      describeCeiling(context.ceiling)
    }): add ${entry} to exec.maxPermissions.${name} in gateway.json (then ask with --allow-${name}${
      target === undefined ? "" : `=${target}`
    }), or do without it`,
  };
}

function resolveCeiling(ceiling: PermissionSet, configDir: string | null): PermissionSet {
  const out: PermissionSet = { ...ceiling };
  for (const key of ["read", "write"] as const) {
    const paths = ceiling[key];
    if (!Array.isArray(paths)) continue;
    out[key] = paths.flatMap((p) =>
      isAbsolute(p) ? [p] : configDir === null ? [] : [resolve(configDir, p)]
    );
  }
  return out;
}

function describeCeiling(ceiling: PermissionSet): string {
  const parts = Object.entries(ceiling).flatMap(([name, value]) =>
    value === true
      ? [`${name} (any)`]
      : Array.isArray(value) && value.length > 0
      ? [`${name} ${value.join(", ")}`]
      : []
  );
  return parts.length === 0
    ? "nothing (the sandbox has no file, network or env access)"
    : parts.join("; ");
}

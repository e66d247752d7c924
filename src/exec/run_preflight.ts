/**
 * Everything a run must pass before a runner process is spent on it: the source size limit,
 * the permission decision against `exec.maxPermissions`, parsing (with the snippet's result
 * capture), the wait for the namespaces the script uses, and the type check.
 * A refusal here is a typed failure, answered and recorded like any other.
 * @module
 */

import type { ExecConfig, PermissionSet } from "../config/gateway_config.ts";
import type { Diagnostic, RunError } from "../protocol/run_document.ts";
import type { RunTrace } from "../telemetry/gateway_telemetry.ts";
import { decidePermissions } from "./run_permissions.ts";
import type { RunRequest } from "./run_request.ts";
import { type ScriptUsage, USES_EVERYTHING } from "./script_analysis.ts";
import type { PreparedScript, PrepareScriptResult } from "./script_transform.ts";
import type { RunWaitReason } from "../protocol/run_waiting.ts";

/** What preflight needs from the rest of the gateway. */
export interface PreflightDeps {
  exec: ExecConfig;
  /** The root holding `gateway.json`, against which relative permission paths resolve. */
  configDir: string | null;
  /** Directories no run is granted, whatever it asks (the data dir). */
  deniedPaths: readonly string[];
  /** Parses the script and, for snippets, wraps its last expression (off the event loop). */
  prepare(source: string, inline: boolean): Promise<PrepareScriptResult>;
  /**
   * Resolves when the namespaces the script uses (`usage`, from its AST) have finished
   * starting (bounded).
   */
  catalogueReady(source: string, usage: ScriptUsage): Promise<void>;
  /** Type-checks the prepared script; diagnostics point at the script's own lines. */
  check(prepared: PreparedScript): Promise<Diagnostic[]>;
  /**
   * Whether the type checker is up and warm (a check waits for no start-up); absent = always.
   * A typed run finding it cold starts it at once (`startChecker`) and says so when the wait
   * is long enough to notice (`request.onWait`).
   */
  checkerWarm?: () => boolean;
  /** Starts the type checker's warm-up without waiting for it. */
  startChecker?: () => void;
  trace: RunTrace;
}

/** A run cleared to start, or the failure that ends it before it starts. */
export type Preflight =
  | {
    ok: true;
    prepared: PreparedScript;
    permissions: PermissionSet;
    /** True when the script was type-checked (its calls' arguments then need no check). */
    typeChecked: boolean;
    warnings: string[];
  }
  | { ok: false; error: RunError; warnings: string[] };

/** Runs the checks in order; the first that fails ends the run (see the module doc). */
export async function preflight(request: RunRequest, deps: PreflightDeps): Promise<Preflight> {
  const { exec } = deps;
  const warnings: string[] = [];
  const fail = (error: RunError): Preflight => ({ ok: false, error, warnings });
  if (new TextEncoder().encode(request.source).length > exec.maxSourceBytes) {
    return fail({
      kind: "ScriptError",
      message: `Script is larger than exec.maxSourceBytes (${exec.maxSourceBytes} bytes): ` +
        `shorten it or raise the limit in gateway.json`,
    });
  }
  const decision = decidePermissions(request.permissions, {
    defaults: exec.permissions,
    ceiling: exec.maxPermissions,
    cwd: request.cwd,
    configDir: deps.configDir,
    protectedPaths: deps.deniedPaths,
  });
  if (!decision.ok) return fail({ kind: "PermissionRefused", message: decision.message });
  const typeChecked = request.check ?? exec.typecheck;
  // A cold checker starts warming now, beside the parsing and the wait for namespaces.
  const coldChecker = typeChecked && deps.checkerWarm?.() === false;
  if (coldChecker) deps.startChecker?.();
  const prepared = await deps.prepare(request.source, request.inline);
  if (prepared.kind === "SyntaxError") {
    return fail({
      kind: "SyntaxError",
      message: prepared.message,
      line: prepared.line,
      column: prepared.column,
    });
  }
  warnings.push(...prepared.warnings ?? []);
  await deps.catalogueReady(request.source, prepared.usage ?? USES_EVERYTHING);
  if (typeChecked) {
    let diagnostics: Diagnostic[];
    const waited = coldChecker && deps.checkerWarm?.() === false
      ? announceWait(request, "typeChecker")
      : null;
    try {
      diagnostics = await deps.trace.step("gateway.typecheck", () => deps.check(prepared));
    } catch (error) {
      return fail({
        kind: "CheckFailed",
        message: `The type checker is unavailable (${
          (error as Error).message
        }): run with --no-check`,
      });
    } finally {
      waited?.();
    }
    if (diagnostics.length > 0) {
      const first = diagnostics[0]!;
      return fail({
        kind: "CheckFailed",
        message: `Type check failed (${diagnostics.length} error${
          diagnostics.length === 1 ? "" : "s"
        }); line ${first.line}:${first.column}: ${first.message}`,
        line: first.line,
        column: first.column,
        diagnostics,
      });
    }
  }
  return { ok: true, prepared, permissions: decision.permissions, typeChecked, warnings };
}

/**
 * A wait is told to the caller only once it has lasted this long: a check answered from
 * memory, or a checker that was nearly warm, makes no line flash on a terminal.
 */
const ANNOUNCE_WAIT_AFTER_MS = 150;

/**
 * Tells the run's caller (if it asked) that the run waits for `on` once the wait has lasted
 * {@linkcode ANNOUNCE_WAIT_AFTER_MS}; the returned function ends the wait (and says so when it
 * was told).
 */
function announceWait(request: RunRequest, on: RunWaitReason): (() => void) | null {
  const onWait = request.onWait;
  if (onWait === undefined) return null;
  const began = performance.now();
  let told = false;
  const timer = setTimeout(() => {
    told = true;
    onWait({ on, phase: "start" });
  }, ANNOUNCE_WAIT_AFTER_MS);
  return () => {
    clearTimeout(timer);
    if (told) onWait({ on, phase: "done", ms: Math.round(performance.now() - began) });
  };
}

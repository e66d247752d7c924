/**
 * How a run ended, in the words of the run document: the runner's report, the process's exit
 * status and why the gateway stopped it become one failure kind with a message.
 * @module
 */

import type { ScriptFailure } from "../protocol/channel_messages.ts";
import { type FailureKind, isFailureKind, type RunError } from "../protocol/run_document.ts";

const PERMISSION_PATTERN = /Requires (\w+) access(?: to ("[^"]*"|[^\s,]+))?/;
const REMOTE_IMPORT_PATTERN = /--no-remote is specified|--no-npm is specified|remote specifier/;

/** Turns how the runner ended into a failure (or null for success). */
export function classifyRunEnd(input: {
  ending: { kind: FailureKind; message: string } | null;
  failure: ScriptFailure | null;
  status: Deno.CommandStatus;
  stderr: string;
  connected: boolean;
}): RunError | null {
  const { ending, failure, status } = input;
  if (ending && ending.kind !== "Crashed") return { kind: ending.kind, message: ending.message };
  if (
    status.code === 133 || status.signal === "SIGTRAP" ||
    /out of memory|Reached heap limit/i.test(input.stderr)
  ) {
    return {
      kind: "MemoryLimit",
      message: "Run exceeded its memory limit (JavaScript heap) and was stopped",
    };
  }
  if (failure) {
    const at = {
      ...(failure.line !== undefined ? { line: failure.line } : {}),
      ...(failure.column !== undefined ? { column: failure.column } : {}),
    };
    if (failure.tool) {
      const kind = isFailureKind(failure.tool.kind) ? failure.tool.kind : "ToolError";
      return {
        kind,
        message: failure.tool.message,
        ...(failure.tool.namespace ? { namespace: failure.tool.namespace } : {}),
        ...(failure.tool.tool ? { tool: failure.tool.tool } : {}),
        ...at,
      };
    }
    const permission = PERMISSION_PATTERN.exec(failure.message);
    if (permission?.[1] === "import") {
      return {
        kind: "PermissionDenied",
        message: `Permission denied: import from ${permission[2]} is not granted to this run; ` +
          `remote imports come only from the hosts granted with --allow-net (within ` +
          `exec.maxPermissions)`,
        hint: "import",
        ...at,
      };
    }
    if (permission || failure.name === "NotCapable" || failure.name === "PermissionDenied") {
      const name = permission?.[1] ?? "unknown";
      const target = permission?.[2] ?? "";
      return {
        kind: "PermissionDenied",
        message:
          `Permission denied: ${name} access${
            target ? ` to ${target}` : ""
          } is not granted to this run; ` +
          `ask for it with --allow-${name}${target ? `=${target.replace(/^"|"$/g, "")}` : ""}` +
          ` (within exec.maxPermissions)`,
        hint: name,
        ...at,
      };
    }
    if (REMOTE_IMPORT_PATTERN.test(failure.message)) {
      return {
        kind: "PermissionDenied",
        message:
          `Permission denied: remote and npm imports are off in the sandbox (${failure.message}); ` +
          `remote imports need --allow-net with their host, npm: imports unrestricted --allow-net`,
        hint: "import",
        ...at,
      };
    }
    return { kind: "ScriptError", message: `${failure.name}: ${failure.message}`, ...at };
  }
  if (ending) return { kind: ending.kind, message: ending.message };
  if (status.success) return null;
  if (status.signal) {
    return {
      kind: "Crashed",
      message: `The runner was killed by ${status.signal}${tail(input.stderr)}`,
    };
  }
  if (!input.connected) {
    return {
      kind: "Crashed",
      message: `The runner exited with code ${status.code} before connecting${tail(input.stderr)}`,
    };
  }
  return { kind: "ScriptError", message: `Script exited with code ${status.code}` };
}

function tail(stderr: string): string {
  const last = stderr.trim().split("\n").slice(-3).join(" | ");
  return last ? `: ${last}` : "";
}

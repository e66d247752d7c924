/**
 * The error a tool module that cannot be served fails with: which file, which line, and why.
 * Its message is what `gateway tools` shows as the namespace's status reason.
 * @module
 */

/**
 * A tool module could not be loaded (syntax error, an export with 2+ parameters, a throw or hang
 * at import). Caught by {@linkcode LocalNamespace}, which turns it into a `failed` status.
 *
 * @example
 * ```ts
 * import { ToolModuleLoadError } from "./tool_module_load_error.ts";
 * import assert from "node:assert/strict";
 * const reason = `export "f" takes 2 parameters`;
 * const error = new ToolModuleLoadError("tools/x.ts", reason, { line: 12 });
 * assert.equal(error.message, 'Cannot load tool module "tools/x.ts": export "f" takes 2 parameters (line 12)');
 * ```
 */
export class ToolModuleLoadError extends Error {
  /** The module as users see it, e.g. `tools/kv.ts`. */
  readonly file: string;
  /** What went wrong, without the file prefix. */
  readonly reason: string;
  /** 1-based line in the module, when known. */
  readonly line: number | undefined;

  constructor(file: string, reason: string, options?: { line?: number; cause?: unknown }) {
    const at = options?.line === undefined ? "" : ` (line ${options.line})`;
    super(
      `Cannot load tool module "${file}": ${reason}${at}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "ToolModuleLoadError";
    this.file = file;
    this.reason = reason;
    this.line = options?.line;
  }
}

/**
 * What a failed or progressing tool call looks like to everyone who handles one: namespaces
 * throw {@linkcode ToolCallError}, the script runner and the server read it. Kept below both,
 * so neither imports the other for it.
 * @module
 */

import type { FailureKind } from "./run_document.ts";

/** The untouched result envelope of a call (MCP `CallToolResult` shape). */
export interface RawToolResult {
  content: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** A JSON-RPC error as an upstream sent it. */
export interface UpstreamRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** Progress an upstream reported for a call in flight. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * A failed call, with the failure kind the run document will carry. Thrown by namespaces; the
 * router turns it into `ToolError`/`ToolTimeout`/… for the script.
 */
export class ToolCallError extends Error {
  /** Which failure kind this is, e.g. `ToolError` or `NamespaceUnavailable`. */
  readonly kind: FailureKind;
  /** The envelope when the tool answered with `isError`. */
  readonly raw: RawToolResult | undefined;
  /**
   * The upstream's own JSON-RPC error when it refused the request: a host the namespace is
   * served to as itself gets that error as it is.
   */
  readonly upstreamError: UpstreamRpcError | undefined;
  constructor(
    kind: FailureKind,
    message: string,
    options?: { raw?: RawToolResult; cause?: unknown; upstreamError?: UpstreamRpcError },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolCallError";
    this.kind = kind;
    this.raw = options?.raw;
    this.upstreamError = options?.upstreamError;
  }
}

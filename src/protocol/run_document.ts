/**
 * The run document: the one JSON shape every run answers with, over the CLI,
 * WebSocket RPC, HTTP and MCP. Shared by server, client and the runner's reporting.
 * @module
 */

/** Every way a run can fail; `error.kind` of the run document. Callers branch on these names. */
export const FAILURE_KINDS = [
  "CheckFailed",
  "SyntaxError",
  "ScriptError",
  "ToolError",
  "UnknownTool",
  "InvalidToolInput",
  "ToolTimeout",
  "Timeout",
  "ToolCallLimitExceeded",
  "PermissionDenied",
  "PermissionRefused",
  "NamespaceUnavailable",
  "PolicyDenied",
  "MemoryLimit",
  "Cancelled",
  "Crashed",
] as const;

/** One of {@linkcode FAILURE_KINDS}. */
export type FailureKind = typeof FAILURE_KINDS[number];

/** Tells whether a string names a failure kind, so wire data can be narrowed without a cast. */
export function isFailureKind(value: unknown): value is FailureKind {
  return typeof value === "string" && (FAILURE_KINDS as readonly string[]).includes(value);
}

/** A type-check diagnostic pointing at the script's own lines (1-based). */
export interface Diagnostic {
  message: string;
  line: number;
  column: number;
  code?: number;
}

/** Why a run failed: enough for a model to fix its script without a second look-up. */
export interface RunError {
  kind: FailureKind;
  message: string;
  namespace?: string;
  tool?: string;
  line?: number;
  column?: number;
  diagnostics?: Diagnostic[];
  /** Nearest names for `UnknownTool`, the permission for `PermissionDenied`, … */
  hint?: string;
}

/** A media block a script handed to its caller with `attach()` (an MCP content block). */
export type Attachment =
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: Record<string, unknown> }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string };

/** The answer to every run. `error` is present exactly when `ok` is false. */
export interface RunDocument {
  runId: string;
  ok: boolean;
  result?: unknown;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  durationMs: number;
  toolCalls: number;
  stdoutTruncated: boolean;
  /** Set when `result` is a notice plus the head of a result too large to return whole. */
  resultTruncated?: boolean;
  warnings: string[];
  attachments: Attachment[];
  error?: RunError;
  /** "failed" when the history write did not commit; the run itself still stands. */
  history?: "saved" | "failed";
  /**
   * In a `wait` answer: how many characters at the start of `stdout` a yielded answer of this
   * run already delivered, so `gateway wait` prints only the rest.
   */
  stdoutYielded?: number;
}

/** What a yielded run answers while it is still going (`yieldAfterMs`). */
export interface RunningDocument {
  status: "running";
  runId: string;
  stdout: string;
}

/**
 * What `ToolHost` needs from the thing that runs its module: a host process of its own
 * (`ToolHostProcess`, the isolated mode) or a Worker in the shared host (`SharedToolHosts`).
 * @module
 */

import type { CallTicket, PendingCall } from "./module_calls.ts";

/** One loaded module, in a process of its own or in a Worker; never outlives what runs it. */
export interface ToolHostConnection {
  /** Process id of the host process (shared by every Worker of the shared host). */
  readonly pid: number;
  /** Function exports once imported; rejects with `ToolModuleLoadError`. */
  readonly ready: Promise<string[]>;
  /** Settles when the module's runtime is gone; never rejects. */
  readonly closed: Promise<unknown>;
  /** How it ended (`exited with code 3`), once `closed` settled. */
  readonly endReason: string;
  /** True when the module runs in a process of its own (its memory can be watched). */
  readonly isolated: boolean;
  /** The pid whose resident memory is the module's runtime's, or null when it is gone. */
  memoryPid(): number | null;
  /**
   * Sends a call; `answer` gets the tool's value, or a `ToolCallError` (the tool's own, or why
   * the runtime could not answer: it died or was retired first), never in the same turn as
   * the call: a caller may set up after it. The ticket tells whether it still waits and asks
   * the module to abort it.
   */
  call(tool: string, args: unknown, answer: PendingCall): CallTicket;
  /** Fails every pending and later call with `NamespaceUnavailable` and `message`. */
  retire(message: string): void;
  /** Resolves when no call is pending any more, or after `maxMs`. */
  drained(maxMs: number): Promise<void>;
  /** Ends the module's runtime; pending calls fail with `message`. */
  stop(graceMs: number, message: string): Promise<void>;
}

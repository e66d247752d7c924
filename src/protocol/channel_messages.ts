/**
 * Messages on the per-run channel between a script's runner subprocess and the gateway:
 * newline-delimited JSON over a unix socket. The runner imports only this module and what it
 * names (the discovery data a run carries).
 * @module
 */

import type { DiscoveryData } from "./discovery_data.ts";

export type { DiscoveryData };

/** Identifier maps the runner builds `tools` from: identifier → original name. */
export interface ToolMap {
  [namespaceIdentifier: string]: { name: string; tools: { [toolIdentifier: string]: string } };
}

/** The gateway's answer to `hello`: the run to execute. */
export interface RunMessage {
  t: "run";
  runId: string;
  /** Absolute path of the script file the runner may read. */
  scriptPath: string;
  args: string[];
  stdin: string;
  toolMap: ToolMap;
  /** Name of the global the transformed snippet calls with its last expression. */
  resultHook: string;
  /** Catalogue snapshot for synchronous `search()`/`describe()`, when the script uses them. */
  discovery?: DiscoveryData;
  /**
   * The runner may end the process with `Deno.exit` after the last `unload` listener, skipping
   * the runtime's teardown: set only for a script that cannot have hooked Node's `process`
   * `exit` event, which `Deno.exit` does not emit (see `run_supervision.ts`).
   */
  exitAtEnd?: boolean;
}

/** A failure reported by the gateway for a call, as the script's `ToolError` sees it. */
export interface ChannelError {
  kind: string;
  message: string;
  namespace?: string;
  tool?: string;
}

/** Gateway → runner. */
export type GatewayToRunner =
  | RunMessage
  | { t: "reply"; id: number; ok: true; value: unknown }
  | { t: "reply"; id: number; ok: false; error: ChannelError; raw?: unknown }
  | { t: "refused"; message: string }
  /**
   * Asks for the script line of call `id`, which has waited a while: finding a line formats a
   * stack, which costs more than a whole fast call, so only calls that wait are located.
   */
  | { t: "locate"; id: number };

/** Where an uncaught script error happened, as the runner read it from the stack. */
export interface ScriptFailure {
  name: string;
  message: string;
  stack?: string;
  line?: number;
  column?: number;
  /** Set when the error was a `ToolError` the script did not catch. */
  tool?: ChannelError;
}

/** Runner → gateway. */
export type RunnerToGateway =
  | { t: "hello"; token: string }
  | {
    t: "call";
    id: number;
    namespace: string;
    tool: string;
    args: unknown;
    raw: boolean;
    /** The script's line making the call, so a run stopped while waiting can name it. */
    line?: number;
  }
  /** The script's line of call `id`, the answer to `locate`. */
  | { t: "call_line"; id: number; line: number }
  | { t: "resources"; id: number; namespace: string; op: "list" | "read"; uri?: string }
  | { t: "result"; value: unknown }
  | { t: "attach"; block: unknown }
  | { t: "warning"; message: string }
  | { t: "failed"; error: ScriptFailure }
  /**
   * The runner's last line, written as its process exits: every message of the run is before
   * it, so the gateway need not wait for the socket's end (issue 12).
   */
  | { t: "end" };

/**
 * Longest line either side accepts; longer ones close the channel (guards memory). What a run
 * hands back (result, attachments, warnings) is capped again, far lower, by the gateway.
 */
export const MAX_CHANNEL_LINE_BYTES = 16 * 1024 * 1024;

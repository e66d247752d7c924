/**
 * What a script's runner subprocess and the gateway say to each other on the run's channel (a
 * unix socket, spoken through a `MessagePeer` at both ends): the methods and their params. The
 * runner imports only this module, the peer, and what they name (the discovery data a run
 * carries).
 *
 * Runner → gateway: `hello` (its one-time token; the first message), requests `call` and
 * `resources` (answered with the value, or an error whose `data` is {@linkcode CallErrorData}),
 * notifications `call_line`, `result`, `attach`, `warning`, `failed`, and `$/end` as its
 * process exits. Gateway → runner: `run` (the run to execute), `refused` (a wrong token),
 * `locate` (asks for the script line of a call that has waited).
 * @module
 */

import type { DiscoveryData } from "./discovery_data.ts";

export type { DiscoveryData };

/** Identifier maps the runner builds `tools` from: identifier → original name. */
export interface ToolMap {
  [namespaceIdentifier: string]: { name: string; tools: { [toolIdentifier: string]: string } };
}

/** The method names of the channel (see the module doc). */
export const ChannelMethod = {
  hello: "hello",
  run: "run",
  refused: "refused",
  call: "call",
  resources: "resources",
  locate: "locate",
  callLine: "call_line",
  result: "result",
  attach: "attach",
  warning: "warning",
  failed: "failed",
} as const;

/** Params of `hello`: the runner's one-time token. */
export interface HelloParams {
  token: string;
}

/** Params of `run`: the run to execute. */
export interface RunMessage {
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

/** Params of `call`: one tool call of the script. */
export interface CallParams {
  namespace: string;
  tool: string;
  args: unknown;
  raw: boolean;
  /** The script's line making the call, so a run stopped while waiting can name it. */
  line?: number;
}

/** Params of `resources`: `resources.list(ns)` or `resources.read(ns, uri)`. */
export interface ResourcesParams {
  namespace: string;
  op: "list" | "read";
  uri?: string;
}

/**
 * Params of `locate` (gateway → runner): asks for the script line of request `id`, which has
 * waited a while. Finding a line formats a stack, which costs more than a whole fast call, so
 * only calls that wait are located; the runner answers with `call_line`.
 */
export interface LocateParams {
  id: number;
}

/** Params of `call_line`: the script line of call `id`. */
export interface CallLineParams {
  id: number;
  line: number;
}

/** A failure reported by the gateway for a call, as the script's `ToolError` sees it. */
export interface ChannelError {
  kind: string;
  message: string;
  namespace?: string;
  tool?: string;
}

/** The `data` of a failed call's error: its kind, where, and the tool's own envelope. */
export interface CallErrorData {
  kind: string;
  namespace?: string;
  tool?: string;
  /** The untouched tool result of a failure the tool reported (`isError`). */
  raw?: unknown;
}

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

/**
 * Longest message either side accepts; a longer one closes the channel (guards memory). What a
 * run hands back (result, attachments, warnings) is capped again, far lower, by the gateway.
 */
export const MAX_CHANNEL_LINE_BYTES = 16 * 1024 * 1024;

/** What the channel's limit is called in the error of a message too large to send. */
export const CHANNEL_NAME = "the gateway channel";

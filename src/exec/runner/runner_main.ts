/**
 * The runner: the entry point of a script's subprocess. It connects to the gateway's channel,
 * proves itself with the run token read from stdin, installs the script globals and imports
 * the script. When the process is about to exit it closes the channel and writes the run's end
 * marker (a nonce from stdin and the exit code) to stdout and stderr, so the gateway can answer
 * without waiting for the process to be torn down. It imports nothing but the wire protocol.
 * @module
 */

import {
  type ChannelError,
  type GatewayToRunner,
  MAX_CHANNEL_LINE_BYTES,
  type RunMessage,
  type RunnerToGateway,
  type ScriptFailure,
} from "../../protocol/channel_messages.ts";
import { END_MARKER_PREFIX } from "../../protocol/run_end_marker.ts";
import { installScriptGlobals } from "./script_globals.ts";
import { writeAll } from "../../protocol/bytes.ts";
import { readSecrets, warmEventDispatch } from "./runner_startup.ts";
import { ChunkDecoder } from "../../protocol/chunk_decoder.ts";
import { LineBuffer } from "../../protocol/line_buffer.ts";

const socketPath = Deno.args[0];
if (!socketPath) throw new Error("runner_main.ts needs the channel socket path as its argument");
/** Whether to drop the socket grants once connected (the gateway says when that is safe). */
const revokeSocketGrants = Deno.args[1] === "revoke";
/** Whether to drop the read grant of the discovery code once the run has it (likewise). */
const revokeDiscoveryGrant = Deno.args.includes("revoke-discovery");
/**
 * The `search()`/`describe()` code, beside this file (see `runner_discovery.ts`). No `URL`
 * object here or below: a runner whose code never builds one skips compiling the runtime's URL
 * parser (with no `--location` either, ≈ 1 M instructions per run; callgrind, issue 12).
 */
const discoveryPath = `${import.meta.dirname}/runner_discovery.bundle.js`;

/** The `file:` URL of an absolute path (`?`, `#` and `%` in it stay part of the path). */
function fileUrl(path: string): string {
  return `file://${encodeURI(path).replaceAll("?", "%3F").replaceAll("#", "%23")}`;
}

const encoder = new TextEncoder();

const { token, endNonce } = readSecrets();
const conn = await Deno.connect({ transport: "unix", path: socketPath });

// The writers of the end marker, taken before any script code runs: a script that replaces
// `Deno.stdout` or its methods cannot intercept or suppress them. The nonce lives only in this
// module's scope.
const writeStdout = Deno.stdout.writeSync.bind(Deno.stdout);
const writeStderr = Deno.stderr.writeSync.bind(Deno.stderr);
let channelClosedByUs = false;

/**
 * The process is exiting (its event loop ran empty, the script called `Deno.exit`, or the run
 * failed): every channel message has been written (a pending write keeps the loop alive), so
 * the channel is closed and the end marker follows everything the run wrote on each stream.
 * The gateway answers once it has both markers and the channel's end; what an `unload` listener
 * of the script writes after them is not part of the run. The process is ended later, by the
 * last unload listener, only where the run message says so (`exitAtEnd`, below).
 */
globalThis.addEventListener("unload", () => {
  channelClosedByUs = true;
  // Written at once (the socket is idle: a pending write would have kept the process alive),
  // so the gateway has every message without waiting for the socket to close, which Deno
  // does only after the markers are out (issue 12).
  send({ t: "end" }).catch(() => undefined);
  try {
    conn.close();
  } catch {
    // closed by the gateway already
  }
  if (endNonce !== "") {
    const marker = encoder.encode(`${END_MARKER_PREFIX}${endNonce}:${Deno.exitCode}\n`);
    for (const write of [writeStdout, writeStderr]) {
      try {
        for (let at = 0; at < marker.length;) at += write(marker.subarray(at));
      } catch {
        // a closed stream: the gateway waits for the process to exit instead
      }
    }
  }
});

/** Lines waiting for the write in progress; null when the socket is idle. */
let backlog: Uint8Array[] | null = null;
/** Settles when every line sent so far is written (rejects when a write failed). */
let writing: Promise<void> = Promise.resolve();

/**
 * Sends one message; lines are written in order and never interleave. A line sent while the
 * socket is idle is written at once by the write op itself (Deno polls it eagerly): a call
 * costs one write, no extra turn and no loop of promises unless the socket took part of the
 * line or more lines queued up meanwhile (issue 12).
 */
function send(message: RunnerToGateway): Promise<void> {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  if (bytes.length > MAX_CHANNEL_LINE_BYTES) {
    return Promise.reject(
      new RangeError(
        `the ${message.t} message is ${bytes.length} bytes, over the gateway channel's limit of ` +
          `${MAX_CHANNEL_LINE_BYTES} bytes: send less at once`,
      ),
    );
  }
  if (backlog !== null) {
    backlog.push(bytes);
    return writing;
  }
  const queue: Uint8Array[] = [];
  backlog = queue;
  writing = conn.write(bytes).then(
    (written) => {
      if (written === bytes.length && queue.length === 0) backlog = null;
      else return flush(bytes.subarray(written), queue);
    },
    (error: unknown) => {
      backlog = null;
      throw error;
    },
  );
  return writing;
}

/** Writes `first`, then whatever `queue` gathered meanwhile, until it is empty. */
async function flush(first: Uint8Array, queue: Uint8Array[]): Promise<void> {
  try {
    for (let next: Uint8Array | undefined = first; next !== undefined; next = queue.shift()) {
      await writeAll(conn, next);
    }
  } finally {
    backlog = null;
  }
}

const pending = new Map<
  number,
  {
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
    /** Finds the call's script line; dropped once asked. */
    locate?: () => number | undefined;
  }
>();
let nextId = 1;
let topLevelDone = false;

let referenced = true;
/** Keeps the process alive only while the script or its calls still need the channel. */
function updateRef(): void {
  const needed = !topLevelDone || pending.size > 0;
  if (needed === referenced) return;
  referenced = needed;
  if (needed) conn.ref();
  else conn.unref();
}

/**
 * Reads the gateway's lines and hands each message to `onMessage`. A chunk is split where it
 * stands: only a partial last line is kept (and joined once it ends, `LineBuffer`), so a reply
 * costs one decode, one slice and one parse (issue 12), and a reply of megabytes no more than
 * its size.
 */
async function readMessages(onMessage: (message: GatewayToRunner) => void): Promise<void> {
  const replies = new ChunkDecoder();
  const lines = new LineBuffer((line) => onMessage(JSON.parse(line) as GatewayToRunner));
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    let n: number | null;
    try {
      n = await conn.read(buf);
    } catch {
      n = null;
    }
    if (n === null) break;
    lines.push(replies.decode(buf.subarray(0, n)));
  }
  if (channelClosedByUs) return;
  for (const entry of pending.values()) {
    entry.reject(new Error("The gateway closed the run's channel"));
  }
  pending.clear();
  // With its channel gone the run has no one to answer to (the gateway stopped or died):
  // end now rather than live on as an orphan (issue 9, item 6).
  Deno.exit(70);
}

const runMessage = new Promise<RunMessage>((resolve, reject) => {
  readMessages((message) => {
    if (message.t === "run") resolve(message);
    else if (message.t === "refused") reject(new Error(message.message));
    else if (message.t === "locate") locateCall(message.id);
    else if (message.t === "reply") {
      const entry = pending.get(message.id);
      if (!entry) return;
      pending.delete(message.id);
      updateRef();
      if (message.ok) entry.resolve(message.value);
      else entry.reject({ channelError: message.error, raw: message.raw });
    }
  });
});

await send({ t: "hello", token });
warmEventDispatch();
// Compiled now, not when the script's top level is done and the channel stops holding the
// process open (`updateRef`): ≈ 0.15 ms on every run's path (issue 12).
conn.unref();
conn.ref();
if (revokeSocketGrants) {
  // Connected: the socket's grants are of no further use, and no script may hold them.
  Deno.permissions.revokeSync({ name: "read", path: socketPath });
  Deno.permissions.revokeSync({ name: "write", path: socketPath });
  Deno.permissions.revokeSync({ name: "net", host: `unix:${socketPath}` });
}
const run = await runMessage;

if (run.exitAtEnd === true) {
  // Once the event loop has run empty (`beforeunload`), a last `unload` listener is added that
  // ends the process with `Deno.exit` (with the exit code the end markers carry) after every
  // other listener has run: the end line and markers are out by then, and skipping the
  // runtime's teardown saves each run ≈ 1 ms of CPU and ends its process ≈ 1.8 ms sooner
  // (alternated A/B of the runner process, issue 12). The socket's close then comes only with
  // the exit, which the gateway does not wait for (it has the end line). The gateway asks for
  // this only for a script that cannot have hooked Node's `process` `exit` event, which
  // `Deno.exit` skips; an `unload` listener a script adds from its own `beforeunload` listener
  // does not run.
  let exitListenerAdded = false;
  globalThis.addEventListener("beforeunload", () => {
    if (exitListenerAdded) return;
    exitListenerAdded = true;
    globalThis.addEventListener("unload", () => Deno.exit(Deno.exitCode));
  });
}

/** Tells the gateway the script line of call `id`, which it asked for: the call waits long. */
function locateCall(id: number): void {
  const entry = pending.get(id);
  if (entry?.locate === undefined) return;
  const line = entry.locate();
  delete entry.locate;
  if (line !== undefined) send({ t: "call_line", id, line }).catch(() => undefined);
}

/** Sends a request and resolves with the gateway's reply. */
function request(
  message: {
    t: "call";
    namespace: string;
    tool: string;
    args: unknown;
    raw: boolean;
  } | {
    t: "resources";
    namespace: string;
    op: "list" | "read";
    uri?: string;
  },
  locate?: () => number | undefined,
  failure?: (error: unknown) => unknown,
): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, settleFailed) => {
    const reject = failure === undefined
      ? settleFailed
      : (error: unknown) => settleFailed(failure(error));
    pending.set(id, locate === undefined ? { resolve, reject } : { resolve, reject, locate });
    updateRef();
    send({ ...message, id } as RunnerToGateway).catch((error) => {
      // Never sent (over the channel's limit, or the channel is gone): no answer will come,
      // so the call no longer holds the process open.
      pending.delete(id);
      updateRef();
      reject(error);
    });
  });
}

// Loaded through a variable, so the bundler leaves it out of the runner's own bundle.
const discovery: typeof import("./runner_discovery.ts") | null = run.discovery
  ? await import(fileUrl(discoveryPath))
  : null;
if (revokeDiscoveryGrant) {
  Deno.permissions.revokeSync({ name: "read", path: discoveryPath });
}

const globals = installScriptGlobals(run, {
  request,
  send,
}, discovery ? { discoveryReader: (data) => new discovery.DiscoveryReader(data) } : {});

/** Turns whatever the script threw into a report the gateway can classify. */
function describeFailure(error: unknown): ScriptFailure {
  const toolError = globals.asToolError(error);
  if (toolError) {
    const located = locate(toolError.stack ?? "", run.scriptPath);
    return {
      name: "ToolError",
      message: toolError.message,
      ...located,
      tool: {
        kind: toolError.kind,
        message: toolError.message,
        namespace: toolError.namespace,
        tool: toolError.tool,
      } satisfies ChannelError,
    };
  }
  if (error instanceof Error) {
    const stack = error.stack ?? "";
    const note = globals.explain(error);
    const message = note === null ? error.message : `${error.message} (${note})`;
    return { name: error.name, message, stack, ...locate(stack, run.scriptPath) };
  }
  return { name: "Error", message: `Uncaught ${safeString(error)}` };
}

function safeString(value: unknown): string {
  try {
    return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Finds the first stack frame in the script file: its line and column. */
function locate(stack: string, scriptPath: string): { line?: number; column?: number } {
  const marker = `${scriptPath}:`;
  for (const frame of stack.split("\n")) {
    const at = frame.indexOf(marker);
    if (at < 0) continue;
    const match = /^(\d+):(\d+)/.exec(frame.slice(at + marker.length));
    if (match) return { line: Number(match[1]), column: Number(match[2]) };
  }
  return {};
}

let failing = false;
async function fail(error: unknown): Promise<never> {
  if (!failing) {
    failing = true;
    await send({ t: "failed", error: describeFailure(error) }).catch(() => undefined);
  }
  Deno.exit(1);
}

globalThis.addEventListener("error", (event) => {
  event.preventDefault();
  fail(event.error);
});
globalThis.addEventListener("unhandledrejection", (event) => {
  // A rejected promise nobody awaited: reported as a warning, never dropped (SPEC §8).
  event.preventDefault();
  const failure = describeFailure(event.reason);
  const where = failure.line ? ` (line ${failure.line})` : "";
  const fix = failure.line ? `add \`await\` to the call on line ${failure.line}` : "add `await`";
  send({
    t: "warning",
    message: `Unhandled promise rejection${where}: ${failure.name}: ${failure.message}; ` +
      `${fix} (or .catch() it) so its failure stops the run or is handled`,
  }).catch(() => undefined);
});

try {
  await import(fileUrl(run.scriptPath));
} catch (error) {
  await fail(error);
}
await writing.catch(() => undefined);
topLevelDone = true;
updateRef();

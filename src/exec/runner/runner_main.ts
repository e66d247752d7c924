/**
 * The runner: the entry point of a script's subprocess. It connects to the gateway's channel,
 * proves itself with the run token read from stdin, installs the script globals and imports
 * the script. When the process is about to exit it closes the channel and writes the run's end
 * marker (a nonce from stdin and the exit code) to stdout and stderr, so the gateway can answer
 * without waiting for the process to be torn down. It imports nothing but the wire protocol.
 * @module
 */

import {
  type CallErrorData,
  type CallParams,
  CHANNEL_NAME,
  type ChannelError,
  ChannelMethod,
  type LocateParams,
  MAX_CHANNEL_LINE_BYTES,
  type ResourcesParams,
  type RunMessage,
  type ScriptFailure,
} from "../../protocol/channel_messages.ts";
import { END_MARKER_PREFIX } from "../../protocol/run_end_marker.ts";
import { installScriptGlobals } from "./script_globals.ts";
import { readSecrets, warmEventDispatch } from "./runner_startup.ts";
import { MessagePeer, type WireError } from "../../protocol/message_peer.ts";
import { StreamTransport } from "../../protocol/stream_transport.ts";

const socketPath = Deno.args[0];
if (!socketPath) throw new Error("runner_main.ts needs the channel socket path as its argument");
/** Whether to drop the socket grants once connected (the gateway says when that is safe). */
const revokeSocketGrants = Deno.args[1] === "revoke";
/** Whether to drop the read grant of the discovery code once the run has it (likewise). */
const revokeDiscoveryGrant = Deno.args.includes("revoke-discovery");
/**
 * The `search()`/`describe()` code, beside this file (see `runner_discovery.ts`). No `URL`
 * object here or below: a runner whose code never builds one skips compiling the runtime's URL
 * parser (with no `--location` either), a cost on every run.
 */
const discoveryPath = `${import.meta.dirname}/runner_discovery.bundle.js`;

/** The `file:` URL of an absolute path (`?`, `#` and `%` in it stay part of the path). */
function fileUrl(path: string): string {
  return `file://${encodeURI(path).replaceAll("?", "%3F").replaceAll("#", "%23")}`;
}

const encoder = new TextEncoder();

const { token, endNonce } = readSecrets();
const conn = await Deno.connect({ transport: "unix", path: socketPath });
const channel = StreamTransport.fromConn(conn, {
  maxMessageBytes: MAX_CHANNEL_LINE_BYTES,
  wireName: CHANNEL_NAME,
});

/** A call waiting for its answer, with the way to find its script line. */
interface WaitingCall {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Finds the call's script line; dropped once asked. */
  locate?: () => number | undefined;
}

/** What a failed call rejects with before its call site maps it (`script_globals.ts`). */
function channelRejection(error: WireError): { channelError: ChannelError; raw: unknown } {
  const data = (error.data ?? {}) as Partial<CallErrorData>;
  const channelError: ChannelError = { kind: data.kind ?? "ToolError", message: error.message };
  if (data.namespace !== undefined) channelError.namespace = data.namespace;
  if (data.tool !== undefined) channelError.tool = data.tool;
  return { channelError, raw: data.raw };
}

const peer = new MessagePeer<WaitingCall>(channel, {
  remoteError: channelRejection,
  goneError: () => new Error("The gateway closed the run's channel"),
});

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
  // does only after the markers are out; then the socket is closed.
  peer.end();
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

let topLevelDone = false;

let referenced = true;
/** Keeps the process alive only while the script or its calls still need the channel. */
function updateRef(): void {
  const needed = !topLevelDone || peer.pendingCount > 0;
  if (needed === referenced) return;
  referenced = needed;
  if (needed) channel.ref();
  else channel.unref();
}

peer.onClose(() => {
  if (channelClosedByUs) return;
  // With its channel gone the run has no one to answer to (the gateway stopped or died):
  // end now rather than live on as an orphan.
  Deno.exit(70);
});

const runMessage = new Promise<RunMessage>((resolve, reject) => {
  peer.on(ChannelMethod.run, (params) => resolve(params as RunMessage));
  peer.on(
    ChannelMethod.refused,
    (params) => reject(new Error((params as { message: string }).message)),
  );
  peer.on(ChannelMethod.locate, (params) => locateCall((params as LocateParams).id));
});

peer.notify(ChannelMethod.hello, { token });
await peer.flushed();
warmEventDispatch();
// Compiled now, not when the script's top level is done and the channel stops holding the
// process open (`updateRef`): it would cost every run's path.
channel.unref();
channel.ref();
if (revokeSocketGrants) {
  // Connected: the socket's grants are of no further use, and no script may hold them.
  Deno.permissions.revokeSync({ name: "read", path: socketPath });
  Deno.permissions.revokeSync({ name: "write", path: socketPath });
  Deno.permissions.revokeSync({ name: "net", host: `unix:${socketPath}` });
}
serve().catch((error: unknown) => {
  // Not the script's failure (`fail` reports those): the gateway refused this runner, or the
  // run message could not be served. Said on stderr, and the run ends as failed.
  writeStderr(encoder.encode(`error: ${error instanceof Error ? error.stack : String(error)}\n`));
  Deno.exit(1);
});

/** Tells the gateway the script line of call `id`, which it asked for: the call waits long. */
function locateCall(id: number): void {
  const entry = peer.entry(id);
  if (entry?.locate === undefined) return;
  const line = entry.locate();
  delete entry.locate;
  if (line !== undefined) notify(ChannelMethod.callLine, { id, line });
}

/**
 * Sends a notification; resolves once written. Rejects, sending nothing, when the message is
 * over the channel's limit (the script is told to send less).
 */
function notify(method: string, params: unknown): Promise<void> {
  try {
    peer.notify(method, params);
  } catch (error) {
    return Promise.reject(error);
  }
  return peer.flushed();
}

/** Sends a request and resolves with the gateway's answer. */
function request(
  method: typeof ChannelMethod.call | typeof ChannelMethod.resources,
  params: CallParams | ResourcesParams,
  locate?: () => number | undefined,
  failure?: (error: unknown) => unknown,
): Promise<unknown> {
  return new Promise((resolve, settleFailed) => {
    const reject = failure === undefined
      ? settleFailed
      : (error: unknown) => settleFailed(failure(error));
    const entry: WaitingCall = {
      resolve: (value) => {
        resolve(value);
        updateRef();
      },
      reject: (error) => {
        reject(error);
        updateRef();
      },
    };
    if (locate !== undefined) entry.locate = locate;
    try {
      peer.call(method, params, entry);
    } catch (error) {
      // Never sent (over the channel's limit, or the channel is gone): no answer will come.
      // Rejected a turn later, as an answer would be: the caller sets up after the call.
      queueMicrotask(() => reject(error));
      return;
    }
    updateRef();
  });
}

/**
 * Serves the run once it comes, from the event loop rather than from the module's top level.
 * Deno ends the main module's evaluation with work of its own: it trims the allocator (a walk
 * of every free chunk, with a system call for each) and dispatches `load`. With the module
 * evaluated before the run comes, that work is done while the runner waits in the pool,
 * not between the script's end and the run's answer.
 */
async function serve(): Promise<void> {
  const run = await runMessage;

  if (run.exitAtEnd === true) {
    // Once the event loop has run empty (`beforeunload`), a last `unload` listener is added that
    // ends the process with `Deno.exit` (with the exit code the end markers carry) after every
    // other listener has run: the end line and markers are out by then, and skipping the
    // runtime's teardown saves each run CPU and ends its process sooner. The socket's close then comes only with
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

  // Loaded through a variable, so the bundler leaves it out of the runner's own bundle.
  const discovery: typeof import("./runner_discovery.ts") | null = run.discovery
    ? await import(fileUrl(discoveryPath))
    : null;
  if (revokeDiscoveryGrant) {
    Deno.permissions.revokeSync({ name: "read", path: discoveryPath });
  }

  const globals = installScriptGlobals(run, {
    request,
    notify,
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
      await notify(ChannelMethod.failed, { error: describeFailure(error) }).catch(() => undefined);
    }
    Deno.exit(1);
  }

  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    fail(event.error);
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    // A rejected promise nobody awaited: reported as a warning, never dropped.
    event.preventDefault();
    const failure = describeFailure(event.reason);
    const where = failure.line ? ` (line ${failure.line})` : "";
    const fix = failure.line ? `add \`await\` to the call on line ${failure.line}` : "add `await`";
    notify(ChannelMethod.warning, {
      message: `Unhandled promise rejection${where}: ${failure.name}: ${failure.message}; ` +
        `${fix} (or .catch() it) so its failure stops the run or is handled`,
    }).catch(() => undefined);
  });

  try {
    await import(fileUrl(run.scriptPath));
  } catch (error) {
    await fail(error);
  }
  // Deno dispatched `load` before the script existed: its own listeners hear it now, once
  // its top level is done, as they would have in a plain `deno run`.
  globalThis.dispatchEvent(new Event("load"));
  await peer.flushed();
  topLevelDone = true;
  updateRef();
}

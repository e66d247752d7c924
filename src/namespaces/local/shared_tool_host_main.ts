/**
 * The shared tool host: one `deno run --unstable-worker-options` process in which each tool
 * module runs as a Worker with its own Deno permissions (issue 12: one runtime instead of one
 * process of ≈ 64 MB per module). Speaks the tool host protocol on stdin/stdout with a `worker`
 * field on every message, plus `load`/`unload` from the gateway and `log`/`exit` back. Calls
 * reach a Worker as the line's own JSON text; a Worker writes its answers to stdout itself,
 * whole, under a lock shared with this thread (issue 12: no hop through this thread). Run by
 * `SharedToolHost`; an entry point, so it may `Deno.exit`.
 * @module
 */

import {
  encodeMessage,
  HOST_THREAD_HOLDER,
  readLinesFrom,
  releaseOutputLock,
  writeWhole,
} from "./tool_host_protocol.ts";
import type { WorkerLoadMessage, WorkerPost } from "./tool_worker_main.ts";

/** Longest request line accepted from the gateway (arguments are JSON on one line). */
const MAX_REQUEST_LENGTH = 64 * 1024 * 1024;

/** Gateway → shared host. */
export type SharedHostRequest =
  | {
    type: "load";
    worker: number;
    moduleUrl: string;
    /** The Worker's permissions (`deno.permissions` of `new Worker`). */
    permissions: Deno.PermissionOptions;
    env: Record<string, string>;
  }
  | { type: "unload"; worker: number }
  | { type: "call"; worker: number; id: number; tool: string; args?: unknown }
  | { type: "cancel"; worker: number; id: number };

/** Shared host → gateway, besides the tool host messages carrying a `worker` field. */
export type SharedHostNotice =
  | { type: "log"; worker: number; line: string }
  | { type: "exit"; worker: number; reason: string };

/**
 * The start of a call or cancel line as the gateway writes it (`worker` first, then `type`):
 * group 1 is the Worker; what follows `{"worker":N,` is the request's own JSON.
 */
const ROUTED_LINE = /^\{"worker":(\d+),(?="type":"(?:call|cancel)",)/;

/** Guards stdout: the host's thread and its Workers each write whole lines under it. */
const OUTPUT_LOCK = new Int32Array(new SharedArrayBuffer(4));
/** After this, a terminated Worker's thread has stopped writing. */
const LOCK_RELEASE_MS = 200;
const ENCODER = new TextEncoder();

/** Workers terminated lately, with when: one may have died holding the stdout lock. */
const TERMINATED = new Map<number, number>();

/** Whether `holder` was terminated long enough ago that its thread has surely stopped. */
function stoppedHolding(holder: number): boolean {
  const at = TERMINATED.get(holder);
  return at !== undefined && Date.now() - at >= LOCK_RELEASE_MS;
}

function write(text: string): void {
  writeWhole(OUTPUT_LOCK, HOST_THREAD_HOLDER, ENCODER.encode(text), stoppedHolding);
}

function notify(message: SharedHostNotice): void {
  write(encodeMessage(message));
}

function parse(line: string): SharedHostRequest | undefined {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null && typeof value.worker === "number" &&
        typeof value.type === "string"
      ? value as SharedHostRequest
      : undefined;
  } catch {
    return undefined;
  }
}

function main(): void {
  const workers = new Map<number, Worker>();
  const end = (id: number, reason: string) => {
    const worker = workers.get(id);
    if (worker === undefined) return;
    workers.delete(id);
    worker.terminate();
    // A Worker terminated in the middle of writing a result may hold stdout for good: the lock
    // is taken from it once its thread has surely stopped — by this thread's next write, or
    // by the timer for Workers waiting on it. Its partial line is ended by the next message's
    // leading newline (and dropped by the gateway).
    TERMINATED.set(id, Date.now());
    const released = setTimeout(() => {
      releaseOutputLock(OUTPUT_LOCK, id);
      TERMINATED.delete(id);
    }, LOCK_RELEASE_MS);
    Deno.unrefTimer(released);
    notify({ type: "exit", worker: id, reason });
  };
  const load = (request: Extract<SharedHostRequest, { type: "load" }>) => {
    const id = request.worker;
    let worker: Worker;
    try {
      worker = new Worker(new URL("./tool_worker_main.ts", import.meta.url), {
        type: "module",
        deno: { permissions: request.permissions },
      });
    } catch (thrown) {
      notify({ type: "exit", worker: id, reason: `cannot start its Worker: ${String(thrown)}` });
      return;
    }
    workers.set(id, worker);
    worker.onmessage = (event: MessageEvent<WorkerPost>) => {
      const message = event.data;
      if (message.type === "log") {
        notify({ type: "log", worker: id, line: message.line });
      } else {
        end(id, `exited with code ${message.code}`);
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      end(id, `failed: ${event.message}`);
    };
    const first: WorkerLoadMessage = {
      type: "load",
      worker: id,
      output: OUTPUT_LOCK.buffer as SharedArrayBuffer,
      moduleUrl: request.moduleUrl,
      env: request.env,
    };
    worker.postMessage(first);
  };
  readLinesFrom(Deno.stdin, (line) => {
    // A call or cancel goes to its Worker as the JSON text it came in (minus the routing
    // field): no parse here and a string to clone instead of an object (issue 12).
    const routed = ROUTED_LINE.exec(line);
    if (routed !== null) {
      workers.get(Number(routed[1]))?.postMessage(`{${line.slice(routed[0].length)}`);
      return;
    }
    const request = parse(line);
    if (request === undefined) {
      console.error(
        `shared tool host: ignored a line that is not a request: ${line.slice(0, 200)}`,
      );
    } else if (request.type === "load") {
      load(request);
    } else if (request.type === "unload") {
      end(request.worker, "was unloaded");
    } else {
      const { worker: id, ...rest } = request;
      workers.get(id)?.postMessage(rest);
    }
  }, { maxLineLength: MAX_REQUEST_LENGTH }).finally(() => {
    // stdin closed: the gateway stopped or died.
    for (const worker of workers.values()) worker.terminate();
    Deno.exit(0);
  });
}

if (import.meta.main) main();

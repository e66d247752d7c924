/**
 * The shared tool host: one `deno run --unstable-worker-options` process in which tool modules
 * run in Workers with their own Deno permissions (one runtime instead of one process per
 * module). Which module runs where, and how a module's failure stays its own, is
 * `SharedHostModules`; this entry point wires it to real Workers and to the gateway. Run by
 * `SharedToolHosts`; an entry point, so it may `Deno.exit`.
 *
 * The modules' lifecycle travels on the host's own link to the gateway (`worker_links.ts`): its
 * stdin brings one message, the gateway's socket and this host's token, before any Worker
 * exists, and is closed; the thread connects and presents the token, then takes `load` and
 * `unload` there and answers `ready`, `load_error`, `log`, `exit` and `restarted` with a
 * `worker` field (the module's id). The process's stdout and stderr are shared with every
 * module: the gateway logs them as untrusted text and takes nothing from them. Calls and
 * results do not cross this thread: each Worker has its own connection to the gateway.
 * @module
 */

import { MessagePeer } from "../../protocol/message_peer.ts";
import { StreamTransport } from "../../protocol/stream_transport.ts";
import { WorkerPortTransport } from "../../protocol/worker_port_transport.ts";
import { isLinkParams, type LinkParams } from "./tool_host_link.ts";
import {
  type LoadRequest,
  type ModuleWorker,
  SharedHostModules,
  type UnloadRequest,
} from "./shared_host_modules.ts";

/** Longest message accepted from the gateway (a load names paths and grants). */
const MAX_REQUEST_LENGTH = 1024 * 1024;
/** Longest message accepted on stdin (the link). */
const MAX_LINK_LENGTH = 64 * 1024;

/** Reads stdin to its end (the gateway closes it after one message) and answers the link. */
async function readLink(): Promise<LinkParams | undefined> {
  let link: LinkParams | undefined;
  const stdin = new MessagePeer(
    new StreamTransport({
      readable: Deno.stdin,
      writable: { write: (bytes) => Promise.resolve(bytes.length) },
    }, { maxMessageBytes: MAX_LINK_LENGTH }),
  );
  stdin.on("link", (params) => {
    if (isLinkParams(params)) link ??= params;
  });
  await stdin.closed;
  return link;
}

function isLoad(params: unknown): params is LoadRequest {
  const value = params as Partial<LoadRequest> | undefined;
  return typeof value?.worker === "number" && typeof value.moduleUrl === "string" &&
    typeof value.socket === "string" && typeof value.token === "string" &&
    typeof value.env === "object" && value.env !== null && value.permissions !== undefined;
}

/** A real Worker running `tool_worker_main.ts` with `permissions`, as the host's state drives it. */
function startWorker(
  permissions: Deno.PermissionOptions,
  events: { post(data: unknown): void; failed(message: string): void },
): ModuleWorker {
  const worker = new Worker(new URL("./tool_worker_main.ts", import.meta.url), {
    type: "module",
    deno: { permissions },
  });
  const peer = new MessagePeer(
    new WorkerPortTransport(worker, { end: () => worker.terminate(), closeOnError: true }),
  );
  // What the Worker says (module code shares its thread and may say it too) goes to the state,
  // which checks every field.
  peer.onNotification((method, params) => {
    events.post(typeof params === "object" && params !== null ? { ...params, type: method } : {});
  });
  peer.onClose((reason) => {
    if (reason.startsWith("failed: ")) events.failed(reason.slice("failed: ".length));
  });
  return {
    load: (message) => peer.notify("load", message),
    unload: (module) => peer.notify("unload", { module }),
    ping: (answered) => {
      try {
        peer.call("ping", undefined, { resolve: answered, reject: () => {} });
      } catch {
        // the Worker is gone: no answer, which the watchdog reads as blocked
      }
    },
    terminate: () => peer.close("terminated"),
  };
}

async function main(): Promise<void> {
  const link = await readLink();
  if (link === undefined) {
    console.error("shared tool host: no link on stdin; the gateway is gone");
    Deno.exit(1);
  }
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: link.socket });
  } catch (error) {
    console.error(`shared tool host: cannot reach the gateway: ${String(error)}`);
    Deno.exit(1);
  }
  const transport = StreamTransport.fromConn(conn, { maxMessageBytes: MAX_REQUEST_LENGTH });
  transport.send({ method: "host", params: { token: link.token } });
  const gateway = new MessagePeer(transport, {
    onDropped: (why) => console.error(`shared tool host: ignored ${why} from the gateway`),
  });
  const modules = new SharedHostModules({
    notify: ({ type, ...params }) => gateway.notify(type, params),
    startWorker,
  });
  gateway.on("load", (params) => {
    if (isLoad(params)) modules.load(params);
    else console.error("shared tool host: ignored a load that names no module");
  });
  gateway.on("unload", (params) => {
    const request = params as Partial<UnloadRequest> | undefined;
    if (typeof request?.worker === "number") modules.unload(request as UnloadRequest);
  });
  // The link closed: the gateway stopped or died.
  await gateway.closed;
  modules.closeAll();
  Deno.exit(0);
}

if (import.meta.main) await main();

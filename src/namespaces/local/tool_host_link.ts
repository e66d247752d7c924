/**
 * What the gateway and a tool host say to each other, written once for both sides (a host
 * process of its own, the shared host's thread, its Workers). Each side speaks through a
 * `MessagePeer`; this module names the messages and imports nothing, so a host loads nothing
 * more for it.
 *
 * - stdin (gateway → host), once: `link` with the gateway's socket and the host's token (and,
 *   for a host process of its own, the grants on the socket to revoke once connected).
 * - The socket, a runtime's connection: `join` (`worker`, `token`, `placement`) for each module
 *   it takes, then one conversation per module, its messages carrying `worker`: requests
 *   `call` (`tool`, `args`) with `$/cancel`, and from a host process of its own the import's
 *   outcome, `ready` (`exports`) or `load_error` (`error`).
 * - The socket, the shared host's thread: `host` (its token), then the lifecycle: `load` and
 *   `unload` to the host; `ready`, `load_error`, `log`, `exit` and `restarted` back, each
 *   naming the module in `worker` (see `shared_host_modules.ts`).
 * @module
 */

/** The field naming a module's conversation on a runtime's connection. */
export const MODULE_FIELD = "worker";

/** Params of `link`: where the host's runtimes connect. */
export interface LinkParams {
  socket: string;
  /** What the host (or its thread) presents there. */
  token: string;
  /** Grants on the socket to revoke once connected (a host process of its own). */
  revoke?: Deno.PermissionDescriptor[];
}

/** Params of `join`: a runtime takes a module's calls. */
export interface JoinParams {
  /** The module's id. */
  worker: number;
  token: string;
  /** How many runtimes the module was loaded into, this one included. */
  placement: number;
}

/** Params of a module's `call`: an export and its one argument (absent = call it with none). */
export interface CallParams {
  tool: string;
  args?: unknown;
}

/** Whether `params` are a usable `link`. */
export function isLinkParams(params: unknown): params is LinkParams {
  const value = params as Partial<LinkParams> | undefined;
  return typeof value?.socket === "string" && typeof value.token === "string" &&
    (value.revoke === undefined || Array.isArray(value.revoke));
}

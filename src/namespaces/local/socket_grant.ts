/**
 * The grant a tool module's runtime (a Worker of the shared host, or a host process of its own)
 * needs to connect to the gateway's socket for its calls, held only until it has connected.
 * @module
 */

import { resolve } from "node:path";

/** The grants {@linkcode withSocketGrant} reads and extends (a Worker's or a process's). */
export interface SocketGrants {
  read?: boolean | "inherit" | Array<string | URL> | undefined;
  write?: boolean | "inherit" | Array<string | URL> | undefined;
  net?: boolean | "inherit" | string[] | undefined;
}

/**
 * `permissions` plus what connecting to the gateway's socket takes (read, write and `unix:`
 * net access to its path), which the runtime needs only before it imports any module, and the
 * grants it must revoke then. A grant the module has anyway is neither added nor revoked (Deno
 * revokes a covering grant too, which would narrow the module's own).
 */
export function withSocketGrant<T extends SocketGrants>(
  permissions: T,
  socket: string,
): { permissions: T; revoke: Deno.PermissionDescriptor[] } {
  // Only string lists are added to, and only to grants of T's own kinds: the result is a T.
  const granted: SocketGrants = { ...permissions };
  const revoke: Deno.PermissionDescriptor[] = [];
  for (const name of ["read", "write"] as const) {
    const value = granted[name];
    if (value === true || value === "inherit") continue;
    const paths = Array.isArray(value) ? value.map(String) : [];
    const covered = paths.some((path) => {
      const full = resolve(path.startsWith("file:") ? new URL(path).pathname : path);
      return socket === full || socket.startsWith(full.endsWith("/") ? full : `${full}/`);
    });
    if (covered) continue;
    granted[name] = [...paths, socket];
    revoke.push({ name, path: socket });
  }
  const net = granted.net;
  const host = `unix:${socket}`;
  if (net !== true && net !== "inherit") {
    const hosts = Array.isArray(net) ? net.map(String) : [];
    if (!hosts.includes(host)) {
      granted.net = [...hosts, host];
      revoke.push({ name: "net", host });
    }
  }
  return { permissions: granted as T, revoke };
}

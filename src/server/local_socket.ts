/**
 * The unix sockets a server listens on: `server.sock`, where its own user's CLI reaches it, and
 * `http.sock`, where the TCP front (`tcp_front.ts`) hands over the connections it accepted. Both
 * live in the data dir (mode 0700), as docker's and containerd's do, so only this user can reach
 * them and no other user can stand in for a server that died (a TCP port is anyone's to take
 * once it is free). A socket's path is limited to about 100 bytes; a data dir too deep for that
 * puts them in the data dir's private runtime dir instead (also 0700 and checked to be ours).
 * The CLI's socket is published in `server.json`.
 * @module
 */

import { join } from "node:path";
import { runtimeDirFor } from "../config/runtime_dir.ts";

/** The longest socket path every platform accepts (macOS: 104 bytes with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

/** A server's sockets. */
export interface LocalSockets {
  /** The CLI's: reaching it is the credential. */
  cli: string;
  /** The TCP front's way in: requests on it are checked as the TCP port's are. */
  http: string;
}

/** The sockets of the server of `dataDir`; null where there are none (Windows). */
export function localSockets(dataDir: string): LocalSockets | null {
  if (Deno.build.os === "windows") return null;
  const fits = new TextEncoder().encode(join(dataDir, "server.sock")).length <=
    MAX_SOCKET_PATH_BYTES;
  const dir = fits ? dataDir : runtimeDirFor(dataDir);
  return { cli: join(dir, "server.sock"), http: join(dir, "http.sock") };
}

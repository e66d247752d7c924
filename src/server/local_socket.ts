/**
 * Where a server listens for its own user's CLI: a unix socket in the data dir (mode 0700), as
 * docker and containerd do, so only this user can reach it and no other user can stand in for a
 * server that died (a TCP port is anyone's to take once it is free). A socket's path is limited
 * to about 100 bytes; a data dir too deep for that puts it in the data dir's private runtime
 * dir instead (also 0700 and checked to be ours). The path is published in `server.json`.
 * @module
 */

import { join } from "node:path";
import { runtimeDirFor } from "../config/runtime_dir.ts";

/** The longest socket path every platform accepts (macOS: 104 bytes with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

/** The unix socket of the server of `dataDir`; null where there are none (Windows). */
export function localSocketPath(dataDir: string): string | null {
  if (Deno.build.os === "windows") return null;
  const inDataDir = join(dataDir, "server.sock");
  if (new TextEncoder().encode(inDataDir).length <= MAX_SOCKET_PATH_BYTES) return inDataDir;
  return join(runtimeDirFor(dataDir), "server.sock");
}

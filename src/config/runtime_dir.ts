/**
 * The private directory for run scratch space (script files, channel sockets): outside the data
 * dir, because every run is denied the data dir, and short, because unix
 * socket paths are limited to ~100 bytes. One per data dir, owned by us and mode 0700.
 * @module
 */

import { join } from "node:path";
import { sha256Hex } from "./sha256_hex.ts";

/**
 * Makes sure `dir` is a real directory (not a link) that only we own and can enter: another
 * user who created it first, or a symlink planted there, must never receive our scripts.
 */
function ensurePrivateDir(dir: string): void {
  try {
    Deno.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = Deno.lstatSync(dir);
  if (!info.isDirectory || info.isSymlink) {
    throw new Error(`Cannot use "${dir}" for run scratch space: it is not a plain directory`);
  }
  const uid = Deno.uid();
  if (uid !== null && info.uid !== uid) {
    throw new Error(
      `Cannot use "${dir}" for run scratch space: it belongs to uid ${info.uid}, not ${uid}`,
    );
  }
  if (((info.mode ?? 0) & 0o077) !== 0) Deno.chmodSync(dir, 0o700);
}

/**
 * Returns (creating it) the runtime directory for `dataDir`: under `$XDG_RUNTIME_DIR` when
 * set, else the system temp dir, as `gateway-<uid>/<hash of the data dir>`.
 */
export function runtimeDirFor(
  dataDir: string,
  env: { get(name: string): string | undefined } = Deno.env,
): string {
  const base = env.get("XDG_RUNTIME_DIR") || env.get("TMPDIR") || "/tmp";
  const user = join(base, `gateway-${Deno.uid() ?? "user"}`);
  ensurePrivateDir(user);
  // The JavaScript SHA-256 (equal to node:crypto's): the server asks for this dir before it
  // listens, where loading node:crypto would delay its first answer.
  const dir = join(user, sha256Hex(dataDir).slice(0, 16));
  ensurePrivateDir(dir);
  return dir;
}

/**
 * Where Deno keeps its cache for the processes the gateway starts (runners, tool hosts): the
 * server's `$DENO_DIR`, else Deno's default for the platform.
 * @module
 */

import { join } from "node:path";

/** Deno's cache directory, which the gateway's children share with the server. */
export function denoDir(env: { get(name: string): string | undefined } = Deno.env): string {
  const set = env.get("DENO_DIR");
  if (set) return set;
  const home = env.get("HOME") ?? "/tmp";
  return Deno.build.os === "darwin"
    ? join(home, "Library", "Caches", "deno")
    : join(env.get("XDG_CACHE_HOME") ?? join(home, ".cache"), "deno");
}

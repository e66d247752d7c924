/**
 * Which data dir a command uses for its root: the one `$GATEWAY_DATA_DIR` pins; else the one
 * this environment derives (`$XDG_DATA_HOME`…) when a server runs there or none runs anywhere;
 * else the data dir of the server another environment started for the same root, found in the
 * per-user registry (`server_registry.ts`). So a host that starts `gateway mcp` with a bare
 * environment reaches the server the user's shell started, and the other way round.
 * @module
 */

import { resolveDataDir } from "./gateway_paths.ts";
import { liveServerOf, registeredServers } from "./server_registry.ts";

/** The data dir chosen, how, and the other servers that serve the same root now. */
export interface DataDirChoice {
  dataDir: string;
  /**
   * `pinned` by `$GATEWAY_DATA_DIR`; `derived` from this environment; `registry`: the data
   * dir of a server another environment started for this root.
   */
  source: "pinned" | "derived" | "registry";
  /** Data dirs of other servers running for this root (two servers for one root). */
  others: string[];
}

/** Chooses the data dir for `rootDir` as the module doc says. */
export function chooseDataDir(
  options: {
    env: Record<string, string | undefined>;
    os: typeof Deno.build.os;
    cwd: string;
    rootDir: string;
  },
): DataDirChoice {
  const own = resolveDataDir(options);
  const root = options.rootDir;
  const others = (except: string) =>
    registeredServers(root, { env: options.env, except }).map((s) => s.dataDir);
  if (options.env.GATEWAY_DATA_DIR) {
    // Pinned means pinned (several instances of one root each pin their own); the others
    // are only looked for when this one has no server, to warn before a second one starts.
    return {
      dataDir: own,
      source: "pinned",
      others: liveServerOf(own, root) === null ? others(own) : [],
    };
  }
  const elsewhere = others(own);
  if (liveServerOf(own, root) !== null || elsewhere.length === 0) {
    return { dataDir: own, source: "derived", others: elsewhere };
  }
  return { dataDir: elsewhere[0]!, source: "registry", others: elsewhere.slice(1) };
}

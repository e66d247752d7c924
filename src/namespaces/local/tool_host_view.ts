/**
 * What the operating-system sandbox shows a tool host process (`exec.osSandbox`): a module with
 * full permissions (the default: the user wrote it) sees the machine as the user does, but not
 * the gateway's own secrets (token, history, OAuth credentials, process ledger) nor the other
 * processes' scratch space; a module with restricted permissions sees its grants, the system,
 * and what hosting needs — never the homes, temp dirs or data dirs beyond its grants. Either way
 * it runs in a PID namespace of its own and dies with the gateway.
 * @module
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PermissionSet } from "../../config/gateway_config.ts";
import { denoDir } from "../../process/deno_dir.ts";
import { privateDirectories, type SandboxView, withRealPath } from "../../process/sandbox_view.ts";

/**
 * Entries of a data dir that belong to the gateway, never to a module: the token, the history
 * database, the server's state and lock, the process ledger, OAuth credentials.
 */
export const GATEWAY_SECRETS: readonly string[] = [
  "token",
  "gateway.db",
  "gateway.db-wal",
  "gateway.db-shm",
  "server.json",
  "server.lock",
  "state",
  "oauth",
];

/** The gateway's own code, which a tool host process loads (its entry and the protocol). */
const GATEWAY_SOURCE = fileURLToPath(new URL("../../", import.meta.url));

/** Where a tool host process runs and what it must reach besides its module's grants. */
export interface ToolHostPlace {
  /** The module's grants; undefined = all (the default for a module the user wrote). */
  permissions: PermissionSet | undefined;
  /** The module's directory (`ROOT/tools`), read-only. */
  moduleDir: string;
  /** The root's `deno.json` the host is started with, if any, read-only. */
  configPath: string | null;
  /** The process's working directory. */
  cwd: string;
  /** The directory of the socket the host joins, writable (it connects there). */
  socketDir: string;
  /** The data dir handed to modules in `GATEWAY_DATA_DIR`: its gateway entries are masked. */
  dataDir: string;
  /**
   * Directories never shown (the run scratch space of every server of this user; the host's
   * own socket directory is shown again inside it).
   */
  hidden: readonly string[];
}

function grantPaths(grant: boolean | string[] | undefined): true | string[] {
  return grant === true ? true : Array.isArray(grant) ? grant : [];
}

/** The view of a tool host process running a module placed at `place`. */
export function toolHostView(place: ToolHostPlace): SandboxView {
  const { permissions } = place;
  const masked = GATEWAY_SECRETS.flatMap((name) => withRealPath(join(place.dataDir, name)));
  const own = [
    dirname(Deno.realPathSync(Deno.execPath())),
    GATEWAY_SOURCE,
    place.moduleDir,
    ...(place.configPath === null ? [] : [place.configPath]),
  ];
  if (permissions === undefined) {
    return {
      read: true,
      write: true,
      hidden: place.hidden,
      private: [],
      masked,
      own,
      ownWritable: [place.socketDir],
      scratch: [],
      net: true,
      cwd: place.cwd,
    };
  }
  const read = grantPaths(permissions.read);
  const ffi = grantPaths(permissions.ffi);
  return {
    read: read === true || ffi === true ? true : [...read, ...ffi],
    write: grantPaths(permissions.write),
    hidden: place.hidden,
    // The data dir too: shown only where a grant lies within it (the module's own data).
    private: [...privateDirectories(), ...withRealPath(place.dataDir)],
    masked,
    own,
    // Deno's cache stays writable for a module's imports (npm and remote modules it adds).
    ownWritable: [place.socketDir, denoDir()],
    scratch: [],
    net: permissions.net === true ||
      (Array.isArray(permissions.net) && permissions.net.length > 0),
    cwd: place.cwd,
  };
}

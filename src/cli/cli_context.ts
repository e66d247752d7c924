/**
 * What every command gets: the caller's directory, environment, resolved root and data dir
 * (computed once, lazily), output streams, and a way to reach the server.
 * @module
 */

import { type ResolvedRoot, resolveRoot } from "../config/gateway_paths.ts";
import { chooseDataDir, type DataDirChoice } from "../config/root_data_dir.ts";
import { liveServerOf } from "../config/server_registry.ts";
import {
  type ConnectOptions,
  connectToServer,
  ensureServer,
  type ServerConnection,
} from "../client/server_connection.ts";

/** Output sinks, swappable in tests. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is a terminal (enables streaming and progress). */
  isTty: boolean;
  /** Whether stderr is a terminal (a run's wait is shown there as one line); absent = no. */
  errIsTty?: boolean;
}

/** The context of one CLI invocation. */
export class CliContext {
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  readonly output: CliOutput;
  /** `--root` given before or after the command. */
  rootFlag: string | null = null;
  autostart = true;
  #root: ResolvedRoot | null = null;
  #dataDir: DataDirChoice | null = null;
  #warned = false;

  constructor(
    options: { cwd: string; env: Record<string, string | undefined>; output: CliOutput },
  ) {
    this.cwd = options.cwd;
    this.env = options.env;
    this.output = options.output;
  }

  /** The root, resolved on first use. */
  get root(): ResolvedRoot {
    this.#root ??= resolveRoot({ flag: this.rootFlag ?? undefined, env: this.env, cwd: this.cwd });
    return this.#root;
  }

  /**
   * The data dir of this root, chosen on first use (`root_data_dir.ts`): the one
   * `$GATEWAY_DATA_DIR` pins, else this environment's, else that of the server another
   * environment (an MCP host's) started for this root.
   */
  get dataDir(): string {
    return this.#choice().dataDir;
  }

  #choice(): DataDirChoice {
    this.#dataDir ??= chooseDataDir({
      env: this.env,
      os: Deno.build.os,
      cwd: this.cwd,
      rootDir: this.root.dir,
    });
    return this.#dataDir;
  }

  /**
   * Says so, loudly, when a second server serves (or is about to serve) this root: each keeps
   * its own history and approvals, so a call one holds is invisible to the other.
   */
  warnAboutOtherServers(): void {
    if (this.#warned) return;
    this.#warned = true;
    const { dataDir, source, others } = this.#choice();
    if (others.length === 0) return;
    const root = this.root.dir;
    const list = others.map((d) => `"${d}"`).join(", ");
    if (source === "pinned") {
      if (!this.autostart || liveServerOf(dataDir, root) !== null) return;
      this.output.err(
        `warning: a gateway already serves ${root} from data dir ${list}; this command uses ` +
          `data dir "${dataDir}" ($GATEWAY_DATA_DIR) and starts a second one, with its own ` +
          `history and approvals (unset GATEWAY_DATA_DIR to use the running one)\n`,
      );
      return;
    }
    this.output.err(
      `warning: two gateway servers serve ${root}: data dir "${dataDir}" (this command's) and ` +
        `${list}; each keeps its own history and approvals: stop one ` +
        `(GATEWAY_DATA_DIR=${others[0]} gateway stop)\n`,
    );
  }

  #connectOptions(): ConnectOptions {
    this.warnAboutOtherServers();
    return {
      rootDir: this.root.dir,
      rootFlag: this.root.dir,
      dataDir: this.dataDir,
      autostart: this.autostart,
      ...(this.output.isTty ? { progress: (line: string) => this.output.err(`${line}\n`) } : {}),
    };
  }

  /** Connects to the server for this root, starting one when allowed. */
  connect(): Promise<ServerConnection> {
    return connectToServer(this.#connectOptions());
  }

  /** The server for this root once it answers, started when allowed; no connection is opened. */
  ensureServer(): Promise<Omit<ServerConnection, "client">> {
    return ensureServer(this.#connectOptions());
  }

  /** Runs `fn` with a connection, closing it afterwards. */
  async withClient<T>(fn: (connection: ServerConnection) => Promise<T>): Promise<T> {
    const connection = await this.connect();
    try {
      return await fn(connection);
    } finally {
      await connection.client.close();
    }
  }
}

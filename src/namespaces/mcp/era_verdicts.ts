/**
 * Which protocol era each upstream MCP server speaks, kept in the data dir
 * (`DATA_DIR/mcp/eras.json`) so a restart connects without asking every server again: a modern
 * verdict carries the server's `server/discover` answer (the client adopts it with no round
 * trip), a legacy one goes straight to `initialize`. A verdict belongs to one server config (its
 * command, arguments, working directory and environment, or its URL and headers): a changed
 * config asks again. Verdicts older than {@linkcode VERDICT_HORIZON_MS} are not used, so a server
 * upgraded from the 2025 era is found on a later start (a legacy verdict never fails by itself:
 * an upgraded server still answers `initialize`).
 * @module
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import type { McpServerConfig } from "../../config/gateway_config.ts";
import type { DiscoverResult, PriorDiscovery } from "./mcp_sdk.ts";

/** How long a kept verdict is used before the server is asked again: one day. */
export const VERDICT_HORIZON_MS = 24 * 60 * 60 * 1000;

interface StoredVerdict {
  /** The digest of the server config the verdict was reached with. */
  config: string;
  era: "modern" | "legacy";
  /** The server's `server/discover` answer (modern verdicts). */
  discover?: DiscoverResult;
  /** When it was reached, in ms since the epoch. */
  at: number;
}

type StoredVerdicts = Record<string, StoredVerdict>;

/**
 * The verdicts of one data dir; in memory only without one (each process then asks once).
 * Reads and writes are synchronous and small (one JSON object); a file that cannot be read is
 * treated as empty (the servers are asked again), a write that fails is reported to `onError`.
 */
export class EraVerdicts {
  readonly #path: string | null;
  readonly #memory = new Map<string, StoredVerdict>();
  readonly #now: () => number;
  readonly #onError: (message: string) => void;

  constructor(
    dataDir: string | undefined,
    options: { now?: () => number; onError?: (message: string) => void } = {},
  ) {
    this.#path = dataDir === undefined ? null : join(dataDir, "mcp", "eras.json");
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => {});
  }

  /** The file the verdicts live in (null: memory only). */
  get path(): string | null {
    return this.#path;
  }

  /** The kept verdict for `name` under `config`, when there is a fresh one. */
  prior(name: string, config: McpServerConfig): PriorDiscovery | undefined {
    const stored = this.#read()[name];
    if (stored === undefined || stored.config !== configDigest(config)) return undefined;
    if (this.#now() - stored.at >= VERDICT_HORIZON_MS) return undefined;
    if (stored.era === "legacy") return { kind: "legacy" };
    return stored.discover === undefined
      ? undefined
      : { kind: "modern", discover: stored.discover };
  }

  /** Keeps what connecting to `name` found: its discover answer (modern) or none (legacy). */
  remember(name: string, config: McpServerConfig, discover: DiscoverResult | undefined): void {
    const verdict: StoredVerdict = {
      config: configDigest(config),
      era: discover === undefined ? "legacy" : "modern",
      ...(discover === undefined ? {} : { discover }),
      at: this.#now(),
    };
    this.#update((all) => ({ ...all, [name]: verdict }));
  }

  /** Drops the verdict of `name` (it proved wrong): the next connect asks again. */
  forget(name: string): void {
    if (this.#read()[name] === undefined) return;
    this.#update((all) => {
      const { [name]: _dropped, ...rest } = all;
      return rest;
    });
  }

  #read(): StoredVerdicts {
    if (this.#path === null) return Object.fromEntries(this.#memory);
    try {
      const value: unknown = JSON.parse(Deno.readTextFileSync(this.#path));
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? value as StoredVerdicts
        : {};
    } catch {
      // Missing (no verdict yet) or unreadable: the servers are asked again, nothing is lost.
      return {};
    }
  }

  #update(change: (all: StoredVerdicts) => StoredVerdicts): void {
    const next = change(this.#read());
    if (this.#path === null) {
      this.#memory.clear();
      for (const [name, verdict] of Object.entries(next)) this.#memory.set(name, verdict);
      return;
    }
    try {
      Deno.mkdirSync(join(this.#path, ".."), { recursive: true, mode: 0o700 });
      const temp = `${this.#path}.${crypto.randomUUID()}.tmp`;
      Deno.writeTextFileSync(temp, JSON.stringify(next, null, 2), { mode: 0o600 });
      Deno.renameSync(temp, this.#path);
    } catch (error) {
      this.#onError(
        `Cannot keep the MCP protocol eras in "${this.#path}": ${
          error instanceof Error ? error.message : String(error)
        } (each start asks the servers again)`,
      );
    }
  }
}

/**
 * A digest of what decides which server answers: the command line and its environment, or the
 * URL and headers. Secrets in `env`/`headers` are hashed, never stored.
 */
export function configDigest(config: McpServerConfig): string {
  const identity = "command" in config
    ? { command: config.command, args: config.args, cwd: config.cwd ?? null, env: config.env }
    : { url: config.url, headers: config.headers ?? {}, transport: config.transport ?? "auto" };
  return createHash("sha256").update(JSON.stringify(identity)).digest("hex");
}

/**
 * Watches the root for edits that change the gateway: the config files (gateway.json, the env
 * file, a project's `.mcp.json`) and the named scripts; and says what a new config changes
 * ({@linkcode diffConfig}, pure, so the reload rules are tested without a file system).
 * @module
 */

import { dirname, join } from "node:path";
import { envFilePath } from "../config/env_file.ts";
import type { GatewayConfig } from "../config/gateway_config.ts";
import type { ResolvedRoot } from "../config/gateway_paths.ts";
import type { Logger } from "../logger.ts";

/** What a config reload changes, by namespace name; each list sorted as the config has it. */
export interface ConfigDiff {
  /** `mcpServers` entries that are new or whose settings changed (restart each). */
  mcpChanged: string[];
  /** `mcpServers` entries that are gone. */
  mcpRemoved: string[];
  /** `apis` entries that are new. */
  apisAdded: string[];
  /** `apis` entries whose settings changed. */
  apisChanged: string[];
  /** `apis` entries that are gone. */
  apisRemoved: string[];
  /** Tool modules whose `tools` entry (settings, permissions, disabled) changed. */
  toolsChanged: string[];
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** What changes from config `old` to config `next`; pure. */
export function diffConfig(
  old: Pick<GatewayConfig, "mcpServers" | "apis" | "tools">,
  next: Pick<GatewayConfig, "mcpServers" | "apis" | "tools">,
): ConfigDiff {
  const toolNames = new Set([...Object.keys(old.tools), ...Object.keys(next.tools)]);
  return {
    mcpChanged: Object.keys(next.mcpServers).filter((name) =>
      !same(old.mcpServers[name], next.mcpServers[name])
    ),
    mcpRemoved: Object.keys(old.mcpServers).filter((name) => !(name in next.mcpServers)),
    apisAdded: Object.keys(next.apis).filter((name) => !(name in old.apis)),
    apisChanged: Object.keys(next.apis).filter((name) =>
      name in old.apis && !same(old.apis[name], next.apis[name])
    ),
    apisRemoved: Object.keys(old.apis).filter((name) => !(name in next.apis)),
    toolsChanged: [...toolNames].filter((name) => !same(old.tools[name], next.tools[name])),
  };
}

/** How long a burst of file events settles before the gateway reloads. */
const SETTLE_MS = 100;

/** Calls back after a burst of edits to the root's config files or named scripts. */
export class RootWatcher {
  readonly #root: ResolvedRoot;
  readonly #log: Logger;
  readonly #onConfig: () => void;
  readonly #onScripts: () => void;
  #rootWatcher: Deno.FsWatcher | null = null;
  #projectWatcher: Deno.FsWatcher | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #reloadTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    root: ResolvedRoot,
    options: { log: Logger; onConfigChange: () => void; onScriptsChange: () => void },
  ) {
    this.#root = root;
    this.#log = options.log;
    this.#onConfig = options.onConfigChange;
    this.#onScripts = options.onScriptsChange;
  }

  /** Starts watching; a root that cannot be watched is logged and left unwatched. */
  start(): void {
    const root = this.#root;
    const scriptsDir = join(root.dir, "scripts");
    // The env file and the project's .mcp.json (beside a .gateway/ root) reload the config too.
    const configFiles = [root.configFile, envFilePath(root.dir)];
    const projectDir = root.source === "project" ? dirname(root.dir) : null;
    configFiles.push(join(projectDir ?? root.dir, ".mcp.json"));
    try {
      this.#rootWatcher = Deno.watchFs([root.dir], { recursive: true });
      if (projectDir !== null) {
        this.#projectWatcher = Deno.watchFs(projectDir, { recursive: false });
      }
    } catch (error) {
      this.#log.warn("cannot watch the root for changes", { error: String(error) });
      return;
    }
    if (this.#projectWatcher) {
      const project = this.#projectWatcher;
      (async () => {
        try {
          for await (const event of project) {
            if (event.paths.some((p) => configFiles.includes(p))) this.#scheduleReload();
          }
        } catch (error) {
          this.#log.warn("project watcher stopped", { error: String(error) });
        }
      })();
    }
    const watcher = this.#rootWatcher;
    let configTouched = false;
    let scriptsTouched = false;
    (async () => {
      try {
        for await (const event of watcher) {
          if (event.paths.some((p) => configFiles.includes(p))) configTouched = true;
          if (event.paths.some((p) => p.startsWith(scriptsDir))) scriptsTouched = true;
          if (!configTouched && !scriptsTouched) continue;
          if (this.#timer !== null) clearTimeout(this.#timer);
          this.#timer = setTimeout(() => {
            this.#timer = null;
            if (configTouched) this.#onConfig();
            if (scriptsTouched) this.#onScripts();
            configTouched = false;
            scriptsTouched = false;
          }, SETTLE_MS);
        }
      } catch (error) {
        this.#log.warn("root watcher stopped", { error: String(error) });
      }
    })();
  }

  /** Reloads the config shortly after a burst of changes to the project's `.mcp.json`. */
  #scheduleReload(): void {
    if (this.#reloadTimer !== null) clearTimeout(this.#reloadTimer);
    this.#reloadTimer = setTimeout(() => {
      this.#reloadTimer = null;
      this.#onConfig();
    }, SETTLE_MS);
  }

  /** Stops watching; pending reloads are dropped. */
  close(): void {
    try {
      this.#rootWatcher?.close();
      this.#projectWatcher?.close();
    } catch {
      // already closed
    }
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (this.#reloadTimer !== null) clearTimeout(this.#reloadTimer);
  }
}

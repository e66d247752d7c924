/**
 * Where the OAuth state of one upstream MCP server lives: `DATA_DIR/oauth/<name>.json`, mode
 * 0600 in a 0700 directory. Written by `gateway auth login` (the CLI) and read and
 * refreshed by the server; tokens never go anywhere else (not history, logs, types or errors).
 * @module
 */

import { join } from "node:path";

/** What is kept for one server. Field shapes are the MCP SDK's (`OAuthTokens` etc.). */
export interface StoredOAuth {
  /** The client the gateway registered (dynamic client registration), when it did. */
  clientInformation?: Record<string, unknown>;
  tokens?: {
    access_token: string;
    token_type: string;
    refresh_token?: string;
    expires_in?: number;
    scope?: string;
  };
  /** When `tokens` were saved, in ms since the epoch (to tell their expiry). */
  savedAt?: number;
  discoveryState?: Record<string, unknown>;
  /** The redirect URI the registered client was registered with. */
  redirectUri?: string;
  /** A wider scope a call was refused for (`insufficient_scope`): the next login asks for it. */
  stepUpScope?: string;
}

/** The OAuth file of one namespace. */
export class OAuthStore {
  readonly path: string;
  readonly #dir: string;

  constructor(dataDir: string, namespace: string) {
    if (!/^[A-Za-z0-9_.-]+$/.test(namespace) || namespace.startsWith(".")) {
      throw new RangeError(`Cannot keep OAuth state for namespace "${namespace}": bad name`);
    }
    this.#dir = join(dataDir, "oauth");
    this.path = join(this.#dir, `${namespace}.json`);
  }

  /** The stored state; empty when nothing was stored yet. */
  read(): StoredOAuth {
    try {
      return JSON.parse(Deno.readTextFileSync(this.path)) as StoredOAuth;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return {};
      throw new Error(`Cannot read OAuth state "${this.path}": ${error}`, { cause: error });
    }
  }

  /** Applies `change` and writes the result atomically (0600). */
  update(change: (state: StoredOAuth) => StoredOAuth): StoredOAuth {
    const next = change(this.read());
    Deno.mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${crypto.randomUUID()}.tmp`;
    Deno.writeTextFileSync(temp, JSON.stringify(next, null, 2), { mode: 0o600 });
    Deno.renameSync(temp, this.path);
    return next;
  }

  /** Forgets everything (logout). True when there was something to forget. */
  remove(): boolean {
    try {
      Deno.removeSync(this.path);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }
}

/**
 * The local-tool argument shapes the type checker found fitting, kept in the data dir across
 * restarts: a restarted gateway calls a tool with an argument of a shape it has checked before
 * without waiting for the type checker's first start (a second or more after a start, for a
 * check a few milliseconds long once warm). A verdict is kept under the types that decided it
 * — the tool's namespace as scripts see it (its rendered globals), the TypeScript version and
 * the tool — so a changed module, signature or TypeScript finds nothing and is checked again.
 * A cache only: a missing or unreadable file is an empty memory, a failed write costs the next
 * start a check.
 * @module
 */

import { dirname } from "node:path";
import { sha256Hex } from "../config/sha256_hex.ts";
import type { CatalogueNamespace } from "../protocol/catalogue.ts";
import { renderScriptGlobals } from "../namespaces/render_types.ts";

/** Most verdicts kept; past it the oldest go first. */
const MAX_KEPT = 4096;

/** How long after a new verdict the file is written (verdicts come in bursts). */
const WRITE_DELAY_MS = 1000;

/** The file's shape: a version, then the keys, oldest first. */
interface CheckedShapesFile {
  version: 1;
  keys: string[];
}

/**
 * A persisted set of "this argument shape fits this tool's type" verdicts. `key()` names a
 * verdict; `has()`/`add()` ask and record; the file is written a moment after additions and on
 * `close()`.
 */
export class CheckedShapes {
  readonly #file: string;
  readonly #warn: (message: string) => void;
  #keys = new Set<string>();
  readonly #loaded: Promise<void>;
  /** The types hash of each namespace as last rendered (a catalogue is replaced, not changed). */
  #typesHashes = new WeakMap<CatalogueNamespace, string>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  /** Reads `file` (a JSON file in the data dir's cache) in the background. */
  constructor(file: string, options: { warn: (message: string) => void }) {
    this.#file = file;
    this.#warn = options.warn;
    this.#loaded = this.#load();
  }

  /** Resolves once the file has been read (or found missing). */
  loaded(): Promise<void> {
    return this.#loaded;
  }

  /**
   * The key of a verdict: the types that decide `tools.NS.TOOL(argument)` and the argument's
   * shape (`argumentShape`).
   */
  key(namespace: CatalogueNamespace, tool: string, shape: string): string {
    let types = this.#typesHashes.get(namespace);
    if (types === undefined) {
      // The namespace rendered alone is exactly its part of the globals scripts are checked
      // against; the rest of the globals cannot change how a call of its tools is typed.
      types = sha256Hex(
        `${Deno.version.typescript}\n${renderScriptGlobals({ namespaces: [namespace] })}`,
      );
      this.#typesHashes.set(namespace, types);
    }
    return `${types}:${tool}\u0000${shape}`;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Records a fitting verdict; written to the file shortly. */
  add(key: string): void {
    if (this.#closed || this.#keys.has(key)) return;
    this.#keys.add(key);
    if (this.#keys.size > MAX_KEPT) this.#keys.delete(this.#keys.values().next().value!);
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.#writing = this.#writing.then(() => this.#write());
    }, WRITE_DELAY_MS);
    Deno.unrefTimer(this.#timer);
  }

  /** Writes what is pending and stops recording. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
      this.#writing = this.#writing.then(() => this.#write());
    }
    await this.#writing;
  }

  async #load(): Promise<void> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#file);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        this.#warn(`cannot read ${this.#file} (argument checks start over): ${error}`);
      }
      return;
    }
    try {
      const parsed = JSON.parse(text) as Partial<CheckedShapesFile>;
      if (parsed.version !== 1 || !Array.isArray(parsed.keys)) throw new Error("not version 1");
      const keys = parsed.keys.filter((key): key is string => typeof key === "string");
      // Verdicts recorded while the file was read come after the file's, as the newest.
      this.#keys = new Set([...keys.slice(-MAX_KEPT), ...this.#keys]);
    } catch (error) {
      this.#warn(`ignoring ${this.#file} (argument checks start over): ${error}`);
    }
  }

  async #write(): Promise<void> {
    const body: CheckedShapesFile = { version: 1, keys: [...this.#keys] };
    // Written whole beside the file and renamed over it: a reader never sees half a file.
    const partial = `${this.#file}.${Deno.pid}.tmp`;
    try {
      await Deno.mkdir(dirname(this.#file), { recursive: true, mode: 0o700 });
      await Deno.writeTextFile(partial, JSON.stringify(body), { mode: 0o600 });
      await Deno.rename(partial, this.#file);
    } catch (error) {
      this.#warn(`cannot write ${this.#file} (the next start checks again): ${error}`);
      await Deno.remove(partial).catch(() => {});
    }
  }
}

/**
 * Tool module signatures, off the event loop and cached: a content-hash cache in memory and on
 * disk in front of a lazily started Web Worker that runs ts-morph.
 * @module
 */

import type { ExtractedTool, ExtractionOutcome } from "./extract_signatures.ts";
import type { SignatureWorkerRequest, SignatureWorkerResponse } from "./signature_worker.ts";
import { LEAN_PROCESS, PROJECT_CONFIG, WorkerClient } from "../../process/worker_client.ts";
import { ToolModuleLoadError } from "./tool_module_load_error.ts";

/**
 * Changes whenever extraction output changes shape or content, so stale disk entries are never
 * reused (part of the hash). Bump it with every change to `extract_signatures.ts`.
 */
const CACHE_VERSION = "tool-signatures-2/ts-morph-28.0.0";

/** What a module offers: its tools, the declarations their types use, and load warnings. */
export interface ModuleSignatures {
  tools: ExtractedTool[];
  declarations: string;
  warnings: string[];
}

/** Settings of a {@linkcode ToolModuleSignatures}. */
export interface ToolModuleSignaturesOptions {
  /** Directory of the on-disk cache (created when missing); absent = memory cache only. */
  cacheDir?: string;
  /**
   * Longest one extraction may take before the worker is terminated.
   * @default {60000}
   */
  timeoutMs?: number;
  /**
   * How long an idle worker process is kept for the next change before it exits (its 60–110 MB
   * of ts-morph go back). Extractions come in bursts (a start, an edit), so it is short.
   * @default {1000}
   */
  idleMs?: number;
  /**
   * Entries kept in the memory cache (least recently used dropped first).
   * @default {256}
   */
  maxMemoryEntries?: number;
}

/** Counters that show where answers came from; used by tests and `/health`-style diagnostics. */
export interface SignatureStats {
  memoryHits: number;
  diskHits: number;
  extractions: number;
  workerStarts: number;
}

/**
 * Extracts tool signatures for any number of modules, sharing one cache and one worker. Create
 * one per server and hand it to every {@linkcode LocalNamespace}; call `close()` on shutdown.
 *
 * @example
 * ```ts ignore
 * const signatures = new ToolModuleSignatures({ cacheDir: "/tmp/gateway-cache" });
 * const text = await Deno.readTextFile("tools/kv.ts");
 * const { tools } = await signatures.extract("tools/kv.ts", text);
 * signatures.close();
 * ```
 */
export class ToolModuleSignatures {
  #cacheDir: string | undefined;
  #timeoutMs: number;
  #maxMemoryEntries: number;
  #memory = new Map<string, ExtractionOutcome>();
  #inFlight = new Map<string, Promise<ExtractionOutcome>>();
  #worker: WorkerClient<SignatureWorkerRequest, SignatureWorkerResponse>;
  #stats: SignatureStats = { memoryHits: 0, diskHits: 0, extractions: 0, workerStarts: 0 };
  #closed = false;

  constructor(options: ToolModuleSignaturesOptions = {}) {
    this.#cacheDir = options.cacheDir;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#worker = new WorkerClient({
      url: new URL("./signature_worker.ts", import.meta.url),
      // A process of its own: ts-morph's memory goes back to the system when it idles out.
      process: {
        config: PROJECT_CONFIG,
        permissions: ["--allow-read", "--allow-env"],
        ...LEAN_PROCESS,
      },
      crashed: (message) =>
        new Error(`Cannot extract tool signatures: the worker failed: ${message}`),
      timedOut: (ms) => new Error(`Cannot extract tool signatures: took longer than ${ms} ms`),
      idleMs: options.idleMs ?? 1_000,
      onStart: () => this.#stats.workerStarts++,
    });
    this.#maxMemoryEntries = options.maxMemoryEntries ?? 256;
  }

  /**
   * Signatures of the module `file` (a label such as `tools/kv.ts`, used in messages) whose
   * source is `text`. Rejects with {@linkcode ToolModuleLoadError} naming the file, line and
   * reason when the module cannot be served.
   */
  async extract(file: string, text: string): Promise<ModuleSignatures> {
    const outcome = await this.#outcome(text);
    if (!outcome.ok) {
      throw new ToolModuleLoadError(
        file,
        outcome.reason,
        outcome.line === undefined ? undefined : { line: outcome.line },
      );
    }
    return structuredClone({
      tools: outcome.tools,
      declarations: outcome.declarations,
      warnings: outcome.warnings,
    });
  }

  /** Where answers came from so far. */
  stats(): SignatureStats {
    return { ...this.#stats };
  }

  /**
   * Terminates the worker and fails extractions in flight; later calls still use the cache.
   * Resolves once the worker's process has exited.
   */
  close(): Promise<void> {
    this.#closed = true;
    return this.#worker.stop(
      new Error("Cannot extract tool signatures: the extractor was closed"),
    );
  }

  async #outcome(text: string): Promise<ExtractionOutcome> {
    const key = await contentHash(`${CACHE_VERSION}\n${text}`);
    const remembered = this.#memory.get(key);
    if (remembered !== undefined) {
      this.#stats.memoryHits++;
      this.#remember(key, remembered);
      return remembered;
    }
    const running = this.#inFlight.get(key);
    if (running !== undefined) return await running;
    const work = this.#load(key, text);
    this.#inFlight.set(key, work);
    try {
      return await work;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  async #load(key: string, text: string): Promise<ExtractionOutcome> {
    const stored = await this.#readDisk(key);
    if (stored !== undefined) {
      this.#stats.diskHits++;
      this.#remember(key, stored);
      return stored;
    }
    const outcome = await this.#runWorker(text);
    this.#stats.extractions++;
    this.#remember(key, outcome);
    await this.#writeDisk(key, outcome);
    return outcome;
  }

  #remember(key: string, outcome: ExtractionOutcome): void {
    this.#memory.delete(key);
    this.#memory.set(key, outcome);
    while (this.#memory.size > this.#maxMemoryEntries) {
      const oldest = this.#memory.keys().next();
      if (oldest.done === true) break;
      this.#memory.delete(oldest.value);
    }
  }

  async #readDisk(key: string): Promise<ExtractionOutcome | undefined> {
    if (this.#cacheDir === undefined) return undefined;
    try {
      const parsed: unknown = JSON.parse(await Deno.readTextFile(`${this.#cacheDir}/${key}.json`));
      return isOutcome(parsed) ? parsed : undefined;
    } catch {
      return undefined; // missing or unreadable: extract again and overwrite
    }
  }

  async #writeDisk(key: string, outcome: ExtractionOutcome): Promise<void> {
    if (this.#cacheDir === undefined) return;
    const path = `${this.#cacheDir}/${key}.json`;
    const temporary = `${path}.${crypto.randomUUID()}.tmp`;
    try {
      await Deno.mkdir(this.#cacheDir, { recursive: true });
      await Deno.writeTextFile(temporary, JSON.stringify(outcome));
      await Deno.rename(temporary, path);
    } catch {
      // A cache that cannot be written only costs time on the next start.
      await Deno.remove(temporary).catch(() => {});
    }
  }

  async #runWorker(text: string): Promise<ExtractionOutcome> {
    if (this.#closed) {
      throw new Error("Cannot extract tool signatures: the extractor was closed");
    }
    const answer = await this.#worker.request({ text }, { timeoutMs: this.#timeoutMs });
    if ("crash" in answer) throw new Error(`Cannot extract tool signatures: ${answer.crash}`);
    return answer.outcome;
  }
}

/** SHA-256 of `text` as lowercase hex: the cache key. */
async function contentHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Shape check for disk entries, which another version or a partial write may have left. */
function isOutcome(value: unknown): value is ExtractionOutcome {
  if (typeof value !== "object" || value === null || !("ok" in value)) return false;
  if (value.ok === false) return "reason" in value && typeof value.reason === "string";
  return value.ok === true && "tools" in value && Array.isArray(value.tools) &&
    "declarations" in value && typeof value.declarations === "string" &&
    "warnings" in value && Array.isArray(value.warnings);
}

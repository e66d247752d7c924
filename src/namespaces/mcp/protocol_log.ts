/**
 * The raw JSON-RPC traffic of one MCP namespace, kept for a person debugging its upstream (the
 * dashboard's protocol log): every message sent and received, with time, direction, method,
 * id and size, in a ring bounded by entry count and by bytes. Recording costs the call path
 * an array push; messages are serialised a moment later, off the caller's turn.
 * @module
 */

import { Buffer } from "node:buffer";

/** Which way a message went, seen from the gateway. */
export type ProtocolDirection = "sent" | "received";

/** One message as the log lists it (its text is fetched apart: {@linkcode ProtocolLog.message}). */
export interface ProtocolEntry {
  /** Increases by one per message for the life of the log (clearing does not reset it). */
  seq: number;
  /** ms since the epoch. */
  at: number;
  direction: ProtocolDirection;
  kind: "request" | "notification" | "result" | "error" | "invalid";
  /** The method; for a result or error, the method of the request it answers (when seen). */
  method: string | null;
  /**
   * What the request is about: the tool or prompt name (`params.name`) or the resource URI
   * (`params.uri`); an answer has its request's.
   */
  target: string | null;
  id: string | number | null;
  /** UTF-8 size of the message as JSON. */
  bytes: number;
  /** For a result or error: ms since its request. */
  durationMs?: number;
  /** The start of the JSON text, for scanning and filtering. */
  preview: string;
}

/** A message's whole text (or its head, when it was larger than the log keeps). */
export interface ProtocolMessage {
  seq: number;
  text: string;
  /** True when `text` is only the first {@linkcode ProtocolLogOptions.maxMessageChars}. */
  truncated: boolean;
  bytes: number;
}

/** Bounds of one log. */
export interface ProtocolLogOptions {
  /** Messages kept. @default 1000 */
  capacity?: number;
  /** Characters kept over all messages; the oldest go first. @default 4 Mi */
  maxChars?: number;
  /** Characters kept of one message. @default 256 Ki */
  maxMessageChars?: number;
  /**
   * Masks secrets in a message's whole text before any of it is kept: a head cut through a
   * secret would otherwise keep a piece of it that no later masking recognises.
   * @default no masking
   */
  mask?: (text: string) => string;
}

interface Stored extends ProtocolEntry {
  text: string;
  truncated: boolean;
}

interface Recorded {
  at: number;
  direction: ProtocolDirection;
  message: unknown;
}

const PREVIEW_CHARS = 160;
/** Messages waiting for serialisation before a burst is serialised at once. */
const MAX_WAITING = 256;
/** How long recorded messages wait to be serialised together. */
const FLUSH_DELAY_MS = 15;
/** Requests remembered to name the method of their answer. */
const MAX_OPEN_REQUESTS = 1000;

/**
 * A bounded log of one namespace's messages. `record` is what the transport tap calls;
 * `entries`, `message` and `onEntries` are what the dashboard reads.
 *
 * @example
 * ```ts
 * import { ProtocolLog } from "./protocol_log.ts";
 * import assert from "node:assert/strict";
 * const log = new ProtocolLog();
 * log.record("sent", { jsonrpc: "2.0", id: 1, method: "tools/list" });
 * log.record("received", { jsonrpc: "2.0", id: 1, result: { tools: [] } });
 * const [request, answer] = log.entries();
 * assert.equal(request?.kind, "request");
 * assert.equal(answer?.method, "tools/list");
 * assert.equal(log.message(answer!.seq)?.text, '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}');
 * ```
 */
export class ProtocolLog {
  readonly #capacity: number;
  readonly #maxChars: number;
  readonly #maxMessageChars: number;
  readonly #mask: (text: string) => string;
  #stored: Stored[] = [];
  #chars = 0;
  #seq = 0;
  #waiting: Recorded[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** `direction:id` of requests not yet answered → method, target and time. */
  readonly #open = new Map<string, { method: string; target: string | null; at: number }>();
  readonly #listeners = new Set<(entries: ProtocolEntry[]) => void>();

  constructor(options: ProtocolLogOptions = {}) {
    this.#capacity = options.capacity ?? 1000;
    this.#maxChars = options.maxChars ?? 4 * 1024 * 1024;
    this.#maxMessageChars = options.maxMessageChars ?? 256 * 1024;
    this.#mask = options.mask ?? ((text) => text);
  }

  /** Notes one message; it is serialised and listed shortly after (or at the next read). */
  record(direction: ProtocolDirection, message: unknown): void {
    this.#waiting.push({ at: Date.now(), direction, message });
    if (this.#waiting.length >= MAX_WAITING) {
      this.#flush();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), FLUSH_DELAY_MS);
      // A log never keeps the process (or a test) alive.
      Deno.unrefTimer(this.#timer);
    }
  }

  /** Kept messages after `after` (a seq), oldest first, at most `limit` (the newest ones). */
  entries(options: { after?: number; limit?: number } = {}): ProtocolEntry[] {
    this.#flush();
    const after = options.after ?? 0;
    const newer = this.#stored.filter((entry) => entry.seq > after);
    const kept = options.limit === undefined ? newer : newer.slice(-options.limit);
    return kept.map(summary);
  }

  /** The text of message `seq`, or undefined once it is no longer kept. */
  message(seq: number): ProtocolMessage | undefined {
    this.#flush();
    const entry = this.#stored.find((stored) => stored.seq === seq);
    if (entry === undefined) return undefined;
    return { seq, text: entry.text, truncated: entry.truncated, bytes: entry.bytes };
  }

  /** Forgets every kept message (numbering goes on). */
  clear(): void {
    this.#flush();
    this.#stored = [];
    this.#chars = 0;
  }

  /** Tells `listener` each batch of new messages; returns its unsubscribe function. */
  onEntries(listener: (entries: ProtocolEntry[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    const added = waiting.map((recorded) => this.#store(recorded));
    while (
      this.#stored.length > this.#capacity ||
      (this.#chars > this.#maxChars && this.#stored.length > 1)
    ) {
      this.#chars -= this.#stored.shift()!.text.length;
    }
    if (this.#listeners.size === 0) return;
    const summaries = added.map(summary);
    for (const listener of this.#listeners) listener(summaries);
  }

  #store(recorded: Recorded): Stored {
    let text: string;
    try {
      text = JSON.stringify(recorded.message) ?? String(recorded.message);
    } catch (error) {
      text = `(cannot show this message as JSON: ${String(error)})`;
    }
    const bytes = Buffer.byteLength(text, "utf8");
    text = this.#mask(text);
    const truncated = text.length > this.#maxMessageChars;
    if (truncated) text = text.slice(0, this.#maxMessageChars);
    const shape = shapeOf(recorded.message);
    const entry: Stored = {
      seq: ++this.#seq,
      at: recorded.at,
      direction: recorded.direction,
      kind: shape.kind,
      method: shape.method,
      target: shape.target,
      id: shape.id,
      bytes,
      preview: text.slice(0, PREVIEW_CHARS),
      text,
      truncated,
    };
    if (shape.id !== null) {
      if (shape.kind === "request" && shape.method !== null) {
        this.#open.set(`${recorded.direction}:${shape.id}`, {
          method: shape.method,
          target: shape.target,
          at: recorded.at,
        });
        if (this.#open.size > MAX_OPEN_REQUESTS) {
          this.#open.delete(this.#open.keys().next().value!);
        }
      } else if (shape.kind === "result" || shape.kind === "error") {
        // An answer goes the other way from its request.
        const key = `${recorded.direction === "sent" ? "received" : "sent"}:${shape.id}`;
        const request = this.#open.get(key);
        if (request !== undefined) {
          this.#open.delete(key);
          entry.method = request.method;
          entry.target = request.target;
          entry.durationMs = recorded.at - request.at;
        }
      }
    }
    this.#stored.push(entry);
    this.#chars += text.length;
    return entry;
  }
}

function summary(entry: Stored): ProtocolEntry {
  const { text: _text, truncated: _truncated, ...rest } = entry;
  return rest;
}

/** What kind of JSON-RPC message `message` is, its method, target and id. */
function shapeOf(message: unknown): Pick<ProtocolEntry, "kind" | "method" | "target" | "id"> {
  if (typeof message !== "object" || message === null) {
    return { kind: "invalid", method: null, target: null, id: null };
  }
  const fields = message as Record<string, unknown>;
  const id = typeof fields.id === "string" || typeof fields.id === "number" ? fields.id : null;
  const method = typeof fields.method === "string" ? fields.method : null;
  if (method !== null) {
    const params = typeof fields.params === "object" && fields.params !== null
      ? fields.params as Record<string, unknown>
      : {};
    const target = typeof params.name === "string"
      ? params.name
      : typeof params.uri === "string"
      ? params.uri
      : null;
    return { kind: id === null ? "notification" : "request", method, target, id };
  }
  if ("error" in fields) return { kind: "error", method: null, target: null, id };
  if ("result" in fields) return { kind: "result", method: null, target: null, id };
  return { kind: "invalid", method: null, target: null, id };
}

/**
 * The protocol logs of a gateway's MCP namespaces, by namespace name, and who watches them. A
 * log outlives the namespace's connections (a restart shows in the same log) and a config
 * reload that replaces the namespace.
 */
export class ProtocolLogs {
  readonly #logs = new Map<string, ProtocolLog>();
  readonly #options: ProtocolLogOptions;
  /** Per watcher (a connection's signal): the namespaces it watches, each with its stop. */
  readonly #watches = new WeakMap<AbortSignal, Map<string, () => void>>();

  /** Each log is made with `options` (its bounds, how it masks secrets). */
  constructor(options: ProtocolLogOptions = {}) {
    this.#options = options;
  }

  /** The log of namespace `name`, made on first use. */
  for(name: string): ProtocolLog {
    let log = this.#logs.get(name);
    if (log === undefined) {
      log = new ProtocolLog(this.#options);
      this.#logs.set(name, log);
    }
    return log;
  }

  /** The log of namespace `name`, if it has one. */
  get(name: string): ProtocolLog | undefined {
    return this.#logs.get(name);
  }

  /** Forgets the log of a namespace that is gone from the config. */
  drop(name: string): void {
    this.#logs.delete(name);
  }

  /**
   * Tells `listener` each batch of new messages of namespace `name` until {@linkcode unwatch}
   * or until `watcher` aborts (the connection closed). Watching a namespace twice is once.
   */
  watch(watcher: AbortSignal, name: string, listener: (entries: ProtocolEntry[]) => void): void {
    let watched = this.#watches.get(watcher);
    if (watched === undefined) {
      const mine = new Map<string, () => void>();
      watched = mine;
      this.#watches.set(watcher, mine);
      watcher.addEventListener("abort", () => {
        for (const stop of mine.values()) stop();
        mine.clear();
      }, { once: true });
    }
    if (!watched.has(name)) watched.set(name, this.for(name).onEntries(listener));
  }

  /** Stops what `watcher` was told of namespace `name`. */
  unwatch(watcher: AbortSignal, name: string): void {
    const watched = this.#watches.get(watcher);
    watched?.get(name)?.();
    watched?.delete(name);
  }
}

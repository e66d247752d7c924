/**
 * The globals a script sees: `tools`, `stdin()`, `args`, `ToolError`, `attach`,
 * `resources`, `search`, `describe`, and the hook that receives a snippet's last expression.
 * Runs inside the script's subprocess; talks to the gateway only through `request`/`notify`.
 * @module
 */

import {
  type CallParams,
  type ChannelError,
  ChannelMethod,
  MAX_CHANNEL_LINE_BYTES,
  type ResourcesParams,
  type RunMessage,
} from "../../protocol/channel_messages.ts";
import type { DiscoveryData, DiscoveryReader } from "../../protocol/discovery_data.ts";

/** The channel operations the globals need from the runner. */
export interface ChannelPort {
  /**
   * Sends a request and resolves with the gateway's reply. `locate` finds the script's line of
   * a call; the runner asks it only of a call that is still waiting after a while.
   */
  request(
    method: typeof ChannelMethod.call | typeof ChannelMethod.resources,
    params: CallParams | ResourcesParams,
    locate?: () => number | undefined,
    /** Turns a rejection into what the promise rejects with (a call's failure at its site). */
    failure?: (error: unknown) => unknown,
  ): Promise<unknown>;
  /** Sends a notification; rejects when it cannot be sent (over the channel's limit). */
  notify(method: string, params: unknown): Promise<void>;
}

/** A failed tool call as scripts catch it: `err.kind`, `err.namespace`, `err.tool`, `err.raw`. */
class ToolError extends Error {
  readonly namespace: string;
  readonly tool: string;
  readonly kind: string;
  readonly raw: unknown;
  constructor(error: ChannelError, raw: unknown) {
    super(error.message);
    this.name = "ToolError";
    this.namespace = error.namespace ?? "";
    this.tool = error.tool ?? "";
    this.kind = error.kind;
    this.raw = raw;
  }
}

function isChannelRejection(value: unknown): value is { channelError: ChannelError; raw: unknown } {
  return typeof value === "object" && value !== null && "channelError" in value;
}

/** What the runner needs back from installing the globals. */
export interface InstalledGlobals {
  asToolError(error: unknown): ToolError | null;
  /** Why a runtime error happened, when a global knows (e.g. `stdin().json()` gave null). */
  explain(error: unknown): string | null;
}

/** Options of {@linkcode installScriptGlobals}. */
export interface ScriptGlobalsOptions {
  /**
   * Builds the reader behind `search()`/`describe()`. Its code is about half the runner's, so
   * the runner loads it (`runner_discovery.ts`) only for a run that carries discovery data.
   */
  discoveryReader?: (data: DiscoveryData) => DiscoveryReader;
}

/** Defines the script globals on `globalThis` for one run. */
export function installScriptGlobals(
  run: RunMessage,
  port: ChannelPort,
  options: ScriptGlobalsOptions = {},
): InstalledGlobals {
  function call(namespace: string, tool: string, args: unknown, raw: boolean): Promise<unknown> {
    // `locate` and `failure` run only on a later message, once `site` below is taken. The
    // failure is mapped where the call is rejected, not by a `.catch` here: a reply reaches the
    // script one microtask sooner.
    const answer = port.request(
      ChannelMethod.call,
      { namespace, tool, args, raw },
      () => scriptLine(site.stack),
      (error) => withCallSite(error, site),
    );
    // The call site is taken before the script's code goes on, so its frames include the
    // script's line even when the call is never awaited (the async stack of an awaited call has
    // it too) — but after the request is written: an Error cost the runner 5–10 µs of CPU per
    // call (measured), which now overlaps the call's round trip instead of delaying
    // it. V8 formats `site.stack` only when it is
    // read: when the call fails, or when it has waited long enough for the runner to tell the
    // gateway its line — formatting costs more than a fast call.
    const site = new Error();
    return answer;
  }

  /** A channel rejection as a `ToolError` whose stack starts at the script's call site. */
  function withCallSite(error: unknown, site: Error): unknown {
    if (!isChannelRejection(error)) return error;
    const failure = new ToolError(error.channelError, error.raw);
    const frames = (site.stack ?? "").split("\n").slice(1).join("\n");
    failure.stack = `${failure.name}: ${failure.message}\n${frames}\n${failure.stack ?? ""}`;
    return failure;
  }

  function scriptLine(stack: string | undefined): number | undefined {
    const marker = `${run.scriptPath}:`;
    for (const frame of (stack ?? "").split("\n")) {
      const at = frame.indexOf(marker);
      if (at < 0) continue;
      const match = /^(\d+):/.exec(frame.slice(at + marker.length));
      if (match) return Number(match[1]);
    }
    return undefined;
  }

  function toolFunction(namespace: string, tool: string) {
    const fn = (args?: unknown) => call(namespace, tool, args, false);
    fn.raw = (args?: unknown) => call(namespace, tool, args, true);
    return fn;
  }

  // Known names are plain properties built from the catalogue. The Proxy only catches misses,
  // so `tools.kv.nope()` reaches the gateway and fails as UnknownTool with the nearest names
  // instead of a bare "is not a function".
  function withMisses<T extends object>(target: T, onMiss: (key: string) => unknown): T {
    return new Proxy(target, {
      get(obj, key, receiver) {
        if (typeof key !== "string" || key in obj || key === "then") {
          return Reflect.get(obj, key, receiver);
        }
        return onMiss(key);
      },
    });
  }

  const tools: Record<string, unknown> = {};
  for (const [identifier, ns] of Object.entries(run.toolMap)) {
    const members: Record<string, unknown> = {};
    for (const [toolIdentifier, original] of Object.entries(ns.tools)) {
      const fn = toolFunction(ns.name, original);
      members[toolIdentifier] = fn;
      if (original !== toolIdentifier) members[original] = fn;
    }
    const object = withMisses(members, (key) => toolFunction(ns.name, key));
    tools[identifier] = object;
    if (ns.name !== identifier) tools[ns.name] = object;
  }
  const toolsGlobal = withMisses(
    tools,
    (namespace) => withMisses({}, (tool) => toolFunction(namespace, tool)),
  );

  const stdinText = run.stdin;
  let stdinNote: string | null = null;
  const stdin = () => ({
    text: () => stdinText.trim(),
    json: () => {
      const text = stdinText.trim();
      if (text === "") {
        stdinNote = "stdin().json() returned null because stdin was empty: pipe JSON in " +
          "(echo '{…}' | gateway exec …, or `stdin` over RPC) or handle null " +
          "(stdin().json() ?? {})";
        return null;
      }
      try {
        return JSON.parse(text);
      } catch (error) {
        const preview = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
        throw new SyntaxError(
          `stdin().json(): stdin is not JSON (${(error as Error).message}; it starts ` +
            `${preview}): read it with stdin().text() or stdin().lines() instead`,
        );
      }
    },
    lines: () => stdinText.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== ""),
    raw: () => new TextEncoder().encode(stdinText),
  });

  function attach(block: unknown): void {
    const message = { block: normaliseAttachment(block) };
    const size = JSON.stringify(message).length;
    if (size > MAX_CHANNEL_LINE_BYTES) {
      throw new RangeError(
        `attach(): the block is ${size} bytes, over the ${MAX_CHANNEL_LINE_BYTES}-byte limit: ` +
          `attach a smaller image, or write it to a file the caller can read`,
      );
    }
    port.notify(ChannelMethod.attach, message).catch(() => undefined);
  }

  async function resourceRequest(
    request: { namespace: string; op: "list" | "read"; uri?: string },
  ): Promise<unknown> {
    const site = new Error();
    try {
      return await port.request(ChannelMethod.resources, request);
    } catch (error) {
      throw withCallSite(error, site);
    }
  }
  const resources = {
    list: (namespace: string) => resourceRequest({ namespace, op: "list" }),
    read: async (namespace: string, uri: string) =>
      decodeBlobs(await resourceRequest({ namespace, op: "read", uri })),
  };

  // The same resolution and ranking the server uses, built on first use from the discovery
  // data the run carries, so `search()` stays synchronous and ranks exactly like `gateway search`.
  let reader: DiscoveryReader | null = null;
  const searchIndex = (): DiscoveryReader => {
    if (!run.discovery || !options.discoveryReader) {
      throw new Error("search()/describe() have no catalogue in this run");
    }
    reader ??= options.discoveryReader(run.discovery);
    return reader;
  };
  function search(
    query: string,
    options: { namespace?: string; limit?: number; offset?: number } = {},
  ) {
    return searchIndex().search(query, options);
  }
  function describe(path: string, options: { depth?: number; full?: boolean } = {}): string {
    return searchIndex().describe(path, options);
  }

  let reported = false;
  function resultHook(value: unknown): void {
    if (value === undefined || reported) return;
    reported = true;
    port.notify(ChannelMethod.result, { value: toJsonSafe(value) }).catch((error: Error) =>
      port.notify(ChannelMethod.warning, {
        message: `The result was not returned: ${error.message}`,
      }).catch(() => undefined)
    );
  }

  const define = (name: string, value: unknown) =>
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false });
  define("tools", toolsGlobal);
  define("stdin", stdin);
  define("args", Object.freeze([...run.args]));
  define("ToolError", ToolError);
  define("attach", attach);
  define("resources", resources);
  define("search", search);
  define("describe", describe);
  define(run.resultHook, resultHook);
  // `Deno.args` of a pre-started runner are the runner's own; the script's arguments replace
  // them so `Deno.args` and `args` agree.
  Object.defineProperty(Deno, "args", { value: Object.freeze([...run.args]), configurable: true });

  return {
    asToolError: (error) => (error instanceof ToolError ? error : null),
    explain: (error) => {
      // Only a TypeError about `null` can come from the null that stdin().json() returned.
      const fromNull = error instanceof TypeError && /\bnull\b/.test(error.message);
      return fromNull ? stdinNote : null;
    },
  };
}

/** Accepts an MCP content block or `{data, mimeType}` and returns a content block. */
function normaliseAttachment(block: unknown): unknown {
  if (typeof block !== "object" || block === null) {
    throw new TypeError("attach() takes a content block or {data, mimeType}");
  }
  const record = block as Record<string, unknown>;
  if (typeof record.type === "string") return record;
  const mimeType = typeof record.mimeType === "string" ? record.mimeType : "";
  if (mimeType === "") throw new TypeError("attach({data, mimeType}) needs a mimeType string");
  const data = record.data instanceof Uint8Array ? toBase64(record.data) : record.data;
  if (typeof data !== "string") {
    throw new TypeError("attach({data}) needs data as a base64 string or a Uint8Array");
  }
  const type = mimeType.startsWith("image/")
    ? "image"
    : mimeType.startsWith("audio/")
    ? "audio"
    : null;
  if (type) return { type, data, mimeType };
  return { type: "resource", resource: { uri: "attachment://data", mimeType, blob: data } };
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function decodeBlobs(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const record = value as { contents?: Array<Record<string, unknown>> };
  if (!Array.isArray(record.contents)) return value;
  return {
    ...record,
    contents: record.contents.map((c) =>
      typeof c.blob === "string"
        ? { ...c, blob: Uint8Array.from(atob(c.blob), (ch) => ch.charCodeAt(0)) }
        : c
    ),
  };
}

function toJsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    return text === undefined ? String(value) : JSON.parse(text);
  } catch {
    return String(value);
  }
}

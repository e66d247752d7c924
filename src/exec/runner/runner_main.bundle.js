// src/protocol/channel_messages.ts
var ChannelMethod = {
  hello: "hello",
  run: "run",
  refused: "refused",
  call: "call",
  resources: "resources",
  locate: "locate",
  callLine: "call_line",
  result: "result",
  attach: "attach",
  warning: "warning",
  failed: "failed"
};
var MAX_CHANNEL_LINE_BYTES = 16 * 1024 * 1024;
var CHANNEL_NAME = "the gateway channel";

// src/protocol/run_end_marker.ts
var END_MARKER_PREFIX = "\0gateway-run-end:";

// src/exec/runner/script_globals.ts
var ToolError = class extends Error {
  namespace;
  tool;
  kind;
  raw;
  constructor(error, raw) {
    super(error.message);
    this.name = "ToolError";
    this.namespace = error.namespace ?? "";
    this.tool = error.tool ?? "";
    this.kind = error.kind;
    this.raw = raw;
  }
};
function isChannelRejection(value) {
  return typeof value === "object" && value !== null && "channelError" in value;
}
function installScriptGlobals(run, port, options = {}) {
  function call(namespace, tool, args, raw) {
    const answer = port.request(ChannelMethod.call, {
      namespace,
      tool,
      args,
      raw
    }, () => scriptLine(site.stack), (error) => withCallSite(error, site));
    const site = new Error();
    return answer;
  }
  function withCallSite(error, site) {
    if (!isChannelRejection(error)) return error;
    const failure = new ToolError(error.channelError, error.raw);
    const frames = (site.stack ?? "").split("\n").slice(1).join("\n");
    failure.stack = `${failure.name}: ${failure.message}
${frames}
${failure.stack ?? ""}`;
    return failure;
  }
  function scriptLine(stack) {
    const marker = `${run.scriptPath}:`;
    for (const frame of (stack ?? "").split("\n")) {
      const at = frame.indexOf(marker);
      if (at < 0) continue;
      const match = /^(\d+):/.exec(frame.slice(at + marker.length));
      if (match) return Number(match[1]);
    }
    return void 0;
  }
  function toolFunction(namespace, tool) {
    const fn = (args) => call(namespace, tool, args, false);
    fn.raw = (args) => call(namespace, tool, args, true);
    return fn;
  }
  function withMisses(target, onMiss) {
    return new Proxy(target, {
      get(obj, key, receiver) {
        if (typeof key !== "string" || key in obj || key === "then") {
          return Reflect.get(obj, key, receiver);
        }
        return onMiss(key);
      }
    });
  }
  const tools = {};
  for (const [identifier, ns] of Object.entries(run.toolMap)) {
    const members = {};
    for (const [toolIdentifier, original] of Object.entries(ns.tools)) {
      const fn = toolFunction(ns.name, original);
      members[toolIdentifier] = fn;
      if (original !== toolIdentifier) members[original] = fn;
    }
    const object = withMisses(members, (key) => toolFunction(ns.name, key));
    tools[identifier] = object;
    if (ns.name !== identifier) tools[ns.name] = object;
  }
  const toolsGlobal = withMisses(tools, (namespace) => withMisses({}, (tool) => toolFunction(namespace, tool)));
  const stdinText = run.stdin;
  let stdinNote = null;
  const stdin = () => ({
    text: () => stdinText.trim(),
    json: () => {
      const text = stdinText.trim();
      if (text === "") {
        stdinNote = "stdin().json() returned null because stdin was empty: pipe JSON in (echo '{\u2026}' | gateway exec \u2026, or `stdin` over RPC) or handle null (stdin().json() ?? {})";
        return null;
      }
      try {
        return JSON.parse(text);
      } catch (error) {
        const preview = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}\u2026` : text);
        throw new SyntaxError(`stdin().json(): stdin is not JSON (${error.message}; it starts ${preview}): read it with stdin().text() or stdin().lines() instead`);
      }
    },
    lines: () => stdinText.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== ""),
    raw: () => new TextEncoder().encode(stdinText)
  });
  function attach(block) {
    const message = {
      block: normaliseAttachment(block)
    };
    const size = JSON.stringify(message).length;
    if (size > MAX_CHANNEL_LINE_BYTES) {
      throw new RangeError(`attach(): the block is ${size} bytes, over the ${MAX_CHANNEL_LINE_BYTES}-byte limit: attach a smaller image, or write it to a file the caller can read`);
    }
    port.notify(ChannelMethod.attach, message).catch(() => void 0);
  }
  async function resourceRequest(request2) {
    const site = new Error();
    try {
      return await port.request(ChannelMethod.resources, request2);
    } catch (error) {
      throw withCallSite(error, site);
    }
  }
  const resources = {
    list: (namespace) => resourceRequest({
      namespace,
      op: "list"
    }),
    read: async (namespace, uri) => decodeBlobs(await resourceRequest({
      namespace,
      op: "read",
      uri
    }))
  };
  let reader = null;
  const searchIndex = () => {
    if (!run.discovery || !options.discoveryReader) {
      throw new Error("search()/describe() have no catalogue in this run");
    }
    reader ??= options.discoveryReader(run.discovery);
    return reader;
  };
  function search(query, options2 = {}) {
    return searchIndex().search(query, options2);
  }
  function describe(path, options2 = {}) {
    return searchIndex().describe(path, options2);
  }
  let reported = false;
  function resultHook(value) {
    if (value === void 0 || reported) return;
    reported = true;
    port.notify(ChannelMethod.result, {
      value: toJsonSafe(value)
    }).catch((error) => port.notify(ChannelMethod.warning, {
      message: `The result was not returned: ${error.message}`
    }).catch(() => void 0));
  }
  const define = (name, value) => Object.defineProperty(globalThis, name, {
    value,
    writable: false,
    configurable: false
  });
  define("tools", toolsGlobal);
  define("stdin", stdin);
  define("args", Object.freeze([
    ...run.args
  ]));
  define("ToolError", ToolError);
  define("attach", attach);
  define("resources", resources);
  define("search", search);
  define("describe", describe);
  define(run.resultHook, resultHook);
  Object.defineProperty(Deno, "args", {
    value: Object.freeze([
      ...run.args
    ]),
    configurable: true
  });
  return {
    asToolError: (error) => error instanceof ToolError ? error : null,
    explain: (error) => {
      const fromNull = error instanceof TypeError && /\bnull\b/.test(error.message);
      return fromNull ? stdinNote : null;
    }
  };
}
function normaliseAttachment(block) {
  if (typeof block !== "object" || block === null) {
    throw new TypeError("attach() takes a content block or {data, mimeType}");
  }
  const record = block;
  if (typeof record.type === "string") return record;
  const mimeType = typeof record.mimeType === "string" ? record.mimeType : "";
  if (mimeType === "") throw new TypeError("attach({data, mimeType}) needs a mimeType string");
  const data = record.data instanceof Uint8Array ? toBase64(record.data) : record.data;
  if (typeof data !== "string") {
    throw new TypeError("attach({data}) needs data as a base64 string or a Uint8Array");
  }
  const type = mimeType.startsWith("image/") ? "image" : mimeType.startsWith("audio/") ? "audio" : null;
  if (type) return {
    type,
    data,
    mimeType
  };
  return {
    type: "resource",
    resource: {
      uri: "attachment://data",
      mimeType,
      blob: data
    }
  };
}
function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 32768) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 32768));
  }
  return btoa(binary);
}
function decodeBlobs(value) {
  if (typeof value !== "object" || value === null) return value;
  const record = value;
  if (!Array.isArray(record.contents)) return value;
  return {
    ...record,
    contents: record.contents.map((c) => typeof c.blob === "string" ? {
      ...c,
      blob: Uint8Array.from(atob(c.blob), (ch) => ch.charCodeAt(0))
    } : c)
  };
}
function toJsonSafe(value) {
  try {
    const text = JSON.stringify(value, (_k, v) => typeof v === "bigint" ? v.toString() : v);
    return text === void 0 ? String(value) : JSON.parse(text);
  } catch {
    return String(value);
  }
}

// src/protocol/bytes.ts
function concatBytes(parts) {
  if (parts.length === 1 && parts[0] !== void 0) return parts[0];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// src/exec/runner/runner_startup.ts
function readSecrets() {
  const chunks = [];
  const buf = new Uint8Array(256);
  for (; ; ) {
    const n = Deno.stdin.readSync(buf);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
    if (chunks.reduce((lines, c) => lines + c.filter((b) => b === 10).length, 0) >= 2) break;
  }
  const [token2 = "", endNonce2 = ""] = new TextDecoder().decode(concatBytes(chunks)).split("\n");
  return {
    token: token2.trim(),
    endNonce: endNonce2.trim()
  };
}
function warmEventDispatch() {
  const noop = () => {
  };
  globalThis.addEventListener("gateway-warm", noop);
  globalThis.dispatchEvent(new Event("gateway-warm"));
  globalThis.removeEventListener("gateway-warm", noop);
}

// src/protocol/json_rpc.ts
var RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A gateway-level failure (unknown namespace, refused permission, …); `data.kind` says which. */
  GatewayError: -32e3,
  /** The server is stopping and takes no new work. */
  ShuttingDown: -32001,
  /** Too much work queued; retry after `data.retryAfterMs`. */
  Overloaded: -32002
};
var RpcError = class extends Error {
  /** JSON-RPC error code. */
  code;
  /** Extra data, e.g. `{kind: "PermissionRefused"}`. */
  data;
  constructor(code, message, data) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
  /** The wire form. */
  toJSON() {
    return this.data === void 0 ? {
      code: this.code,
      message: this.message
    } : {
      code: this.code,
      message: this.message,
      data: this.data
    };
  }
};

// src/protocol/message_of.ts
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

// src/protocol/pending_requests.ts
var PendingRequests = class {
  #entries = /* @__PURE__ */ new Map();
  #next = 1;
  #idle = [];
  /** Requests waiting for an answer. */
  get size() {
    return this.#entries.size;
  }
  /** A number never handed out before by this map. */
  nextId() {
    return this.#next++;
  }
  /** Waits for the answer to `id`. */
  add(id, entry) {
    this.#entries.set(id, entry);
  }
  /** The entry of `id`, left waiting. */
  get(id) {
    return this.#entries.get(id);
  }
  /** Whether `id` still waits. */
  has(id) {
    return this.#entries.has(id);
  }
  /** Removes and returns the entry of `id` (its answer came, or it was given up). */
  take(id) {
    const entry = this.#entries.get(id);
    if (entry === void 0) return void 0;
    this.#entries.delete(id);
    if (this.#entries.size === 0 && this.#idle.length > 0) this.#wake();
    return entry;
  }
  /** The ids waiting, oldest first. */
  ids() {
    return [
      ...this.#entries.keys()
    ];
  }
  /** The entries waiting, oldest first. */
  values() {
    return this.#entries.values();
  }
  /** The ids and entries waiting, oldest first. */
  entries() {
    return this.#entries.entries();
  }
  /** Removes and returns every entry (the wire is gone: the owner fails them). */
  takeAll() {
    const entries = [
      ...this.#entries.values()
    ];
    this.#entries.clear();
    if (this.#idle.length > 0) this.#wake();
    return entries;
  }
  /** Resolves once no request waits (at once when none does). */
  idle() {
    if (this.#entries.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
  #wake() {
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }
};

// src/protocol/message_peer.ts
var PeerGoneError = class extends Error {
  /** Why, as the transport said (`its process exited with code 3`). */
  reason;
  constructor(reason) {
    super(`The other side is gone: ${reason}`);
    this.name = "PeerGoneError";
    this.reason = reason;
  }
};
var CANCEL = "$/cancel";
var UNSENT_MESSAGE_CHARS = 4096;
var END = "$/end";
function defaultWireError(error) {
  return error instanceof RpcError ? error.toJSON() : {
    code: RpcCode.InternalError,
    message: messageOf(error)
  };
}
function defaultRemoteError(error) {
  return new RpcError(error.code ?? RpcCode.InternalError, error.message, error.data);
}
function isThenable(value) {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof value.then === "function";
}
var Incoming = class {
  id;
  method;
  params;
  #responder;
  #controller;
  cancelled = false;
  settled = false;
  constructor(responder, id, method, params) {
    this.#responder = responder;
    this.id = id;
    this.method = method;
    this.params = params;
  }
  get signal() {
    if (this.#controller === void 0) {
      this.#controller = new AbortController();
      if (this.cancelled) this.#controller.abort(this.#responder.cancelReason());
    }
    return this.#controller.signal;
  }
  reply(value) {
    if (this.settled) return;
    this.#responder.answer(this, this.#responder.stamp ? {
      jsonrpc: "2.0",
      id: this.id,
      result: value
    } : {
      id: this.id,
      result: value
    });
  }
  fail(error) {
    if (this.settled) return;
    const wire = this.#responder.wireError(error);
    try {
      this.#answerError(wire);
    } catch (unsent) {
      this.#answerError({
        code: wire.code ?? RpcCode.InternalError,
        message: `${String(wire.message).slice(0, UNSENT_MESSAGE_CHARS)} (its error cannot be sent whole: ${messageOf(unsent)})`
      });
    }
  }
  #answerError(wire) {
    this.#responder.answer(this, this.#responder.stamp ? {
      jsonrpc: "2.0",
      id: this.id,
      error: wire
    } : {
      id: this.id,
      error: wire
    });
  }
  /** The other side cancelled it, or is gone. */
  abort(reason) {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#controller?.abort(reason);
  }
};
var MessagePeer = class {
  #transport;
  #pending = new PendingRequests();
  #incoming = /* @__PURE__ */ new Map();
  #handlers = /* @__PURE__ */ new Map();
  #notifications = /* @__PURE__ */ new Map();
  #anyNotification;
  #options;
  #stamp;
  #responder;
  #closeReason = null;
  #closed;
  #settleClosed;
  #closeListeners = [];
  constructor(transport, options = {}) {
    this.#transport = transport;
    this.#options = options;
    this.#stamp = options.jsonRpc === true;
    this.#closed = new Promise((resolve) => this.#settleClosed = resolve);
    const wireError = options.wireError ?? defaultWireError;
    this.#responder = {
      answer: (request2, message) => this.#answerIncoming(request2, message),
      wireError: (error) => {
        try {
          return wireError(error);
        } catch (thrown) {
          return {
            code: RpcCode.InternalError,
            message: messageOf(thrown)
          };
        }
      },
      cancelReason: options.cancelReason ?? (() => new DOMException("The request was cancelled", "AbortError")),
      stamp: this.#stamp
    };
    queueMicrotask(() => transport.start({
      message: (message) => this.#receive(message),
      close: (reason) => this.#gone(reason)
    }));
  }
  /** Resolves, with the reason, once the other side is gone or this side closed. */
  get closed() {
    return this.#closed;
  }
  /** Why the peer closed, or null while it is open. */
  get closeReason() {
    return this.#closeReason;
  }
  /** Requests sent and not answered yet. */
  get pendingCount() {
    return this.#pending.size;
  }
  /** Requests the other side sent that are being served. */
  get servingCount() {
    return this.#incoming.size;
  }
  /** Calls `listener` once, in the turn the peer closes (at once when it has). */
  onClose(listener) {
    if (this.#closeReason !== null) listener(this.#closeReason);
    else this.#closeListeners.push(listener);
  }
  /**
   * Sends request `method` and hands its answer to `entry` (straight from the message that
   * carries it, never in this turn). Returns the request's id. Throws, sending nothing, when
   * the peer is gone (`goneError`) or the request cannot be sent (too large, not JSON).
   */
  call(method, params, entry) {
    if (this.#closeReason !== null) throw this.#goneError(this.#closeReason);
    const id = this.#pending.nextId();
    this.#pending.add(id, entry);
    try {
      this.#transport.send(this.#stamp ? {
        jsonrpc: "2.0",
        id,
        method,
        params
      } : params === void 0 ? {
        id,
        method
      } : {
        id,
        method,
        params
      });
    } catch (error) {
      this.#pending.take(id);
      throw error;
    }
    return id;
  }
  /**
   * Sends request `method` and resolves with its result; rejects with the other side's error,
   * why the peer is gone, or `signal`'s reason (the other side is then told to cancel, and a
   * late answer is dropped).
   */
  request(method, params, options = {}) {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      if (signal === void 0) {
        this.call(method, params, {
          resolve,
          reject
        });
        return;
      }
      const onAbort = () => {
        if (this.#pending.take(id) === void 0) return;
        this.cancel(id);
        reject(signal.reason);
      };
      const id = this.call(method, params, {
        resolve: (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        }
      });
      signal.addEventListener("abort", onAbort, {
        once: true
      });
    });
  }
  /** Sends notification `method`; throws when it cannot be sent, drops it once closed. */
  notify(method, params) {
    if (this.#closeReason !== null) return;
    this.#transport.send(this.#stamp ? {
      jsonrpc: "2.0",
      method,
      params
    } : params === void 0 ? {
      method
    } : {
      method,
      params
    });
  }
  /** What request `id` keeps while it waits (undefined once answered or given up). */
  entry(id) {
    return this.#pending.get(id);
  }
  /** Whether request `id` still waits for its answer. */
  isPending(id) {
    return this.#pending.has(id);
  }
  /** The ids of the requests waiting, oldest first. */
  pendingIds() {
    return this.#pending.ids();
  }
  /**
   * Asks the other side to abort request `id`. The request still waits: its answer (the other
   * side's, once it stopped) is delivered, unless it is {@linkcode forget}-ten.
   */
  cancel(id) {
    if (this.#closeReason !== null) return;
    this.#transport.send(this.#stamp ? {
      jsonrpc: "2.0",
      method: CANCEL,
      params: {
        id
      }
    } : {
      method: CANCEL,
      params: {
        id
      }
    });
  }
  /** Stops waiting for request `id` (a late answer is dropped); returns what it kept. */
  forget(id) {
    return this.#pending.take(id);
  }
  /** Fails request `id` alone with `error`. */
  fail(id, error) {
    this.#pending.take(id)?.reject(error);
  }
  /** Fails every waiting request with `error`. */
  failPending(error) {
    for (const entry of this.#pending.takeAll()) entry.reject(error);
  }
  /**
   * Answers request `id` of the other side's, still served, with `value` (for a handler that
   * hands its requests on and hears their answers by id); false when no such request waits.
   */
  answer(id, value) {
    const request2 = this.#incoming.get(id);
    if (request2 === void 0) return false;
    request2.reply(value);
    return true;
  }
  /** The other side's requests being served, oldest first. */
  serving() {
    return this.#incoming.values();
  }
  /** The other side's request `id`, while it is served. */
  served(id) {
    return this.#incoming.get(id);
  }
  /** Resolves once no request waits for its answer. */
  idle() {
    return this.#pending.idle();
  }
  /**
   * Serves requests `method` with `handler`, whose value (or promise) is the answer and whose
   * throw (or rejection) the error. A value that is not a promise is answered in the turn the
   * request came.
   */
  handle(method, handler) {
    this.serve(method, (params, request2) => {
      let value;
      try {
        value = handler(params, request2);
      } catch (error) {
        request2.fail(error);
        return;
      }
      if (isThenable(value)) {
        value.then((result) => replyOrFail(request2, result), (error) => request2.fail(error));
      } else replyOrFail(request2, value);
    });
  }
  /**
   * Serves requests `method` with `handler`, which answers through the request
   * ({@linkcode IncomingRequest.reply}, {@linkcode IncomingRequest.fail}) when it likes: for
   * servers that answer first and do their bookkeeping while the answer travels.
   */
  serve(method, handler) {
    this.#handlers.set(method, handler);
  }
  /** Hands notifications `method` to `listener`. */
  on(method, listener) {
    this.#notifications.set(method, listener);
  }
  /** Hands notifications no {@linkcode on} listener takes to `listener`. */
  onNotification(listener) {
    this.#anyNotification = listener;
  }
  /**
   * Says no message follows (`$/end`) and closes: the other side has everything without
   * waiting for the transport's own end.
   */
  end() {
    if (this.#closeReason !== null) return;
    try {
      this.#transport.send(this.#stamp ? {
        jsonrpc: "2.0",
        method: END
      } : {
        method: END
      });
    } catch {
    }
    this.#transport.close("ended");
  }
  /** Closes this side: waiting requests fail, served ones are aborted. */
  close(reason = "closed") {
    this.#transport.close(reason);
  }
  /** Resolves once everything sent so far is written. */
  flushed() {
    return this.#transport.flushed();
  }
  #goneError(reason) {
    return this.#options.goneError?.(reason) ?? new PeerGoneError(reason);
  }
  #receive(message) {
    const method = message.method;
    if (method === void 0) {
      this.#answer(message);
      return;
    }
    if (typeof method !== "string") {
      this.#options.onDropped?.("a message whose method is not a string");
      return;
    }
    const id = message.id;
    if (id === void 0) this.#notification(method, message.params);
    else if (typeof id === "number" || typeof id === "string") {
      this.#request(id, method, message.params);
    } else this.#options.onDropped?.(`a request to "${method}" whose id is not a number`);
  }
  #answer(message) {
    const id = message.id;
    if (typeof id !== "number" && typeof id !== "string") {
      this.#options.onDropped?.("a message with neither a method nor an id");
      return;
    }
    const entry = this.#pending.take(id);
    if (entry === void 0) return;
    const error = message.error;
    try {
      if (error === void 0) {
        entry.resolve(message.result);
        return;
      }
      const wire = typeof error === "object" && error !== null && typeof error.message === "string" ? error : {
        code: RpcCode.InternalError,
        message: `a malformed error answer: ${String(error)}`
      };
      entry.reject((this.#options.remoteError ?? defaultRemoteError)(wire));
    } catch (thrown) {
      reportError(thrown);
    }
  }
  #notification(method, params) {
    if (method === CANCEL) {
      const id = params?.id;
      const request2 = typeof id === "number" || typeof id === "string" ? this.#incoming.get(id) : void 0;
      request2?.abort(this.#responder.cancelReason());
      return;
    }
    if (method === END) {
      this.#transport.close("the other side ended");
      return;
    }
    const listener = this.#notifications.get(method);
    try {
      if (listener !== void 0) listener(params);
      else if (this.#anyNotification !== void 0) this.#anyNotification(method, params);
      else this.#options.onDropped?.(`a notification "${method}" nobody listens to`);
    } catch (thrown) {
      reportError(thrown);
    }
  }
  #request(id, method, params) {
    const handler = this.#handlers.get(method);
    const request2 = new Incoming(this.#responder, id, method, params);
    if (handler === void 0) {
      request2.fail(new RpcError(RpcCode.MethodNotFound, `Unknown method "${method}"`));
      return;
    }
    this.#incoming.set(id, request2);
    try {
      handler(params, request2);
    } catch (error) {
      request2.fail(error);
    }
  }
  #answerIncoming(request2, message) {
    if (this.#closeReason !== null) {
      request2.settled = true;
      return;
    }
    this.#transport.send(message);
    request2.settled = true;
    if (this.#incoming.get(request2.id) === request2) this.#incoming.delete(request2.id);
  }
  #gone(reason) {
    if (this.#closeReason !== null) return;
    this.#closeReason = reason;
    if (this.#incoming.size > 0) {
      const serving = [
        ...this.#incoming.values()
      ];
      this.#incoming.clear();
      const why = new DOMException(`The other side is gone: ${reason}`, "AbortError");
      for (const request2 of serving) request2.abort(why);
    }
    if (!this.#options.holdPendingOnGone && this.#pending.size > 0) {
      this.failPending(this.#goneError(reason));
    }
    this.#settleClosed(reason);
    const listeners = this.#closeListeners;
    this.#closeListeners = [];
    for (const listener of listeners) listener(reason);
  }
};
function replyOrFail(request2, value) {
  try {
    request2.reply(value);
  } catch (error) {
    request2.fail(new RpcError(RpcCode.InternalError, `Cannot send the answer to "${request2.method}": ${messageOf(error)}`));
  }
}

// src/protocol/chunk_decoder.ts
var NEWLINE = 10;
var ChunkDecoder = class {
  #whole = new TextDecoder("utf-8", {
    ignoreBOM: true
  });
  #streaming = new TextDecoder("utf-8", {
    ignoreBOM: true
  });
  /** True while the streaming decoder may hold the start of a split character. */
  #split = false;
  /** The text of `chunk`, with any character begun in the chunks before it. */
  decode(chunk) {
    const endsLine = chunk.length > 0 && chunk[chunk.length - 1] === NEWLINE;
    if (!this.#split && endsLine) return this.#whole.decode(chunk);
    const text = this.#streaming.decode(chunk, {
      stream: true
    });
    this.#split = !endsLine;
    return text;
  }
  /** What is left at the end of the stream: an incomplete character as U+FFFD, else "". */
  end() {
    this.#split = false;
    return this.#streaming.decode();
  }
};

// src/protocol/line_framer.ts
var END_CHARS = 512;
var OversizedLine = class {
  /** The line's length in UTF-16 code units (what was read of it, when the stream ended). */
  length;
  /** Its first characters. */
  head;
  /** Its last characters. */
  tail;
  constructor(start) {
    this.length = start.length;
    this.head = start.slice(0, END_CHARS);
    this.tail = start.slice(-END_CHARS);
  }
  /** Takes the next piece of the line. */
  add(piece) {
    if (piece.length === 0) return;
    this.length += piece.length;
    if (this.head.length < END_CHARS) this.head = (this.head + piece).slice(0, END_CHARS);
    this.tail = (this.tail + piece.slice(-END_CHARS)).slice(-END_CHARS);
  }
  /**
   * The top-level JSON-RPC id, when the line opens with it (`{"jsonrpc":"2.0","id":3,…`) or
   * closes with it (`…,"id":3}`, as most writers put it last); an `"id"` inside the payload is
   * never taken for it.
   */
  requestId() {
    const id = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
    const opening = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + id);
    const closing = new RegExp(String.raw`"id"\s*:\s*` + id + String.raw`\s*\}\s*$`);
    const match = opening.exec(this.head) ?? closing.exec(this.tail);
    return match ? JSON.parse(match[1]) : null;
  }
};
var LineFramer = class {
  #onLine;
  #max;
  #onOversized;
  #decoder = new ChunkDecoder();
  /** The pieces of the line not ended yet, in order. */
  #pieces = [];
  #pendingLength = 0;
  /** The line being skipped because it is over the limit. */
  #dropping = null;
  constructor(onLine, options = {}) {
    this.#onLine = onLine;
    this.#max = options.maxLineLength ?? Infinity;
    this.#onOversized = options.onOversized;
  }
  /** The longest line kept; a handshake may raise it once the other side is known. */
  get maxLineLength() {
    return this.#max;
  }
  set maxLineLength(length) {
    this.#max = length;
  }
  /** Characters of the line not ended yet (held until its newline comes). */
  get pendingLength() {
    return this.#dropping?.length ?? this.#pendingLength;
  }
  /** True while a line over the limit is being skipped. */
  get dropping() {
    return this.#dropping !== null;
  }
  /** Decodes `chunk` (a character split over two chunks comes out whole) and frames it. */
  push(chunk) {
    this.pushText(this.#decoder.decode(chunk));
  }
  /** Hands every line `text` completes to the callback, in order, and keeps the rest. */
  pushText(text) {
    let start = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
      const piece = text.slice(start, newline);
      start = newline + 1;
      this.#ended(piece);
    }
    if (start < text.length) this.#hold(start === 0 ? text : text.slice(start));
  }
  /** The stream ended: a last line without its newline is handed over too. */
  end() {
    const rest = this.#decoder.end();
    if (rest !== "") this.#hold(rest);
    if (this.#dropping !== null || this.#pieces.length > 0) this.#ended("");
  }
  #hold(piece) {
    if (this.#dropping !== null) {
      this.#dropping.add(piece);
      return;
    }
    this.#pieces.push(piece);
    this.#pendingLength += piece.length;
    if (this.#pendingLength > this.#max) {
      this.#dropping = new OversizedLine(this.#pieces.join(""));
      this.#pieces = [];
      this.#pendingLength = 0;
    }
  }
  #ended(piece) {
    const dropping = this.#dropping;
    if (dropping !== null) {
      dropping.add(piece);
      this.#dropping = null;
      this.#onOversized?.(dropping);
      return;
    }
    let line = piece;
    if (this.#pieces.length > 0) {
      this.#pieces.push(piece);
      line = this.#pieces.join("");
      this.#pieces = [];
      this.#pendingLength = 0;
    }
    if (line.length > this.#max) {
      this.#onOversized?.(new OversizedLine(line));
      return;
    }
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.trim() !== "") this.#onLine(line);
  }
};

// src/protocol/transport.ts
var InboxBuffer = class {
  #events = null;
  #queued = [];
  #closedWith = null;
  #closeDelivered = false;
  /** True once the close was delivered (or is queued). */
  get closed() {
    return this.#closedWith !== null;
  }
  /** The events messages go to, once started. */
  start(events) {
    this.#events = events;
    if (this.#queued.length > 0) {
      const queued = this.#queued;
      this.#queued = [];
      for (const message of queued) {
        if (this.#events !== events) {
          this.#queued.push(message);
          continue;
        }
        events.message(message);
      }
    }
    if (this.#closedWith !== null && !this.#closeDelivered && this.#events === events) {
      this.#closeDelivered = true;
      events.close(this.#closedWith);
    }
  }
  /** Stops delivering: messages queue until the next {@linkcode start}. */
  hold() {
    this.#events = null;
  }
  /** One message read. */
  message(message) {
    if (this.#closedWith !== null) return;
    const events = this.#events;
    if (events === null) this.#queued.push(message);
    else events.message(message);
  }
  /** The transport closed; told once. */
  close(reason) {
    if (this.#closedWith !== null) return;
    this.#closedWith = reason;
    if (this.#events !== null && this.#queued.length === 0) {
      this.#closeDelivered = true;
      this.#events.close(reason);
    }
  }
};

// src/protocol/stream_transport.ts
var ENCODER = new TextEncoder();
var WRITE_BATCH_LENGTH = 64 * 1024;
var DEFAULT_MAX_MESSAGE = 16 * 1024 * 1024;
var OVER_SIZE_LIMIT = "a message over the size limit";
var StreamTransport = class _StreamTransport {
  #streams;
  #inbox = new InboxBuffer();
  #framer;
  #stringify;
  #guard;
  #wireName;
  #oversized;
  #onDropped;
  #write;
  #maxMessageBytes;
  #writing = false;
  #queued = [];
  #idle = [];
  #closed = false;
  #streamClosed = false;
  /** Resolves once the read loop has ended (the stream's end, or the transport closed). */
  readDone;
  constructor(streams, options = {}) {
    this.#streams = streams;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE;
    this.#stringify = options.stringify ?? JSON.stringify;
    this.#guard = options.guardLines === true;
    this.#wireName = options.wireName ?? "this wire";
    this.#oversized = options.oversized ?? "close";
    this.#onDropped = options.onDropped;
    const onOversized = options.onOversized;
    this.#framer = new LineFramer((line) => this.#line(line), {
      maxLineLength: this.#maxMessageBytes,
      onOversized: (line) => {
        onOversized?.(line);
        if (this.#oversized === "close") this.close(OVER_SIZE_LIMIT);
      }
    });
    const writable = streams.writable;
    if ("getWriter" in writable) {
      const writer = writable.getWriter();
      writer.closed.catch(() => {
      });
      this.#write = (bytes) => writer.write(bytes).then(() => bytes.length);
      const close = streams.close;
      this.#streams = {
        ...streams,
        close: () => {
          writer.close().catch(() => {
          });
          close?.();
        }
      };
    } else this.#write = (bytes) => writable.write(bytes);
    const readable = streams.readable;
    this.readDone = "getReader" in readable ? this.#readStream(readable) : this.#readFrom(readable, options.readBufferBytes ?? 64 * 1024);
  }
  /** Wraps a connection (`Deno.connect`, an accepted socket). */
  static fromConn(conn2, options = {}) {
    return new _StreamTransport({
      readable: conn2,
      writable: conn2,
      close: () => conn2.close(),
      ref: () => conn2.ref(),
      unref: () => conn2.unref()
    }, options);
  }
  /** The limit on messages either way; a handshake raises it once the other side is known. */
  get maxMessageBytes() {
    return this.#maxMessageBytes;
  }
  set maxMessageBytes(bytes) {
    this.#maxMessageBytes = bytes;
    this.#framer.maxLineLength = bytes;
  }
  /** What a message over the limit does; a handshake may relax it once the other side is known. */
  get oversized() {
    return this.#oversized;
  }
  set oversized(policy) {
    this.#oversized = policy;
  }
  /** True once closed (by either side). */
  get closed() {
    return this.#closed;
  }
  start(events) {
    this.#inbox.start(events);
  }
  /** Stops delivering messages until the next {@linkcode start} (they wait, in order). */
  hold() {
    this.#inbox.hold();
  }
  send(message) {
    const text = this.#stringify(message);
    if (typeof text !== "string") throw new TypeError("The message cannot be sent as JSON");
    const line = this.#guard ? `
${text}
` : `${text}
`;
    if (line.length > this.#maxMessageBytes) this.#tooLarge(message, ENCODER.encode(line).length);
    if (this.#closed) return;
    if (this.#writing) {
      if (line.length * 3 > this.#maxMessageBytes) {
        const bytes2 = ENCODER.encode(line).length;
        if (bytes2 > this.#maxMessageBytes) this.#tooLarge(message, bytes2);
      }
      this.#queued.push(line);
      return;
    }
    const bytes = ENCODER.encode(line);
    if (bytes.length > this.#maxMessageBytes) this.#tooLarge(message, bytes.length);
    this.#writing = true;
    this.#write(bytes).then((written) => {
      if (written === bytes.length && this.#queued.length === 0) this.#done();
      else this.#drain(bytes.subarray(written));
    }, (error) => this.#writeFailed(error));
  }
  /** Lets the stream keep the process alive (the default), or not. */
  ref() {
    this.#streams.ref?.();
  }
  /** See {@linkcode ref}. */
  unref() {
    this.#streams.unref?.();
  }
  close(reason = "closed") {
    if (this.#closed) return;
    this.#closed = true;
    this.#queued = [];
    this.#endStream();
    this.#inbox.close(reason);
    if (!this.#writing) this.#wake();
  }
  flushed() {
    if (!this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
  #tooLarge(message, bytes) {
    const method = typeof message.method === "string" ? `"${message.method}" ` : "";
    throw new RangeError(`The ${method}message is ${bytes} bytes, over ${this.#wireName}'s limit of ${this.#maxMessageBytes} bytes: send less at once`);
  }
  #line(line) {
    if (this.#closed) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.#onDropped?.("a line that is not JSON");
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.#onDropped?.("a line that is not a JSON object");
      return;
    }
    this.#inbox.message(message);
  }
  async #readFrom(reader, size) {
    const buffer = new Uint8Array(size);
    let reason = "closed by the other side";
    try {
      for (; ; ) {
        const n = await reader.read(buffer);
        if (n === null) break;
        this.#framer.push(buffer.subarray(0, n));
        if (this.#framer.dropping) this.#overLimit();
        if (this.#closed) return;
      }
    } catch (error) {
      if (this.#closed) return;
      reason = `the connection failed: ${messageOf(error)}`;
    }
    this.#framer.end();
    this.close(reason);
  }
  async #readStream(stream) {
    const reader = stream.getReader();
    let reason = "closed by the other side";
    try {
      for (; ; ) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#framer.push(value);
        if (this.#framer.dropping) this.#overLimit();
        if (this.#closed) break;
      }
    } catch (error) {
      if (!this.#closed) reason = `the stream failed: ${messageOf(error)}`;
    }
    if (this.#closed) {
      await reader.cancel().catch(() => {
      });
      return;
    }
    this.#framer.end();
    this.close(reason);
  }
  /** A message over the limit is being read: closing needs no more of it. */
  #overLimit() {
    if (this.#oversized !== "close") return;
    this.#onDropped?.(`${OVER_SIZE_LIMIT} (closing)`);
    this.close(OVER_SIZE_LIMIT);
  }
  #endStream() {
    if (this.#streamClosed) return;
    this.#streamClosed = true;
    try {
      this.#streams.close?.();
    } catch {
    }
  }
  #writeFailed(error) {
    this.#queued = [];
    this.#done();
    this.close(`the connection failed: ${messageOf(error)}`);
  }
  #done() {
    this.#writing = false;
    this.#wake();
  }
  #wake() {
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }
  /** Lines sent meanwhile, joined up to a batch's worth (a burst is not copied whole). */
  #next() {
    if (this.#queued.length === 0) return void 0;
    let length = 0;
    let count = 0;
    while (count < this.#queued.length && length < WRITE_BATCH_LENGTH) {
      length += this.#queued[count].length;
      count++;
    }
    return count === 1 ? this.#queued.shift() : this.#queued.splice(0, count).join("");
  }
  /** Writes the rest of a line the stream took part of, then the lines queued meanwhile. */
  async #drain(rest) {
    try {
      let bytes = rest;
      while (bytes !== void 0) {
        for (let at = 0; at < bytes.length; ) at += await this.#write(bytes.subarray(at));
        if (this.#closed) break;
        const text = this.#next();
        bytes = text === void 0 ? void 0 : ENCODER.encode(text);
      }
      this.#done();
    } catch (error) {
      this.#writeFailed(error);
    }
  }
};

// src/exec/runner/runner_main.ts
var socketPath = Deno.args[0];
if (!socketPath) throw new Error("runner_main.ts needs the channel socket path as its argument");
var revokeSocketGrants = Deno.args[1] === "revoke";
var revokeDiscoveryGrant = Deno.args.includes("revoke-discovery");
var discoveryPath = `${import.meta.dirname}/runner_discovery.bundle.js`;
function fileUrl(path) {
  return `file://${encodeURI(path).replaceAll("?", "%3F").replaceAll("#", "%23")}`;
}
var encoder = new TextEncoder();
var { token, endNonce } = readSecrets();
var conn = await Deno.connect({
  transport: "unix",
  path: socketPath
});
var channel = StreamTransport.fromConn(conn, {
  maxMessageBytes: MAX_CHANNEL_LINE_BYTES,
  wireName: CHANNEL_NAME
});
function channelRejection(error) {
  const data = error.data ?? {};
  const channelError = {
    kind: data.kind ?? "ToolError",
    message: error.message
  };
  if (data.namespace !== void 0) channelError.namespace = data.namespace;
  if (data.tool !== void 0) channelError.tool = data.tool;
  return {
    channelError,
    raw: data.raw
  };
}
var peer = new MessagePeer(channel, {
  remoteError: channelRejection,
  goneError: () => new Error("The gateway closed the run's channel")
});
var writeStdout = Deno.stdout.writeSync.bind(Deno.stdout);
var writeStderr = Deno.stderr.writeSync.bind(Deno.stderr);
var channelClosedByUs = false;
globalThis.addEventListener("unload", () => {
  channelClosedByUs = true;
  peer.end();
  if (endNonce !== "") {
    const marker = encoder.encode(`${END_MARKER_PREFIX}${endNonce}:${Deno.exitCode}
`);
    for (const write of [
      writeStdout,
      writeStderr
    ]) {
      try {
        for (let at = 0; at < marker.length; ) at += write(marker.subarray(at));
      } catch {
      }
    }
  }
});
var topLevelDone = false;
var referenced = true;
function updateRef() {
  const needed = !topLevelDone || peer.pendingCount > 0;
  if (needed === referenced) return;
  referenced = needed;
  if (needed) channel.ref();
  else channel.unref();
}
peer.onClose(() => {
  if (channelClosedByUs) return;
  Deno.exit(70);
});
var runMessage = new Promise((resolve, reject) => {
  peer.on(ChannelMethod.run, (params) => resolve(params));
  peer.on(ChannelMethod.refused, (params) => reject(new Error(params.message)));
  peer.on(ChannelMethod.locate, (params) => locateCall(params.id));
});
peer.notify(ChannelMethod.hello, {
  token
});
await peer.flushed();
warmEventDispatch();
channel.unref();
channel.ref();
if (revokeSocketGrants) {
  Deno.permissions.revokeSync({
    name: "read",
    path: socketPath
  });
  Deno.permissions.revokeSync({
    name: "write",
    path: socketPath
  });
  Deno.permissions.revokeSync({
    name: "net",
    host: `unix:${socketPath}`
  });
}
serve().catch((error) => {
  writeStderr(encoder.encode(`error: ${error instanceof Error ? error.stack : String(error)}
`));
  Deno.exit(1);
});
function locateCall(id) {
  const entry = peer.entry(id);
  if (entry?.locate === void 0) return;
  const line = entry.locate();
  delete entry.locate;
  if (line !== void 0) notify(ChannelMethod.callLine, {
    id,
    line
  });
}
function notify(method, params) {
  try {
    peer.notify(method, params);
  } catch (error) {
    return Promise.reject(error);
  }
  return peer.flushed();
}
function request(method, params, locate, failure) {
  return new Promise((resolve, settleFailed) => {
    const reject = failure === void 0 ? settleFailed : (error) => settleFailed(failure(error));
    const entry = {
      resolve: (value) => {
        resolve(value);
        updateRef();
      },
      reject: (error) => {
        reject(error);
        updateRef();
      }
    };
    if (locate !== void 0) entry.locate = locate;
    try {
      peer.call(method, params, entry);
    } catch (error) {
      queueMicrotask(() => reject(error));
      return;
    }
    updateRef();
  });
}
async function serve() {
  const run = await runMessage;
  if (run.exitAtEnd === true) {
    let exitListenerAdded = false;
    globalThis.addEventListener("beforeunload", () => {
      if (exitListenerAdded) return;
      exitListenerAdded = true;
      globalThis.addEventListener("unload", () => Deno.exit(Deno.exitCode));
    });
  }
  const discovery = run.discovery ? await import(fileUrl(discoveryPath)) : null;
  if (revokeDiscoveryGrant) {
    Deno.permissions.revokeSync({
      name: "read",
      path: discoveryPath
    });
  }
  const globals = installScriptGlobals(run, {
    request,
    notify
  }, discovery ? {
    discoveryReader: (data) => new discovery.DiscoveryReader(data)
  } : {});
  function describeFailure(error) {
    const toolError = globals.asToolError(error);
    if (toolError) {
      const located = locate(toolError.stack ?? "", run.scriptPath);
      return {
        name: "ToolError",
        message: toolError.message,
        ...located,
        tool: {
          kind: toolError.kind,
          message: toolError.message,
          namespace: toolError.namespace,
          tool: toolError.tool
        }
      };
    }
    if (error instanceof Error) {
      const stack = error.stack ?? "";
      const note = globals.explain(error);
      const message = note === null ? error.message : `${error.message} (${note})`;
      return {
        name: error.name,
        message,
        stack,
        ...locate(stack, run.scriptPath)
      };
    }
    return {
      name: "Error",
      message: `Uncaught ${safeString(error)}`
    };
  }
  function safeString(value) {
    try {
      return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
    } catch {
      return String(value);
    }
  }
  function locate(stack, scriptPath) {
    const marker = `${scriptPath}:`;
    for (const frame of stack.split("\n")) {
      const at = frame.indexOf(marker);
      if (at < 0) continue;
      const match = /^(\d+):(\d+)/.exec(frame.slice(at + marker.length));
      if (match) return {
        line: Number(match[1]),
        column: Number(match[2])
      };
    }
    return {};
  }
  let failing = false;
  async function fail(error) {
    if (!failing) {
      failing = true;
      await notify(ChannelMethod.failed, {
        error: describeFailure(error)
      }).catch(() => void 0);
    }
    Deno.exit(1);
  }
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    fail(event.error);
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    const failure = describeFailure(event.reason);
    const where = failure.line ? ` (line ${failure.line})` : "";
    const fix = failure.line ? `add \`await\` to the call on line ${failure.line}` : "add `await`";
    notify(ChannelMethod.warning, {
      message: `Unhandled promise rejection${where}: ${failure.name}: ${failure.message}; ${fix} (or .catch() it) so its failure stops the run or is handled`
    }).catch(() => void 0);
  });
  try {
    await import(fileUrl(run.scriptPath));
  } catch (error) {
    await fail(error);
  }
  globalThis.dispatchEvent(new Event("load"));
  await peer.flushed();
  topLevelDone = true;
  updateRef();
}

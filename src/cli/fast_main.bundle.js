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
async function writeAll(writer, bytes) {
  for (let at = 0; at < bytes.length; ) at += await writer.write(bytes.subarray(at));
}

// src/client/http_response_reader.ts
var MAX_HEAD_BYTES = 64 * 1024;
function requestBytes(method, path, headers, body) {
  const encoder = new TextEncoder();
  const payload = body === null ? null : encoder.encode(body);
  let head = `${method} ${path} HTTP/1.1\r
`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r
`;
  if (payload !== null) {
    head += `Content-Type: application/json\r
Content-Length: ${payload.length}\r
`;
  }
  head += "Connection: close\r\n\r\n";
  const bytes = encoder.encode(head);
  return payload === null ? bytes : concatBytes([
    bytes,
    payload
  ]);
}
var ConnInput = class {
  #conn;
  #buffered;
  #chunk = new Uint8Array(64 * 1024);
  constructor(conn) {
    this.#conn = conn;
    this.#buffered = new Uint8Array(0);
  }
  /** What is buffered, taken; or the next read (null at the connection's end). */
  async next() {
    if (this.#buffered.length > 0) {
      const out = this.#buffered;
      this.#buffered = new Uint8Array(0);
      return out;
    }
    const n = await this.#conn.read(this.#chunk);
    return n === null ? null : this.#chunk.slice(0, n);
  }
  /** Reads until `buffered` holds `n` bytes; false when the connection ends first. */
  async fill(n) {
    if (this.#buffered.length >= n) return true;
    const parts = [
      this.#buffered
    ];
    let total = this.#buffered.length;
    let ended = false;
    while (total < n) {
      const read = await this.#conn.read(this.#chunk);
      if (read === null) {
        ended = true;
        break;
      }
      parts.push(this.#chunk.slice(0, read));
      total += read;
    }
    this.#buffered = concatBytes(parts);
    return !ended;
  }
  /** The first `n` buffered bytes, taken (after a successful {@linkcode fill}). */
  take(n) {
    const out = this.#buffered.subarray(0, n);
    this.#buffered = this.#buffered.subarray(n);
    return out;
  }
  /** The index just past the next CRLF (or CRLFCRLF), reading more as needed; -1 at the end. */
  async find(pattern, limit) {
    for (let from = 0; ; ) {
      const at = indexOf(this.#buffered, pattern, from);
      if (at >= 0) return at + pattern.length;
      if (this.#buffered.length > limit) {
        throw new Error("the gateway's answer has too long a header");
      }
      from = Math.max(0, this.#buffered.length - pattern.length + 1);
      if (!await this.fill(this.#buffered.length + 1)) return -1;
    }
  }
};
function indexOf(bytes, pattern, from) {
  const last = bytes.length - pattern.length;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < pattern.length; j++) {
      if (bytes[i + j] !== pattern.charCodeAt(j)) continue outer;
    }
    return i;
  }
  return -1;
}
async function readAnswer(conn) {
  const input = new ConnInput(conn);
  const end = await input.find("\r\n\r\n", MAX_HEAD_BYTES);
  if (end < 0) throw new Error("the gateway closed the connection before answering");
  const head = new TextDecoder().decode(input.take(end));
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === void 0) throw new Error(`the answer is not HTTP: "${statusLine.slice(0, 80)}"`);
  const headers = /* @__PURE__ */ new Map();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
  const chunked = /\bchunked\b/i.test(headers.get("transfer-encoding") ?? "");
  const length = headers.has("content-length") ? Number(headers.get("content-length")) : null;
  return {
    status: Number(status),
    headers,
    body: chunked ? chunkedBody(input) : length !== null && Number.isFinite(length) ? sizedBody(input, length) : untilEnd(input)
  };
}
async function* sizedBody(input, length) {
  for (let left = length; left > 0; ) {
    const chunk = await input.next();
    if (chunk === null) throw new Error("the gateway closed the connection mid-answer");
    const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
    left -= part.length;
    yield part;
  }
}
async function* untilEnd(input) {
  for (let chunk = await input.next(); chunk !== null; chunk = await input.next()) yield chunk;
}
async function* chunkedBody(input) {
  for (; ; ) {
    const lineEnd = await input.find("\r\n", 1024);
    if (lineEnd < 0) throw new Error("the gateway closed the connection mid-answer");
    const size = parseInt(new TextDecoder().decode(input.take(lineEnd)), 16);
    if (!Number.isFinite(size)) throw new Error("the gateway's answer has a malformed chunk");
    if (size === 0) return;
    if (!await input.fill(size + 2)) {
      throw new Error("the gateway closed the connection mid-answer");
    }
    yield input.take(size).slice();
    input.take(2);
  }
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

// src/protocol/message_of.ts
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

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

// src/client/http_exchange_transport.ts
var HttpExchangeTransport = class {
  #conn;
  #headers;
  #inbox = new InboxBuffer();
  #sent = false;
  #closed = false;
  #writing = Promise.resolve();
  /** `conn` is connected already; `headers` go with the request (the host, a token). */
  constructor(conn, headers) {
    this.#conn = conn;
    this.#headers = headers;
  }
  start(events) {
    this.#inbox.start(events);
  }
  send(message) {
    if (this.#closed) return;
    if (this.#sent) {
      this.close("cancelled");
      return;
    }
    const body = JSON.stringify(message);
    if (body === void 0) throw new TypeError("The request is not JSON");
    this.#sent = true;
    const id = message.id;
    this.#writing = this.#exchange(requestBytes("POST", "/rpc", this.#headers, body), id);
  }
  close(reason = "closed") {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
    }
    this.#inbox.close(reason);
  }
  flushed() {
    return this.#writing;
  }
  async #exchange(request, id) {
    let reason = "closed by the other side";
    try {
      await writeAll(this.#conn, request);
      const answer = await readAnswer(this.#conn);
      if (answer.status !== 200) {
        this.#inbox.message({
          id,
          error: refusal(answer.status, await readText(answer.body))
        });
      } else {
        const lines = new LineFramer((line) => {
          let message;
          try {
            message = JSON.parse(line);
          } catch {
            return;
          }
          if (typeof message === "object" && message !== null && !Array.isArray(message)) {
            this.#inbox.message(message);
          }
        });
        for await (const chunk of answer.body) lines.push(chunk);
        lines.end();
      }
    } catch (error) {
      if (this.#closed) return;
      reason = `the connection failed: ${messageOf(error)}`;
    }
    this.close(reason);
  }
};
async function readText(body) {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) text += decoder.decode(chunk, {
    stream: true
  });
  return text + decoder.decode();
}
function refusal(status, text) {
  let error;
  try {
    error = JSON.parse(text).error;
  } catch {
  }
  if (error && typeof error.code === "number" && typeof error.message === "string") {
    return error.data === void 0 ? {
      code: error.code,
      message: error.message
    } : {
      code: error.code,
      message: error.message,
      data: error.data
    };
  }
  const message = typeof error?.message === "string" ? error.message : text.slice(0, 200);
  return {
    code: RpcCode.InternalError,
    message: `The gateway answered ${status}: ${message}`,
    data: {
      httpStatus: status
    }
  };
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
      answer: (request, message) => this.#answerIncoming(request, message),
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
    const request = this.#incoming.get(id);
    if (request === void 0) return false;
    request.reply(value);
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
    this.serve(method, (params, request) => {
      let value;
      try {
        value = handler(params, request);
      } catch (error) {
        request.fail(error);
        return;
      }
      if (isThenable(value)) {
        value.then((result) => replyOrFail(request, result), (error) => request.fail(error));
      } else replyOrFail(request, value);
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
      const request = typeof id === "number" || typeof id === "string" ? this.#incoming.get(id) : void 0;
      request?.abort(this.#responder.cancelReason());
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
    const request = new Incoming(this.#responder, id, method, params);
    if (handler === void 0) {
      request.fail(new RpcError(RpcCode.MethodNotFound, `Unknown method "${method}"`));
      return;
    }
    this.#incoming.set(id, request);
    try {
      handler(params, request);
    } catch (error) {
      request.fail(error);
    }
  }
  #answerIncoming(request, message) {
    if (this.#closeReason !== null) {
      request.settled = true;
      return;
    }
    this.#transport.send(message);
    request.settled = true;
    if (this.#incoming.get(request.id) === request) this.#incoming.delete(request.id);
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
      for (const request of serving) request.abort(why);
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
function replyOrFail(request, value) {
  try {
    request.reply(value);
  } catch (error) {
    request.fail(new RpcError(RpcCode.InternalError, `Cannot send the answer to "${request.method}": ${messageOf(error)}`));
  }
}

// src/config/token_file.ts
function tokenPath(dataDir) {
  return `${dataDir.replace(/[\\/]+$/, "")}/token`;
}
function readTokenSync(dataDir) {
  const path = tokenPath(dataDir);
  refuseOpenMode(path, Deno.statSync(path));
  return validToken(path, Deno.readTextFileSync(path));
}
function refuseOpenMode(path, info) {
  if (Deno.build.os !== "windows" && info.mode !== null && (info.mode & 63) !== 0) {
    throw new Error(`Token file "${path}" is readable by others (mode ${(info.mode & 511).toString(8)}): run chmod 600 "${path}" or delete it to make a new one`);
  }
}
function validToken(path, text) {
  const token = text.trim();
  if (token.length < 32) {
    throw new Error(`Token file "${path}" is too short: delete it to make a new one`);
  }
  return token;
}

// src/client/gateway_http_client.ts
var ForeignSocketError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "ForeignSocketError";
  }
};
var UnreachableError = class extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "UnreachableError";
  }
};
function assertOwnSocket(path) {
  const info = Deno.lstatSync(path);
  const uid = Deno.uid();
  if (info.isSocket !== true) {
    throw new ForeignSocketError(`"${path}" is not a socket: refusing to talk to it`);
  }
  if (uid !== null && info.uid !== uid) {
    throw new ForeignSocketError(`The socket "${path}" belongs to uid ${info.uid}, not to you (uid ${uid}): refusing to talk to it; stop whatever made it, or delete it and start again`);
  }
}
function endpointOf(state, dataDir) {
  if (state.socket !== null) {
    assertOwnSocket(state.socket);
    return {
      transport: "unix",
      path: state.socket
    };
  }
  return {
    transport: "tcp",
    port: state.port,
    token: readTokenSync(dataDir)
  };
}
var GatewayHttpClient = class {
  #endpoint;
  #listeners = /* @__PURE__ */ new Set();
  #conns = /* @__PURE__ */ new Set();
  /** The conversations of the requests still open (their streams, a subscription's too). */
  #open = /* @__PURE__ */ new Set();
  #wire;
  #closed = false;
  constructor(endpoint, options = {}) {
    this.#endpoint = endpoint;
    this.#wire = options.wire ?? (async () => {
      const conn = await this.#connect();
      this.#conns.delete(conn);
      return new HttpExchangeTransport(conn, this.#headers());
    });
  }
  /** Where this client sends its requests. */
  get endpoint() {
    return this.#endpoint;
  }
  /**
   * Sends a request and resolves with its result; rejects with {@linkcode RpcError} when the
   * server answers an error, with {@linkcode UnreachableError} when no server listens (nothing
   * was sent), and with an Error when the connection ends before the answer. `params` may be a
   * function, called once the connection is open: for params that must not be read when no
   * server answers (the CLI's piped stdin, which the full CLI then reads).
   */
  async request(method, params = {}) {
    if (this.#closed) throw new Error("The connection to the gateway is closed");
    const wire = await this.#wire();
    if (this.#closed) {
      wire.close("closed by the client");
      throw new Error("The connection to the gateway is closed");
    }
    const peer = new MessagePeer(wire, {
      jsonRpc: true,
      // An HTTP refusal is no method's error: a plain Error with the status, as before RPC.
      remoteError: (error) => {
        const status = error.data?.httpStatus;
        return typeof status === "number" ? new Error(error.message) : new RpcError(error.code ?? RpcCode.InternalError, error.message, error.data);
      },
      goneError: (reason) => reason === "closed by the client" ? new Error("The connection to the gateway was closed") : reason.startsWith("the connection failed: ") ? new Error(`The connection to the gateway failed: ${reason.slice(23)}`) : new Error("The gateway closed the connection before answering")
    });
    this.#open.add(peer);
    peer.onClose(() => this.#open.delete(peer));
    peer.onNotification((name, notification) => {
      for (const listener of this.#listeners) listener({
        method: name,
        params: notification
      });
    });
    try {
      const body = typeof params === "function" ? await params() : params;
      return await peer.request(method, body);
    } catch (error) {
      peer.close("closed by the client");
      throw error;
    }
  }
  /** Listens for notifications of every request of this client; returns an unsubscribe. */
  onNotification(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /**
   * One plain HTTP request (`GET /health`, `POST /ui/code` …) with its whole answer read as
   * JSON; `signal` gives up on it (the connection is closed).
   */
  async send(method, path, options = {}) {
    const conn = await this.#connect();
    const abort = () => conn.close();
    options.signal?.addEventListener("abort", abort, {
      once: true
    });
    try {
      const body = options.body === void 0 ? null : JSON.stringify(options.body);
      await writeAll(conn, requestBytes(method, path, this.#headers(), body));
      const answer = await readAnswer(conn);
      const text = await readText2(answer.body);
      let parsed = null;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {
      }
      return {
        status: answer.status,
        body: parsed
      };
    } catch (error) {
      if (options.signal?.aborted) throw new Error(`No answer from the gateway to ${path} in time`);
      throw error;
    } finally {
      options.signal?.removeEventListener("abort", abort);
      this.#drop(conn);
    }
  }
  /** Closes every open request's connection; what still waits rejects. */
  close() {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const peer of [
      ...this.#open
    ]) peer.close("closed by the client");
    for (const conn of [
      ...this.#conns
    ]) this.#drop(conn);
    return Promise.resolve();
  }
  #headers() {
    const endpoint = this.#endpoint;
    return endpoint.transport === "unix" ? {
      Host: "localhost"
    } : {
      Host: `127.0.0.1:${endpoint.port}`,
      Authorization: `Bearer ${endpoint.token}`
    };
  }
  /** Opens a connection; rejects with {@linkcode UnreachableError} when nobody listens. */
  async #connect() {
    const endpoint = this.#endpoint;
    let conn;
    try {
      conn = endpoint.transport === "unix" ? await Deno.connect({
        transport: "unix",
        path: endpoint.path
      }) : await Deno.connect({
        hostname: "127.0.0.1",
        port: endpoint.port
      });
    } catch (error) {
      const where = endpoint.transport === "unix" ? endpoint.path : `port ${endpoint.port}`;
      throw new UnreachableError(`No gateway answers on ${where}: ${error.message}`, {
        cause: error
      });
    }
    if (this.#closed) {
      conn.close();
      throw new Error("The connection to the gateway is closed");
    }
    this.#conns.add(conn);
    return conn;
  }
  #drop(conn) {
    if (!this.#conns.delete(conn)) return;
    try {
      conn.close();
    } catch {
    }
  }
};
async function readText2(body) {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) text += decoder.decode(chunk, {
    stream: true
  });
  return text + decoder.decode();
}

// src/config/config_error.ts
var ConfigError = class extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "ConfigError";
  }
};

// src/config/path_text.ts
function windowsRoot(path) {
  const unc = /^[\\/]{2}[^\\/]+[\\/][^\\/]+[\\/]?/.exec(path);
  if (unc) return unc[0].replace(/[\\/]/g, "\\").replace(/\\?$/, "\\");
  const drive = /^[A-Za-z]:[\\/]/.exec(path);
  if (drive) return `${path[0].toUpperCase()}:\\`;
  return "";
}
function normalise(root, rest, separators, sep) {
  const parts = [];
  for (const part of rest.split(separators)) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return root + parts.join(sep);
}
var POSIX = {
  sep: "/",
  delimiter: ":",
  isAbsolute: (path) => path.startsWith("/"),
  resolve: (base, path) => normalise("/", path.startsWith("/") ? path : `${base}/${path}`, /\/+/, "/"),
  dirname(path) {
    const trimmed = path.replace(/\/+$/, "");
    const at = trimmed.lastIndexOf("/");
    if (at < 0) return path.startsWith("/") ? "/" : ".";
    return at === 0 ? "/" : trimmed.slice(0, at);
  },
  basename: (path) => {
    const trimmed = path.replace(/\/+$/, "");
    return trimmed.slice(trimmed.lastIndexOf("/") + 1);
  },
  join: (...parts) => {
    const joined = parts.filter((p) => p !== "").join("/");
    const absolute = joined.startsWith("/");
    const normal = normalise(absolute ? "/" : "", joined, /\/+/, "/");
    return normal === "" ? "." : normal;
  }
};
var WINDOWS = {
  sep: "\\",
  delimiter: ";",
  isAbsolute: (path) => windowsRoot(path) !== "",
  resolve(base, path) {
    const full = windowsRoot(path) !== "" ? path : /^[\\/]/.test(path) ? `${windowsRoot(base)}${path}` : `${base}\\${path}`;
    const root = windowsRoot(full);
    return normalise(root, full.slice(root.length), /[\\/]+/, "\\");
  },
  dirname(path) {
    const root = windowsRoot(path);
    const rest = path.slice(root.length).replace(/[\\/]+$/, "");
    const at = Math.max(rest.lastIndexOf("\\"), rest.lastIndexOf("/"));
    return at < 0 ? root || "." : root + rest.slice(0, at);
  },
  basename(path) {
    const rest = path.slice(windowsRoot(path).length).replace(/[\\/]+$/, "");
    return rest.slice(Math.max(rest.lastIndexOf("\\"), rest.lastIndexOf("/")) + 1);
  },
  join(...parts) {
    const joined = parts.filter((p) => p !== "").join("\\");
    const root = windowsRoot(joined);
    const normal = normalise(root, joined.slice(root.length), /[\\/]+/, "\\");
    return normal === "" ? "." : normal;
  }
};
function pathText(os = Deno.build.os) {
  return os === "windows" ? WINDOWS : POSIX;
}
function filePathOf(url, os = Deno.build.os) {
  const path = decodeURIComponent(url.pathname);
  return os === "windows" ? path.slice(1).replaceAll("/", "\\") : path;
}

// src/config/root_safety.ts
var CONTROL_NAMES = [
  "gateway.json",
  "gateway.jsonc",
  "lootbox.config.json",
  "gateway.env",
  ".mcp.json",
  "tools"
];
var BESIDE_NAMES = [
  ".mcp.json",
  "lootbox.config.json"
];
function unsafeReason(info, me) {
  if (info.uid === null || info.mode === null) return null;
  if (info.uid !== me.uid && info.uid !== 0) {
    return `belongs to uid ${info.uid}, not to you (uid ${me.uid})`;
  }
  if ((info.mode & 2) !== 0) return `is writable by every user (mode ${octal(info.mode)})`;
  if ((info.mode & 16) !== 0 && info.gid !== me.gid) {
    return `is writable by group ${info.gid} (mode ${octal(info.mode)})`;
  }
  return null;
}
function octal(mode) {
  return (mode & 4095).toString(8).padStart(4, "0");
}
function safeRootsFile(env) {
  const path = pathText();
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, "gateway", "safe_roots");
  const home = env.HOME ?? env.USERPROFILE;
  return home ? path.join(home, ".config", "gateway", "safe_roots") : null;
}
function optedIn(env, me, notes) {
  const path = pathText();
  const entries = (env.GATEWAY_SAFE_ROOTS ?? "").split(path.delimiter);
  const file = safeRootsFile(env);
  if (file !== null) {
    let text = null;
    try {
      const reason = unsafeReason(Deno.statSync(file), me);
      if (reason === null) text = Deno.readTextFileSync(file);
      else notes.push(`${file} is ignored: it ${reason}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        notes.push(`${file} cannot be read: ${error.message}`);
      }
    }
    if (text !== null) {
      entries.push(...text.split("\n").map((line) => line.replace(/#.*$/, "")));
    }
  }
  return entries.map((entry) => entry.trim()).filter((entry) => entry !== "");
}
function isOptedIn(dir, entries) {
  const path = pathText();
  for (const entry of entries) {
    if (entry === "*") return true;
    if (entry.endsWith("/*") || entry.endsWith("\\*")) {
      const parent = path.resolve("/", entry.slice(0, -2));
      if (dir.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep)) return true;
    } else if (path.resolve("/", entry) === dir) return true;
  }
  return false;
}
function assertSafeRoot(dir, options) {
  const uid = Deno.uid();
  if (uid === null) return;
  const me = {
    uid,
    gid: Deno.gid()
  };
  const path = pathText();
  const checked = [
    dir
  ];
  const present = options.entries ?? namesIn(dir);
  for (const name of CONTROL_NAMES) if (present.includes(name)) checked.push(path.join(dir, name));
  const base = path.basename(dir);
  if (base === ".gateway" || base === ".lootbox") {
    const parent = path.dirname(dir);
    const beside = namesIn(parent);
    for (const name of BESIDE_NAMES) {
      if (beside.includes(name)) checked.push(path.join(parent, name));
    }
  }
  for (const file of checked) {
    let reason;
    try {
      const link = file === dir ? Deno.lstatSync(file) : null;
      reason = (link?.isSymlink ? unsafeReason({
        ...link,
        mode: 493
      }, me) : null) ?? unsafeReason(Deno.statSync(file), me);
    } catch {
      continue;
    }
    if (reason === null) continue;
    const notes = [];
    if (isOptedIn(dir, optedIn(options.env, me, notes))) return;
    const what = file === dir ? "it" : `"${file}"`;
    const list = safeRootsFile(options.env);
    throw new ConfigError(`Refusing root "${dir}": ${what} ${reason}, so another user could run code as you through it. If you trust it, opt in with GATEWAY_SAFE_ROOTS="${dir}"${list ? ` (or add the line ${dir} to ${list})` : ""}; otherwise remove it, or pass --root DIR to use another root${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`);
  }
}
function namesIn(dir) {
  try {
    return [
      ...Deno.readDirSync(dir)
    ].map((entry) => entry.name);
  } catch {
    return [];
  }
}

// src/config/sha256_hex.ts
function paddedBlocks(message) {
  const blocks = Math.ceil((message.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 128;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(message.length / 536870912));
  view.setUint32(padded.length - 4, message.length * 8 >>> 0);
  return {
    view,
    blocks
  };
}
var K = new Uint32Array([
  1116352408,
  1899447441,
  3049323471,
  3921009573,
  961987163,
  1508970993,
  2453635748,
  2870763221,
  3624381080,
  310598401,
  607225278,
  1426881987,
  1925078388,
  2162078206,
  2614888103,
  3248222580,
  3835390401,
  4022224774,
  264347078,
  604807628,
  770255983,
  1249150122,
  1555081692,
  1996064986,
  2554220882,
  2821834349,
  2952996808,
  3210313671,
  3336571891,
  3584528711,
  113926993,
  338241895,
  666307205,
  773529912,
  1294757372,
  1396182291,
  1695183700,
  1986661051,
  2177026350,
  2456956037,
  2730485921,
  2820302411,
  3259730800,
  3345764771,
  3516065817,
  3600352804,
  4094571909,
  275423344,
  430227734,
  506948616,
  659060556,
  883997877,
  958139571,
  1322822218,
  1537002063,
  1747873779,
  1955562222,
  2024104815,
  2227730452,
  2361852424,
  2428436474,
  2756734187,
  3204031479,
  3329325298
]);
function sha256Hex(text) {
  const message = new TextEncoder().encode(text);
  const { view, blocks } = paddedBlocks(message);
  const h = new Uint32Array([
    1779033703,
    3144134277,
    1013904242,
    2773480762,
    1359893119,
    2600822924,
    528734635,
    1541459225
  ]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => x >>> n | x << 32 - n;
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block * 64 + t * 4);
    for (let t = 16; t < 64; t++) {
      const a2 = w[t - 15];
      const b2 = w[t - 2];
      const s0 = rotr(a2, 7) ^ rotr(a2, 18) ^ a2 >>> 3;
      const s1 = rotr(b2, 17) ^ rotr(b2, 19) ^ b2 >>> 10;
      w[t] = w[t - 16] + s0 + w[t - 7] + s1 >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let t = 0; t < 64; t++) {
      const t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + (e & f ^ ~e & g) + K[t] + w[t] >>> 0;
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + (a & b ^ a & c ^ b & c) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = d + t1 >>> 0;
      d = c;
      c = b;
      b = a;
      a = t1 + t2 >>> 0;
    }
    h[0] = h[0] + a;
    h[1] = h[1] + b;
    h[2] = h[2] + c;
    h[3] = h[3] + d;
    h[4] = h[4] + e;
    h[5] = h[5] + f;
    h[6] = h[6] + g;
    h[7] = h[7] + hh;
  }
  return Array.from(h, (word) => word.toString(16).padStart(8, "0")).join("");
}

// src/config/gateway_paths.ts
var CONFIG_NAMES = [
  "gateway.json",
  "gateway.jsonc",
  "lootbox.config.json"
];
var Listings = class {
  #seen = /* @__PURE__ */ new Map();
  /** The entries of `dir`, or null when it cannot be listed. */
  of(dir) {
    let entries = this.#seen.get(dir);
    if (entries === void 0) {
      try {
        entries = [
          ...Deno.readDirSync(dir)
        ];
      } catch {
        entries = null;
      }
      this.#seen.set(dir, entries);
    }
    return entries;
  }
  /** Whether `dir` holds a directory (or a link to one) called `name`. */
  hasDir(dir, name) {
    const entries = this.of(dir);
    const path = pathText();
    if (entries === null) return isDir(path.join(dir, name));
    const entry = entries.find((e) => e.name === name);
    if (entry === void 0) return false;
    return entry.isDirectory || entry.isSymlink && isDir(path.join(dir, name));
  }
  /** Whether `dir` holds an entry called `name`. */
  has(dir, name) {
    const entries = this.of(dir);
    if (entries === null) return exists(pathText().join(dir, name));
    return entries.some((e) => e.name === name);
  }
};
function isDir(path) {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
function exists(path) {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
function rootKey(rootDir) {
  const path = pathText();
  const dir = path.resolve("/", rootDir);
  const base = path.basename(dir);
  const named = base === ".gateway" || base === ".lootbox" ? path.basename(path.dirname(dir)) : base;
  const slug = named.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "root";
  return `${slug.slice(0, 40)}-${sha256Hex(dir).slice(0, 8)}`;
}
function installationDir() {
  return pathText().resolve("/", filePathOf(new URL("../..", import.meta.url)));
}
function configFileIn(dir, listings) {
  const name = CONFIG_NAMES.find((n) => listings.has(dir, n));
  return name === void 0 ? null : pathText().join(dir, name);
}
function findRoot(options, listings) {
  const path = pathText();
  if (options.flag) {
    const dir = path.resolve(options.cwd, options.flag);
    if (!isDir(dir)) throw new Error(`Root "${dir}" given by --root is not a directory`);
    return {
      dir,
      source: "flag",
      configFile: configFileIn(dir, listings)
    };
  }
  const fromEnv = options.env.GATEWAY_ROOT;
  if (fromEnv) {
    const dir = path.resolve(options.cwd, fromEnv);
    if (!isDir(dir)) throw new Error(`Root "${dir}" given by $GATEWAY_ROOT is not a directory`);
    return {
      dir,
      source: "env",
      configFile: configFileIn(dir, listings)
    };
  }
  const home = options.env.HOME ?? options.env.USERPROFILE;
  const homeRoot = home ? path.resolve(options.cwd, path.join(home, ".gateway")) : null;
  const start = path.resolve(options.cwd, ".");
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, ".gateway");
    if (candidate !== homeRoot && listings.hasDir(dir, ".gateway")) {
      return {
        dir: candidate,
        source: "project",
        configFile: configFileIn(candidate, listings)
      };
    }
    if (path.dirname(dir) === dir) break;
  }
  if (homeRoot && listings.hasDir(path.dirname(homeRoot), ".gateway")) {
    return {
      dir: homeRoot,
      source: "home",
      configFile: configFileIn(homeRoot, listings)
    };
  }
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (listings.hasDir(dir, ".lootbox")) {
      const candidate = path.join(dir, ".lootbox");
      const config = listings.has(dir, "lootbox.config.json") ? path.join(dir, "lootbox.config.json") : configFileIn(candidate, listings);
      return {
        dir: candidate,
        source: "lootbox",
        configFile: config
      };
    }
    if (path.dirname(dir) === dir) break;
  }
  const bundled = installationDir();
  return {
    dir: bundled,
    source: "bundled",
    configFile: configFileIn(bundled, listings)
  };
}
function resolveRoot(options) {
  const listings = new Listings();
  const root = findRoot(options, listings);
  if (root.source !== "bundled") {
    const entries = listings.of(root.dir);
    assertSafeRoot(root.dir, {
      env: options.env,
      ...entries !== null ? {
        entries: entries.map((e) => e.name)
      } : {}
    });
  }
  return root;
}
function userDataDir(options) {
  const { env } = options;
  const path = pathText(options.os);
  if (env.XDG_DATA_HOME) return path.join(env.XDG_DATA_HOME, "gateway");
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) throw new Error("Cannot find a data dir: set $GATEWAY_DATA_DIR or $HOME");
  if (options.os === "darwin") return path.join(home, "Library", "Application Support", "gateway");
  return path.join(home, ".local", "share", "gateway");
}
function rootsDataDir(userDir) {
  return pathText().join(userDir, "roots");
}
function resolveDataDir(options) {
  const path = pathText(options.os);
  if (options.env.GATEWAY_DATA_DIR) return path.resolve(options.cwd, options.env.GATEWAY_DATA_DIR);
  return path.join(rootsDataDir(userDataDir(options)), rootKey(options.rootDir));
}

// src/config/server_state.ts
function serverStatePath(dataDir) {
  return `${dataDir.replace(/[\\/]+$/, "")}/server.json`;
}
function serverLockPath(dataDir) {
  return `${dataDir.replace(/[\\/]+$/, "")}/server.lock`;
}
function serverLockHeld(dataDir) {
  let file;
  try {
    file = Deno.openSync(serverLockPath(dataDir), {
      read: true
    });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  try {
    return !file.tryLockSync(false);
  } finally {
    file.close();
  }
}
async function readServerState(dataDir) {
  let text;
  try {
    text = await Deno.readTextFile(serverStatePath(dataDir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let state;
  try {
    state = JSON.parse(text);
  } catch {
    return {
      state: {
        pid: 0,
        host: "",
        port: 0,
        socket: null,
        root: "",
        dataDir,
        version: "",
        startedAt: ""
      },
      stale: true
    };
  }
  state.socket ??= null;
  return {
    state,
    stale: typeof state.pid !== "number" || !serverLockHeld(dataDir)
  };
}

// src/cli/fast_connection.ts
function fastConnection(input) {
  try {
    const root = resolveRoot({
      flag: input.rootFlag ?? void 0,
      env: input.env,
      cwd: input.cwd
    });
    const dataDir = resolveDataDir({
      env: input.env,
      os: Deno.build.os,
      cwd: input.cwd,
      rootDir: root.dir
    });
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(dataDir)));
    if (state.root !== root.dir || typeof state.socket !== "string") return null;
    const client = new GatewayHttpClient(endpointOf({
      socket: state.socket,
      port: state.port
    }, dataDir));
    return {
      client,
      root
    };
  } catch {
    return null;
  }
}

// src/cli/approval_notice.ts
function approveCommandLine(pending, context) {
  const root = context.root.source === "flag" || context.root.source === "env" ? ` --root ${JSON.stringify(context.root.dir)}` : "";
  return `gateway${root} approve ${pending.runId}`;
}
function printApprovalNotices(client, context) {
  const seen = /* @__PURE__ */ new Set();
  return client.onNotification((n) => {
    if (n.method !== "run.approval") return;
    const pending = n.params;
    if (seen.has(pending.id)) return;
    seen.add(pending.id);
    const command = approveCommandLine(pending, context);
    context.output.err(`waiting for approval: ${pending.namespace}.${pending.tool}(${pending.args}) held by policy ${pending.rule}: ${command} (or ${command} --deny)
`);
  });
}

// src/protocol/run_waiting.ts
function describeRunWait(on) {
  switch (on) {
    case "typeChecker":
      return "starting the type checker\u2026";
  }
}

// src/cli/wait_notice.ts
var CLEAR_LINE = "\r\x1B[2K";
function showsWaits(output) {
  return output.errIsTty === true;
}
function printWaitNotices(client, output) {
  let shown = false;
  const clear = () => {
    if (!shown) return;
    output.err(CLEAR_LINE);
    shown = false;
  };
  const unsubscribe = client.onNotification((n) => {
    if (n.method !== "run.waiting") return;
    const waiting = n.params;
    if (waiting.phase === "done") clear();
    else if (!shown) {
      output.err(describeRunWait(waiting.on));
      shown = true;
    }
  });
  return () => {
    unsubscribe();
    clear();
  };
}

// src/cli/print.ts
function runExitCode(document) {
  if (document.ok) return 0;
  return document.error?.kind === "Timeout" ? 124 : 1;
}
function formatResult(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
function printRun(document, output, options) {
  if (!options.streamed && document.stdout !== "") {
    output.out(document.stdout.endsWith("\n") ? document.stdout : `${document.stdout}
`);
  }
  if (document.result !== void 0) output.out(`${formatResult(document.result)}
`);
  if (!options.streamed && document.stderr !== "") {
    output.err(document.stderr.endsWith("\n") ? document.stderr : `${document.stderr}
`);
  }
  for (const warning of document.warnings) output.err(`warning: ${warning}
`);
  for (const attachment of document.attachments) {
    output.err(`attachment: ${attachment.type}${"mimeType" in attachment ? ` ${attachment.mimeType}` : ""}
`);
  }
  if (document.history === "failed") {
    output.err("warning: this run could not be saved to history\n");
  }
  if (document.error) {
    const { error } = document;
    const position = error.line !== void 0 ? `line ${error.line}${error.column !== void 0 ? `:${error.column}` : ""}` : "";
    const where = position !== "" && !error.message.includes(position) ? ` (${position})` : "";
    output.err(`error[${error.kind}]: ${error.message}${where}
`);
    for (const d of error.diagnostics?.slice(1) ?? []) {
      output.err(`  line ${d.line}:${d.column}: ${d.message}
`);
    }
  }
}
function printError(output, kind, message) {
  output.err(`error[${kind}]: ${message}
`);
}

// src/cli/fast_exec.ts
function parseSimpleExec(argv) {
  let rootFlag = null;
  let command;
  const sources = [];
  const flags = /* @__PURE__ */ new Set();
  let args = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--root") {
      const value = argv[++i];
      if (value === void 0) return null;
      rootFlag = value;
    } else if (arg.startsWith("--root=")) rootFlag = arg.slice("--root=".length);
    else if (arg === "--no-autostart") continue;
    else if (command === void 0) {
      if (arg !== "exec") return null;
      command = arg;
    } else if (arg === "--") {
      args = argv.slice(i + 1);
      break;
    } else if (arg.startsWith("-")) {
      if (![
        "--json",
        "--no-check",
        "--check",
        "--no-stdin"
      ].includes(arg)) return null;
      flags.add(arg);
    } else sources.push(arg);
  }
  const source = sources[0];
  if (command === void 0 || sources.length !== 1 || source === void 0) return null;
  if (/\.(ts|js|mts)$/.test(source)) return null;
  return {
    rootFlag,
    source,
    json: flags.has("--json"),
    check: flags.has("--no-check") ? false : flags.has("--check") ? true : void 0,
    noStdin: flags.has("--no-stdin"),
    args
  };
}
async function fastExec(input) {
  const { output } = input;
  if (output.isTty) return null;
  const simple = parseSimpleExec(input.argv);
  if (simple === null) return null;
  const connection = fastConnection({
    rootFlag: simple.rootFlag,
    env: input.env,
    cwd: input.cwd
  });
  if (connection === null) return null;
  const { client, root } = connection;
  try {
    printApprovalNotices(client, {
      root,
      output
    });
    const waits = showsWaits(output);
    const stopWaits = waits ? printWaitNotices(client, output) : () => {
    };
    let answer;
    try {
      answer = await client.request("exec", async () => ({
        source: simple.source,
        args: simple.args,
        stdin: simple.noStdin ? "" : await input.readStdin(),
        cwd: input.cwd,
        client: "cli",
        ...simple.check !== void 0 ? {
          check: simple.check
        } : {},
        ...waits ? {
          progress: true
        } : {}
      })).finally(stopWaits);
    } catch (error) {
      if (error instanceof UnreachableError) return null;
      if (error instanceof RpcError) {
        printError(output, String(error.data?.kind ?? "Usage"), error.message);
        return 2;
      }
      printError(output, "Server", `${messageOf(error)}; the run may have started: see \`gateway history\``);
      return 1;
    }
    const document = answer;
    if (simple.json) output.out(`${JSON.stringify(document, null, 2)}
`);
    else printRun(document, output, {
      streamed: false
    });
    return runExitCode(document);
  } finally {
    await client.close();
  }
}
async function readStdinText() {
  if (Deno.stdin.isTerminal()) return "";
  const chunks = [];
  const buffer = new Uint8Array(64 * 1024);
  for (; ; ) {
    const n = await Deno.stdin.read(buffer);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
  }
  const bytes = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

// src/config/server_registry.ts
function serverRegistryDir(env, os = Deno.build.os) {
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) return null;
  const path = pathText(os);
  return os === "darwin" ? path.join(home, "Library", "Application Support", "gateway", "servers") : path.join(home, ".local", "state", "gateway", "servers");
}
function ownPrivate(info) {
  const uid = Deno.uid();
  if (uid !== null && info.uid !== uid) return false;
  return info.mode === null || (info.mode & 18) === 0;
}
function readEntry(file) {
  try {
    const info = Deno.lstatSync(file);
    if (!info.isFile || !ownPrivate(info)) return null;
    const entry = JSON.parse(Deno.readTextFileSync(file));
    if (typeof entry.root !== "string" || typeof entry.dataDir !== "string" || typeof entry.pid !== "number" || !pathText().isAbsolute(entry.dataDir)) {
      return null;
    }
    return {
      root: entry.root,
      dataDir: entry.dataDir,
      pid: entry.pid
    };
  } catch {
    return null;
  }
}
function liveServerOf(dataDir, root) {
  try {
    const info = Deno.lstatSync(dataDir);
    if (!info.isDirectory || !ownPrivate(info)) return null;
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(dataDir)));
    if (state.root !== root || !serverLockHeld(dataDir)) return null;
    state.socket ??= null;
    return state;
  } catch {
    return null;
  }
}
function registeredServers(root, options) {
  const base = serverRegistryDir(options.env);
  if (base === null) return [];
  let dirInfo;
  let names;
  try {
    dirInfo = Deno.lstatSync(base);
    if (!dirInfo.isDirectory || dirInfo.isSymlink || !ownPrivate(dirInfo)) return [];
    const prefix = `${rootKey(root)}.`;
    names = [
      ...Deno.readDirSync(base)
    ].map((e) => e.name).filter((n) => n.startsWith(prefix) && n.endsWith(".json"));
  } catch {
    return [];
  }
  const path = pathText();
  const found = [];
  for (const name of names) {
    const file = path.join(base, name);
    const entry = readEntry(file);
    if (entry === null || entry.root !== root || entry.dataDir === options.except) continue;
    const state = liveServerOf(entry.dataDir, root);
    if (state === null) continue;
    found.push({
      dataDir: entry.dataDir,
      state,
      at: Date.parse(state.startedAt) || 0
    });
  }
  return found.sort((a, b) => a.at - b.at).map(({ dataDir, state }) => ({
    dataDir,
    state
  }));
}

// src/config/server_v8_flags.ts
var SERVER_V8_FLAGS = "--v8-flags=--max-semi-space-size=4";

// src/client/no_server_error.ts
var NoServerError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "NoServerError";
  }
};

// src/client/background_server.ts
function serverLogPath(dataDir) {
  const separator = Deno.build.os === "windows" ? "\\" : "/";
  return `${dataDir.replace(/[\\/]+$/, "")}${separator}server.log`;
}
function spawnBackgroundServer(options) {
  const args = [
    "run",
    "--allow-all",
    "--no-prompt",
    "--quiet",
    SERVER_V8_FLAGS,
    filePathOf(new URL("../main.ts", import.meta.url)),
    "server",
    "--log-file",
    serverLogPath(options.dataDir),
    ...options.rootFlag ? [
      "--root",
      options.rootFlag
    ] : []
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: {
      GATEWAY_DATA_DIR: options.dataDir
    },
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true
  }).spawn();
  child.unref();
  return child;
}
async function serverHealth(state, waitUp) {
  let client;
  try {
    client = new GatewayHttpClient(endpointOf(state, state.dataDir));
  } catch (error) {
    if (error instanceof ForeignSocketError) throw error;
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  try {
    const answer = await client.send("GET", `/health${waitUp ? "?wait=up" : ""}`, {
      signal: AbortSignal.timeout(2e3)
    });
    if (answer.status !== 200) return null;
    const body = answer.body;
    const starting = typeof body === "object" && body !== null && "starting" in body && body.starting === true;
    return starting ? "starting" : "up";
  } catch {
    return null;
  } finally {
    await client.close();
  }
}
async function findServer(dataDir, options = {}) {
  const found = await readServerState(dataDir);
  if (!found || found.stale) return null;
  const answer = await serverHealth(found.state, options.up === true);
  if (answer === null || options.up === true && answer === "starting") return null;
  return found.state;
}
async function logTail(dataDir) {
  try {
    const lines = (await Deno.readTextFile(serverLogPath(dataDir))).trim().split("\n");
    for (const line of lines.reverse()) {
      const entry = JSON.parse(line);
      if (entry.level === "error" && entry.message) return `: ${entry.message}`;
    }
  } catch {
  }
  return "";
}
async function startBackgroundServer(options) {
  await Deno.mkdir(options.dataDir, {
    recursive: true,
    mode: 448
  });
  const child = spawnBackgroundServer({
    rootFlag: options.rootFlag,
    dataDir: options.dataDir
  });
  const pid = child.pid;
  let exited = false;
  child.status.then(() => exited = true, () => exited = true);
  const timeoutMs = options.startTimeoutMs ?? 3e4;
  const deadline = Date.now() + timeoutMs;
  for (; ; ) {
    if (exited) {
      const reason = await logTail(options.dataDir);
      if (/: start-up failed: (Invalid config|Invalid JSON in|Cannot read config)/.test(reason)) {
        throw new ConfigError(reason.replace(/^: start-up failed: /, ""));
      }
      throw new NoServerError(`The gateway server could not start${reason} (log: ${serverLogPath(options.dataDir)})`);
    }
    if (Date.now() > deadline) {
      throw new NoServerError(`The gateway server (pid ${pid}) did not answer within ${timeoutMs / 1e3} s: see ${serverLogPath(options.dataDir)}`);
    }
    await new Promise((r) => setTimeout(r, 10));
    const state = await findServer(options.dataDir, {
      up: true
    });
    if (state !== null) return state;
  }
}

// src/cli/fast_start.ts
function parseSimpleStart(argv) {
  if (argv.length === 1 && argv[0] === "start") return "";
  if (argv.length === 2 && argv[1] === "start" && argv[0].startsWith("--root=")) {
    return argv[0].slice("--root=".length) || null;
  }
  if (argv.length === 3 && argv[0] === "--root" && argv[2] === "start") return argv[1] || null;
  return null;
}
async function fastStart(input) {
  const { output } = input;
  if (output.isTty) return null;
  const rootFlag = parseSimpleStart(input.argv);
  if (rootFlag === null) return null;
  let paths;
  try {
    const root = resolveRoot({
      flag: rootFlag || void 0,
      env: input.env,
      cwd: input.cwd
    });
    paths = {
      rootDir: root.dir,
      dataDir: resolveDataDir({
        env: input.env,
        os: Deno.build.os,
        cwd: input.cwd,
        rootDir: root.dir
      })
    };
  } catch {
    return null;
  }
  if (!input.env.GATEWAY_DATA_DIR) {
    const running = registeredServers(paths.rootDir, {
      env: input.env,
      except: paths.dataDir
    });
    if (running.length > 0) return null;
  }
  try {
    Deno.statSync(serverStatePath(paths.dataDir));
    return null;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return null;
  }
  try {
    const state = await startBackgroundServer({
      rootFlag: paths.rootDir,
      dataDir: paths.dataDir
    });
    output.out(`started: pid ${state.pid}, port ${state.port}, root ${state.root}
`);
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      printError(output, "Config", error.message);
      return 2;
    }
    if (error instanceof NoServerError) {
      printError(output, "Server", error.message);
      return 1;
    }
    throw error;
  }
}

// src/cli/tools_listing.ts
function printNamespaceListing(answer, output, flags) {
  if (flags.json) {
    output.out(`${JSON.stringify(answer, null, 2)}
`);
    return;
  }
  if (answer.namespaces.length === 0) {
    output.out("no namespaces (add ROOT/tools/*.ts or mcpServers)\n");
  }
  for (const ns of answer.namespaces) {
    const status = ns.status === "failed" ? `failed: ${ns.reason ?? ""}` : ns.status;
    const tools = `${String(ns.tools).padStart(3)} ${ns.tools === 1 ? "tool " : "tools"}`;
    output.out(`${ns.identifier.padEnd(16)} ${ns.kind.padEnd(6)} ${tools}  ${status}
`);
  }
  for (const warning of answer.warnings) output.err(`warning: ${warning}
`);
  const upstream = answer.upstreamWarnings ?? [];
  if (flags.warnings) {
    for (const warning of upstream) output.err(`warning: ${warning}
`);
  } else if (upstream.length > 0) {
    output.err(`note: ${upstream.length} warning${upstream.length === 1 ? "" : "s"} about namespaces and tools: gateway tools --warnings
`);
  }
  if (answer.configError) {
    output.err(`error[Config]: the last config edit did not load, the previous config is in force: ${answer.configError}
`);
  }
}

// src/cli/fast_tools.ts
function parseSimpleTools(argv) {
  let rootFlag = null;
  let command;
  let json = false;
  let warnings = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--root") {
      const value = argv[++i];
      if (value === void 0) return null;
      rootFlag = value;
    } else if (arg.startsWith("--root=")) rootFlag = arg.slice("--root=".length);
    else if (arg === "--json") json = true;
    else if (arg === "--warnings") warnings = true;
    else if (command === void 0 && arg === "tools") command = arg;
    else return null;
  }
  return command === "tools" ? {
    rootFlag,
    json,
    warnings
  } : null;
}
async function fastTools(input) {
  const simple = parseSimpleTools(input.argv);
  if (simple === null) return null;
  const connection = fastConnection({
    rootFlag: simple.rootFlag,
    env: input.env,
    cwd: input.cwd
  });
  if (connection === null) return null;
  const { client } = connection;
  try {
    let answer;
    try {
      answer = await client.request("namespaces", {
        settle: true
      });
    } catch {
      return null;
    }
    printNamespaceListing(answer, input.output, simple);
    return 0;
  } finally {
    await client.close();
  }
}

// src/cli/stdio_output.ts
function stdioOutput(onBrokenPipe) {
  const encoder = new TextEncoder();
  const writeAll2 = (stream, text) => {
    const bytes = encoder.encode(text);
    try {
      for (let at = 0; at < bytes.length; ) at += stream.writeSync(bytes.subarray(at));
    } catch (error) {
      if (error instanceof Deno.errors.BrokenPipe) onBrokenPipe();
      throw error;
    }
  };
  return {
    out: (text) => writeAll2(Deno.stdout, text),
    err: (text) => writeAll2(Deno.stderr, text),
    isTty: Deno.stdout.isTerminal(),
    errIsTty: Deno.stderr.isTerminal()
  };
}

// src/cli/fast_main.ts
var FORWARDED_SIGNALS = Deno.build.os === "windows" ? [
  "SIGINT",
  "SIGBREAK"
] : [
  "SIGINT",
  "SIGTERM",
  "SIGHUP"
];
function fullCliArgs(argv) {
  return [
    "run",
    "--allow-all",
    "--no-prompt",
    "--config",
    pathOf(new URL("../../deno.json", import.meta.url)),
    pathOf(new URL("../main.ts", import.meta.url)),
    ...argv
  ];
}
function pathOf(url) {
  const path = decodeURIComponent(url.pathname);
  return Deno.build.os === "windows" ? path.slice(1).replaceAll("/", "\\") : path;
}
async function runFullCli(argv) {
  const child = new Deno.Command(Deno.execPath(), {
    args: fullCliArgs(argv),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit"
  }).spawn();
  const forwarders = FORWARDED_SIGNALS.map((signal) => {
    const forward = () => {
      try {
        child.kill(signal);
      } catch {
      }
    };
    Deno.addSignalListener(signal, forward);
    return () => Deno.removeSignalListener(signal, forward);
  });
  try {
    return (await child.status).code;
  } finally {
    for (const remove of forwarders) remove();
  }
}
if (import.meta.main) {
  const env = Deno.env.toObject();
  const output = stdioOutput(() => Deno.exit(0));
  const cwd = env.INIT_CWD ?? Deno.cwd();
  const fast = await fastExec({
    argv: Deno.args,
    env,
    cwd,
    output,
    readStdin: readStdinText
  }) ?? await fastStart({
    argv: Deno.args,
    env,
    cwd,
    output
  }) ?? await fastTools({
    argv: Deno.args,
    env,
    cwd,
    output
  });
  Deno.exit(fast ?? await runFullCli(Deno.args));
}
export {
  fullCliArgs,
  runFullCli
};

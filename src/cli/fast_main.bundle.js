// src/protocol/json_rpc.ts
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

// src/client/rpc_answers.ts
function receiveRpcText(data, pending, listeners) {
  let message;
  try {
    message = JSON.parse(data);
  } catch {
    return;
  }
  if (typeof message.method === "string" && message.id === void 0) {
    for (const l of listeners) l({
      method: message.method,
      params: message.params
    });
    return;
  }
  const id = typeof message.id === "number" ? message.id : null;
  const waiting = id === null ? void 0 : pending.get(id);
  if (!waiting || id === null) return;
  pending.delete(id);
  if (message.error) {
    const error = message.error;
    waiting.reject(new RpcError(error.code, error.message, error.data));
  } else waiting.resolve(message.result);
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
  #pending = /* @__PURE__ */ new Map();
  #listeners = /* @__PURE__ */ new Set();
  #conns = /* @__PURE__ */ new Set();
  #nextId = 1;
  #closed = false;
  constructor(endpoint) {
    this.#endpoint = endpoint;
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
  request(method, params = {}) {
    if (this.#closed) return Promise.reject(new Error("The connection to the gateway is closed"));
    const id = this.#nextId++;
    const answer = new Promise((resolve, reject) => {
      this.#pending.set(id, {
        resolve: (v) => resolve(v),
        reject
      });
    });
    this.#exchange(id, async () => JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: typeof params === "function" ? await params() : params
    }));
    return answer;
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
      const text = await readText(answer.body);
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
    for (const conn of [
      ...this.#conns
    ]) this.#drop(conn);
    if (this.#pending.size > 0) {
      const error = new Error("The connection to the gateway was closed");
      for (const p of this.#pending.values()) p.reject(error);
      this.#pending.clear();
    }
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
  /** Sends request `id` and hands its lines to listeners and its pending entry. */
  async #exchange(id, body) {
    let conn = null;
    try {
      conn = await this.#connect();
      await writeAll(conn, requestBytes("POST", "/rpc", this.#headers(), await body()));
      const answer = await readAnswer(conn);
      if (answer.status !== 200) {
        this.#fail(id, errorOf(answer.status, await readText(answer.body)));
        return;
      }
      const decoder = new TextDecoder();
      let partial = [];
      for await (const chunk of answer.body) {
        let text = decoder.decode(chunk, {
          stream: true
        });
        for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n")) {
          partial.push(text.slice(0, end));
          const line = partial.join("");
          partial = [];
          text = text.slice(end + 1);
          if (line !== "") receiveRpcText(line, this.#pending, this.#listeners);
        }
        if (text !== "") partial.push(text);
      }
    } catch (error) {
      if (!this.#closed) {
        this.#fail(id, error instanceof UnreachableError ? error : new Error(`The connection to the gateway failed: ${error.message}`));
      }
    } finally {
      if (conn !== null) this.#drop(conn);
      this.#fail(id, new Error("The gateway closed the connection before answering"));
    }
  }
  /** Rejects request `id` with `error` if it still waits. */
  #fail(id, error) {
    const waiting = this.#pending.get(id);
    if (!waiting) return;
    this.#pending.delete(id);
    waiting.reject(error);
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
function errorOf(status, text) {
  let error;
  try {
    error = JSON.parse(text).error;
  } catch {
  }
  if (error && typeof error.code === "number" && typeof error.message === "string") {
    return new RpcError(error.code, error.message, error.data);
  }
  return new Error(`The gateway answered ${status}: ${error?.message ?? text.slice(0, 200)}`);
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

// src/protocol/message_of.ts
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
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

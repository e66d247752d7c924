// src/config/hash_padding.ts
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

// src/config/sha256_hex.ts
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

// src/config/lean_gateway_paths.ts
function resolvePath(base, path) {
  const parts = [];
  for (const part of (path.startsWith("/") ? path : `${base}/${path}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}
function parentOf(path) {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}
function nameOf(path) {
  return path.slice(path.lastIndexOf("/") + 1);
}
function isDir(path) {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
function hasDir(listings, dir, name) {
  let entries = listings.get(dir);
  if (entries === void 0) {
    try {
      entries = [
        ...Deno.readDirSync(dir)
      ];
    } catch {
      entries = null;
    }
    listings.set(dir, entries);
  }
  if (entries === null) return isDir(resolvePath(dir, name));
  const entry = entries.find((e) => e.name === name);
  if (entry === void 0) return false;
  return entry.isDirectory || entry.isSymlink && isDir(resolvePath(dir, name));
}
function leanRootKey(dir) {
  const parent = nameOf(dir) === ".gateway" || nameOf(dir) === ".lootbox";
  const named = parent ? nameOf(parentOf(dir)) : nameOf(dir);
  const slug = named.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "root";
  return `${slug.slice(0, 40)}-${sha256Hex(dir).slice(0, 8)}`;
}
function leanRoot(options) {
  const { env, cwd } = options;
  if (options.flag) {
    const dir = resolvePath(cwd, options.flag);
    return isDir(dir) ? {
      dir,
      source: "flag"
    } : null;
  }
  if (env.GATEWAY_ROOT) {
    const dir = resolvePath(cwd, env.GATEWAY_ROOT);
    return isDir(dir) ? {
      dir,
      source: "env"
    } : null;
  }
  const home = env.HOME ?? env.USERPROFILE;
  if (home && !home.startsWith("/")) return null;
  const homeRoot = home ? resolvePath("/", `${home}/.gateway`) : null;
  const listings = /* @__PURE__ */ new Map();
  for (let dir = resolvePath(cwd, "."); ; dir = parentOf(dir)) {
    const candidate = resolvePath(dir, ".gateway");
    if (candidate !== homeRoot && hasDir(listings, dir, ".gateway")) {
      return {
        dir: candidate,
        source: "project"
      };
    }
    if (dir === "/") break;
  }
  if (homeRoot && hasDir(listings, parentOf(homeRoot), ".gateway")) {
    return {
      dir: homeRoot,
      source: "home"
    };
  }
  for (let dir = resolvePath(cwd, "."); ; dir = parentOf(dir)) {
    if (hasDir(listings, dir, ".lootbox")) return null;
    if (dir === "/") break;
  }
  return {
    dir: resolvePath(import.meta.dirname ?? "/", "../.."),
    source: "bundled"
  };
}
function leanGatewayPaths(options) {
  if (Deno.build.os === "windows" || !options.cwd.startsWith("/")) return null;
  const root = leanRoot(options);
  if (root === null) return null;
  const { env, cwd } = options;
  let dataDir;
  if (env.GATEWAY_DATA_DIR) dataDir = resolvePath(cwd, env.GATEWAY_DATA_DIR);
  else {
    let userDir;
    if (env.XDG_DATA_HOME) userDir = `${env.XDG_DATA_HOME}/gateway`;
    else {
      const home = env.HOME ?? env.USERPROFILE;
      if (!home) return null;
      userDir = Deno.build.os === "darwin" ? `${home}/Library/Application Support/gateway` : `${home}/.local/share/gateway`;
    }
    if (!userDir.startsWith("/")) return null;
    dataDir = resolvePath("/", `${userDir}/roots/${leanRootKey(root.dir)}`);
  }
  return {
    rootDir: root.dir,
    rootSource: root.source,
    dataDir
  };
}

// src/config/server_state.ts
function serverStatePath(dataDir) {
  return `${dataDir.replace(/[\\/]+$/, "")}/server.json`;
}
function pidAlive(pid) {
  try {
    Deno.kill(pid, "SIGCONT");
    if (Deno.build.os === "linux") {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
        const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
        if (state === "Z" || state === "X") return false;
      } catch {
      }
    }
    return true;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound) && !(error instanceof Error && /ESRCH|No such process/.test(error.message));
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
        root: "",
        dataDir,
        version: "",
        startedAt: ""
      },
      stale: true
    };
  }
  return {
    state,
    stale: typeof state.pid !== "number" || !pidAlive(state.pid)
  };
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

// src/client/websocket_accept.ts
var WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
function acceptFor(key) {
  return base64(sha1(new TextEncoder().encode(key + WEBSOCKET_GUID)));
}
function sha1(message) {
  const { view, blocks } = paddedBlocks(message);
  const h = [
    1732584193,
    4023233417,
    2562383102,
    271733878,
    3285377520
  ];
  const w = new Uint32Array(80);
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block * 64 + t * 4);
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
      w[t] = x << 1 | x >>> 31;
    }
    let [a, b, c, d, e] = h;
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? (b & c | ~b & d) + 1518500249 : t < 40 ? (b ^ c ^ d) + 1859775393 : t < 60 ? (b & c | b & d | c & d) + 2400959708 : (b ^ c ^ d) + 3395469782;
      const next = (a << 5 | a >>> 27) + f + e + w[t] >>> 0;
      e = d;
      d = c;
      c = b << 30 | b >>> 2;
      b = a;
      a = next;
    }
    h[0] = h[0] + a >>> 0;
    h[1] = h[1] + b >>> 0;
    h[2] = h[2] + c >>> 0;
    h[3] = h[3] + d >>> 0;
    h[4] = h[4] + e >>> 0;
  }
  const out = new Uint8Array(20);
  const outView = new DataView(out.buffer);
  h.forEach((word, i) => outView.setUint32(i * 4, word));
  return out;
}
var BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function base64(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = a << 16 | (b ?? 0) << 8 | (c ?? 0);
    out += BASE64_DIGITS[n >> 18 & 63] + BASE64_DIGITS[n >> 12 & 63] + (b === void 0 ? "=" : BASE64_DIGITS[n >> 6 & 63]) + (c === void 0 ? "=" : BASE64_DIGITS[n & 63]);
  }
  return out;
}

// src/client/lean_gateway_client.ts
var MAX_HEADER_BYTES = 16 * 1024;
var OPCODE_CONTINUATION = 0;
var OPCODE_TEXT = 1;
var OPCODE_CLOSE = 8;
var OPCODE_PING = 9;
var OPCODE_PONG = 10;
var HandshakeError = class extends Error {
  /** False when the deadline passed with no answer: the server may yet read what was sent. */
  answered;
  constructor(message, options) {
    super(message);
    this.name = "HandshakeError";
    this.answered = options.answered;
  }
};
var LeanGatewayClient = class _LeanGatewayClient {
  #conn;
  #pending = /* @__PURE__ */ new Map();
  #listeners = /* @__PURE__ */ new Set();
  #decoder = new TextDecoder("utf-8", {
    fatal: true
  });
  #nextId = 1;
  #closed = false;
  #writing;
  /** Settles with the upgrade's answer; see {@linkcode LeanGatewayClient.handshake}. */
  handshake;
  /** The answer to `first` given to {@linkcode open} (request id 1), or null without one. */
  firstAnswer = null;
  constructor(conn, upgrade) {
    this.#conn = conn;
    this.#writing = upgrade.sent.catch(() => void 0);
    if (upgrade.first) {
      this.firstAnswer = new Promise((resolve, reject) => {
        this.#pending.set(this.#nextId++, {
          resolve,
          reject
        });
      });
      this.firstAnswer.catch(() => void 0);
    }
    const handshake = this.#readHandshake(upgrade);
    this.handshake = handshake.then(() => void 0);
    this.handshake.catch(() => void 0);
    handshake.then((rest) => this.#readFrames(rest)).catch(() => void 0).finally(() => this.#end());
  }
  /**
   * Connects to `ws://host:port/ws` with the token and completes the upgrade; rejects when
   * the server cannot be reached or refuses (bad token, not a gateway) within `timeoutMs`.
   */
  static async connect(options) {
    const client = await _LeanGatewayClient.open(options);
    try {
      await client.handshake;
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }
  /**
   * Opens the TCP connection and sends the upgrade request without waiting for its answer,
   * with `first` (a request) in the same write: the server reads it once it has switched,
   * which saves the CLI a round trip, and the answer to the upgrade is checked while the
   * server works on the request. Rejects only when the connection cannot be made (nothing
   * was sent then); a refused upgrade rejects {@linkcode handshake} and `firstAnswer`.
   */
  static async open(options) {
    const conn = await Deno.connect({
      hostname: options.host,
      port: options.port
    });
    const key = base64(crypto.getRandomValues(new Uint8Array(16)));
    const host = options.host.includes(":") ? `[${options.host}]` : options.host;
    const encoder = new TextEncoder();
    const upgrade = encoder.encode(`GET /ws?token=${encodeURIComponent(options.token)} HTTP/1.1\r
Host: ${host}:${options.port}\r
Upgrade: websocket\r
Connection: Upgrade\r
Sec-WebSocket-Key: ${key}\r
Sec-WebSocket-Version: 13\r
\r
`);
    const first = options.first === void 0 ? null : maskedFrame(OPCODE_TEXT, encoder.encode(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      ...options.first
    })));
    const sent = writeAll(conn, first === null ? upgrade : concatBytes([
      upgrade,
      first
    ]));
    return new _LeanGatewayClient(conn, {
      sent,
      key,
      port: options.port,
      timeoutMs: options.timeoutMs ?? 5e3,
      first: first !== null
    });
  }
  /**
   * Reads and checks the upgrade's answer; resolves with the bytes that came after it. The
   * deadline, its listener and the expected accept value (together 1–3 ms of first calls in
   * a fresh process) are made while the server answers.
   */
  async #readHandshake(upgrade) {
    const { port, timeoutMs } = upgrade;
    const deadline = AbortSignal.timeout(timeoutMs);
    const timedOut = () => new HandshakeError(`Cannot connect to the gateway on port ${port}: no WebSocket upgrade within ${timeoutMs} ms`, {
      answered: false
    });
    const onTimeout = () => this.#end(timedOut());
    deadline.addEventListener("abort", onTimeout, {
      once: true
    });
    const expected = acceptFor(upgrade.key);
    try {
      await upgrade.sent;
      const { head, rest } = await readHead(this.#conn);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      if (status !== "101") {
        throw new HandshakeError(`Cannot connect to the gateway on port ${port}: the upgrade was answered ${status ?? "with no HTTP status"}`, {
          answered: true
        });
      }
      const accept = /^sec-websocket-accept:\s*(\S+)\s*$/im.exec(head)?.[1];
      if (accept !== expected) {
        throw new HandshakeError(`Cannot connect to the gateway on port ${port}: the upgrade answer is not a WebSocket handshake for this request`, {
          answered: true
        });
      }
      return rest;
    } catch (error) {
      const failure = deadline.aborted ? timedOut() : error instanceof HandshakeError ? error : new HandshakeError(`Cannot connect to the gateway on port ${port}: ${error.message}`, {
        answered: true
      });
      this.#end(failure);
      throw failure;
    } finally {
      deadline.removeEventListener("abort", onTimeout);
    }
  }
  /** Sends a request and resolves with its result; rejects with {@linkcode RpcError}. */
  request(method, params = {}) {
    if (this.#closed) return Promise.reject(new Error("The connection to the gateway is closed"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, {
        resolve: (v) => resolve(v),
        reject
      });
      const text = JSON.stringify({
        jsonrpc: "2.0",
        id,
        method,
        params
      });
      this.#send(OPCODE_TEXT, new TextEncoder().encode(text)).catch((error) => {
        this.#pending.delete(id);
        reject(new Error(`Cannot send to the gateway: ${error.message}`));
      });
    });
  }
  /** Listens for notifications; returns an unsubscribe function. */
  onNotification(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** Sends a close frame and closes the connection (nothing is waited for). */
  async close() {
    if (this.#closed) return;
    await this.#send(OPCODE_CLOSE, new Uint8Array([
      3,
      232
    ])).catch(() => void 0);
    this.#end();
  }
  /**
   * Closes the connection and fails what still waits with `reason`. The default error is made
   * only when a request waits: the fast path's process would pay its first error's stack
   * (≈ 1.5 ms, see `lean_gateway_paths.ts`) on every clean close.
   */
  #end(reason) {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
    }
    if (this.#pending.size === 0) return;
    const error = reason ?? new Error("The gateway closed the connection");
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
  }
  /** Writes one masked frame (a client's frames are always masked, RFC 6455 §5.3). */
  #send(opcode, payload) {
    const frame = maskedFrame(opcode, payload);
    const next = this.#writing.then(() => writeAll(this.#conn, frame));
    this.#writing = next.catch(() => void 0);
    return next;
  }
  async #readFrames(initial) {
    const input = new ByteInput(this.#conn, initial);
    let message = [];
    for (; ; ) {
      const head = await input.take(2);
      if (head === null) return;
      const fin = (head[0] & 128) !== 0;
      const opcode = head[0] & 15;
      const masked = (head[1] & 128) !== 0;
      let length = head[1] & 127;
      if (length === 126) {
        const more = await input.take(2);
        if (more === null) return;
        length = new DataView(more.buffer, more.byteOffset).getUint16(0);
      } else if (length === 127) {
        const more = await input.take(8);
        if (more === null) return;
        length = Number(new DataView(more.buffer, more.byteOffset).getBigUint64(0));
      }
      const mask = masked ? await input.take(4) : null;
      if (masked && mask === null) return;
      const payload = await input.take(length);
      if (payload === null) return;
      if (mask) {
        for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
      }
      if (opcode === OPCODE_CLOSE) return;
      if (opcode === OPCODE_PING) {
        await this.#send(OPCODE_PONG, payload);
        continue;
      }
      if (opcode !== OPCODE_TEXT && opcode !== OPCODE_CONTINUATION) continue;
      message.push(payload);
      if (!fin) continue;
      const whole = concatBytes(message);
      message = [];
      this.#receive(this.#decoder.decode(whole));
    }
  }
  #receive(data) {
    receiveRpcText(data, this.#pending, this.#listeners);
  }
};
function maskedFrame(opcode, payload) {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const frame = new Uint8Array(2 + extra + 4 + length);
  frame[0] = 128 | opcode;
  frame[1] = 128 | (extra === 0 ? length : extra === 2 ? 126 : 127);
  const view = new DataView(frame.buffer);
  if (extra === 2) view.setUint16(2, length);
  if (extra === 8) view.setBigUint64(2, BigInt(length));
  const mask = crypto.getRandomValues(new Uint8Array(4));
  frame.set(mask, 2 + extra);
  const start = 2 + extra + 4;
  for (let i = 0; i < length; i++) frame[start + i] = payload[i] ^ mask[i & 3];
  return frame;
}
async function readHead(conn) {
  let buffered = new Uint8Array(0);
  const chunk = new Uint8Array(4096);
  for (; ; ) {
    const end = indexOfHeadEnd(buffered);
    if (end >= 0) {
      return {
        head: new TextDecoder().decode(buffered.subarray(0, end)),
        rest: buffered.slice(end + 4)
      };
    }
    if (buffered.length > MAX_HEADER_BYTES) {
      throw new Error("The gateway's upgrade answer has too long a header");
    }
    const n = await conn.read(chunk);
    if (n === null) throw new Error("The gateway closed the connection during the upgrade");
    buffered = concatBytes([
      buffered,
      chunk.subarray(0, n)
    ]);
  }
}
function indexOfHeadEnd(bytes) {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}
var ByteInput = class {
  #conn;
  /** Bytes read and not yet taken, in order; the first may be partly taken already. */
  #chunks = [];
  #length = 0;
  #chunk = new Uint8Array(64 * 1024);
  constructor(conn, initial) {
    this.#conn = conn;
    if (initial.length > 0) this.#chunks.push(initial);
    this.#length = initial.length;
  }
  /** The next `n` bytes (a copy), or null when the connection ends first. */
  async take(n) {
    while (this.#length < n) {
      const read = await this.#conn.read(this.#chunk);
      if (read === null) return null;
      this.#chunks.push(this.#chunk.slice(0, read));
      this.#length += read;
    }
    const out = new Uint8Array(n);
    for (let at = 0; at < n; ) {
      const first = this.#chunks[0];
      const part = Math.min(first.length, n - at);
      out.set(first.subarray(0, part), at);
      at += part;
      if (part === first.length) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(part);
    }
    this.#length -= n;
    return out;
  }
};

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
    const where = error.line !== void 0 ? ` (line ${error.line}${error.column !== void 0 ? `:${error.column}` : ""})` : "";
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
  const paths = leanGatewayPaths({
    flag: simple.rootFlag,
    env: input.env,
    cwd: input.cwd
  });
  if (paths === null) return null;
  const params = (stdin) => ({
    source: simple.source,
    args: simple.args,
    stdin,
    cwd: input.cwd,
    client: "cli",
    ...simple.check !== void 0 ? {
      check: simple.check
    } : {}
  });
  const sendEarly = simple.noStdin || input.stdinIsEmpty();
  let client;
  try {
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(paths.dataDir)));
    if (state.root !== paths.rootDir || typeof state.port !== "number") return null;
    const token = readTokenSync(paths.dataDir);
    client = await LeanGatewayClient.open({
      host: "127.0.0.1",
      port: state.port,
      token,
      timeoutMs: 2e3,
      ...sendEarly ? {
        first: {
          method: "exec",
          params: params("")
        }
      } : {}
    });
  } catch {
    return null;
  }
  try {
    const early = client.firstAnswer;
    printApprovalNotices(client, {
      root: {
        dir: paths.rootDir,
        source: paths.rootSource,
        configFile: null
      },
      output
    });
    try {
      await client.handshake;
    } catch (error) {
      if (early === null || !(error instanceof HandshakeError) || error.answered) return null;
      printError(output, "Server", `${error.message}; the run was sent and may still start: see \`gateway history\``);
      return 1;
    }
    let answer;
    try {
      answer = await (early ?? client.request("exec", params(await input.readStdin())));
    } catch (error) {
      if (error instanceof RpcError) {
        printError(output, String(error.data?.kind ?? "Usage"), error.message);
        return 2;
      }
      printError(output, "Internal", messageOf(error));
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
function stdinIsEmpty() {
  if (Deno.stdin.isTerminal()) return true;
  if (Deno.build.os === "linux") {
    try {
      return Deno.readLinkSync("/proc/self/fd/0") === "/dev/null";
    } catch {
      return false;
    }
  }
  try {
    const stdin = Deno.statSync("/dev/stdin");
    const nothing = Deno.statSync("/dev/null");
    return stdin.isCharDevice === true && stdin.dev === nothing.dev && stdin.ino === nothing.ino;
  } catch {
    return false;
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

// src/config/config_error.ts
var ConfigError = class extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "ConfigError";
  }
};

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
function pathOf(url) {
  const path = decodeURIComponent(url.pathname);
  return Deno.build.os === "windows" ? path.slice(1).replaceAll("/", "\\") : path;
}
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
    pathOf(new URL("../main.ts", import.meta.url)),
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
  return child.pid;
}
async function serverHealth(state, waitUp) {
  try {
    const response = await fetch(`http://127.0.0.1:${state.port}/health${waitUp ? "?wait=up" : ""}`, {
      signal: AbortSignal.timeout(2e3)
    });
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    const body = await response.json();
    const starting = typeof body === "object" && body !== null && "starting" in body && body.starting === true;
    return starting ? "starting" : "up";
  } catch {
    return null;
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
  const pid = spawnBackgroundServer({
    rootFlag: options.rootFlag,
    dataDir: options.dataDir
  });
  const timeoutMs = options.startTimeoutMs ?? 3e4;
  const deadline = Date.now() + timeoutMs;
  for (; ; ) {
    if (!pidAlive(pid)) {
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
  const paths = leanGatewayPaths({
    flag: rootFlag || null,
    env: input.env,
    cwd: input.cwd
  });
  if (paths === null) return null;
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
    output.out(`${ns.identifier.padEnd(16)} ${ns.kind.padEnd(6)} ${String(ns.tools).padStart(3)} tools  ${status}
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
  const paths = leanGatewayPaths({
    flag: simple.rootFlag,
    env: input.env,
    cwd: input.cwd
  });
  if (paths === null) return null;
  let client;
  try {
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(paths.dataDir)));
    if (state.root !== paths.rootDir || typeof state.port !== "number") return null;
    client = await LeanGatewayClient.open({
      host: "127.0.0.1",
      port: state.port,
      token: readTokenSync(paths.dataDir),
      timeoutMs: 2e3,
      first: {
        method: "namespaces",
        params: {
          settle: true
        }
      }
    });
  } catch {
    return null;
  }
  try {
    try {
      await client.handshake;
    } catch {
      return null;
    }
    const answer = await client.firstAnswer;
    printNamespaceListing(answer, input.output, simple);
    return 0;
  } catch {
    return null;
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
    isTty: Deno.stdout.isTerminal()
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
    pathOf2(new URL("../../deno.json", import.meta.url)),
    pathOf2(new URL("../main.ts", import.meta.url)),
    ...argv
  ];
}
function pathOf2(url) {
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
    readStdin: readStdinText,
    stdinIsEmpty
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

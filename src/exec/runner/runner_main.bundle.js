// src/protocol/channel_messages.ts
var MAX_CHANNEL_LINE_BYTES = 16 * 1024 * 1024;

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
function installScriptGlobals(run2, port, options = {}) {
  function call(namespace, tool, args, raw) {
    const answer = port.request({
      t: "call",
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
    const marker = `${run2.scriptPath}:`;
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
  for (const [identifier, ns] of Object.entries(run2.toolMap)) {
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
  const stdinText = run2.stdin;
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
      t: "attach",
      block: normaliseAttachment(block)
    };
    const size = JSON.stringify(message).length;
    if (size > MAX_CHANNEL_LINE_BYTES) {
      throw new RangeError(`attach(): the block is ${size} bytes, over the ${MAX_CHANNEL_LINE_BYTES}-byte limit: attach a smaller image, or write it to a file the caller can read`);
    }
    port.send(message).catch(() => void 0);
  }
  async function resourceRequest(request2) {
    const site = new Error();
    try {
      return await port.request({
        t: "resources",
        ...request2
      });
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
    if (!run2.discovery || !options.discoveryReader) {
      throw new Error("search()/describe() have no catalogue in this run");
    }
    reader ??= options.discoveryReader(run2.discovery);
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
    port.send({
      t: "result",
      value: toJsonSafe(value)
    }).catch((error) => port.send({
      t: "warning",
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
    ...run2.args
  ]));
  define("ToolError", ToolError);
  define("attach", attach);
  define("resources", resources);
  define("search", search);
  define("describe", describe);
  define(run2.resultHook, resultHook);
  Object.defineProperty(Deno, "args", {
    value: Object.freeze([
      ...run2.args
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
async function writeAll(writer, bytes) {
  for (let at = 0; at < bytes.length; ) at += await writer.write(bytes.subarray(at));
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

// src/protocol/line_buffer.ts
var LineBuffer = class {
  #onLine;
  /** The pieces of the line not ended yet, in order. */
  #pieces = [];
  #pendingLength = 0;
  constructor(onLine) {
    this.#onLine = onLine;
  }
  /** Characters of the line not ended yet (held until its newline comes). */
  get pendingLength() {
    return this.#pendingLength;
  }
  /** Hands every line `text` completes to the callback, in order, and keeps the rest. */
  push(text) {
    let start = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
      let line = text.slice(start, newline);
      start = newline + 1;
      if (this.#pieces.length > 0) {
        this.#pieces.push(line);
        line = this.#pieces.join("");
        this.#pieces = [];
        this.#pendingLength = 0;
      }
      if (line.trim() !== "") this.#onLine(line);
    }
    if (start < text.length) {
      const rest = start === 0 ? text : text.slice(start);
      this.#pieces.push(rest);
      this.#pendingLength += rest.length;
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
var writeStdout = Deno.stdout.writeSync.bind(Deno.stdout);
var writeStderr = Deno.stderr.writeSync.bind(Deno.stderr);
var channelClosedByUs = false;
globalThis.addEventListener("unload", () => {
  channelClosedByUs = true;
  send({
    t: "end"
  }).catch(() => void 0);
  try {
    conn.close();
  } catch {
  }
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
var backlog = null;
var writing = Promise.resolve();
function send(message) {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  if (bytes.length > MAX_CHANNEL_LINE_BYTES) {
    return Promise.reject(new RangeError(`the ${message.t} message is ${bytes.length} bytes, over the gateway channel's limit of ${MAX_CHANNEL_LINE_BYTES} bytes: send less at once`));
  }
  if (backlog !== null) {
    backlog.push(bytes);
    return writing;
  }
  const queue = [];
  backlog = queue;
  writing = conn.write(bytes).then((written) => {
    if (written === bytes.length && queue.length === 0) backlog = null;
    else return flush(bytes.subarray(written), queue);
  }, (error) => {
    backlog = null;
    throw error;
  });
  return writing;
}
async function flush(first, queue) {
  try {
    for (let next = first; next !== void 0; next = queue.shift()) {
      await writeAll(conn, next);
    }
  } finally {
    backlog = null;
  }
}
var pending = /* @__PURE__ */ new Map();
var nextId = 1;
var topLevelDone = false;
var referenced = true;
function updateRef() {
  const needed = !topLevelDone || pending.size > 0;
  if (needed === referenced) return;
  referenced = needed;
  if (needed) conn.ref();
  else conn.unref();
}
async function readMessages(onMessage) {
  const replies = new ChunkDecoder();
  const lines = new LineBuffer((line) => onMessage(JSON.parse(line)));
  const buf = new Uint8Array(64 * 1024);
  for (; ; ) {
    let n;
    try {
      n = await conn.read(buf);
    } catch {
      n = null;
    }
    if (n === null) break;
    lines.push(replies.decode(buf.subarray(0, n)));
  }
  if (channelClosedByUs) return;
  for (const entry of pending.values()) {
    entry.reject(new Error("The gateway closed the run's channel"));
  }
  pending.clear();
  Deno.exit(70);
}
var runMessage = new Promise((resolve, reject) => {
  readMessages((message) => {
    if (message.t === "run") resolve(message);
    else if (message.t === "refused") reject(new Error(message.message));
    else if (message.t === "locate") locateCall(message.id);
    else if (message.t === "reply") {
      const entry = pending.get(message.id);
      if (!entry) return;
      pending.delete(message.id);
      updateRef();
      if (message.ok) entry.resolve(message.value);
      else entry.reject({
        channelError: message.error,
        raw: message.raw
      });
    }
  });
});
await send({
  t: "hello",
  token
});
warmEventDispatch();
conn.unref();
conn.ref();
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
var run = await runMessage;
if (run.exitAtEnd === true) {
  let exitListenerAdded = false;
  globalThis.addEventListener("beforeunload", () => {
    if (exitListenerAdded) return;
    exitListenerAdded = true;
    globalThis.addEventListener("unload", () => Deno.exit(Deno.exitCode));
  });
}
function locateCall(id) {
  const entry = pending.get(id);
  if (entry?.locate === void 0) return;
  const line = entry.locate();
  delete entry.locate;
  if (line !== void 0) send({
    t: "call_line",
    id,
    line
  }).catch(() => void 0);
}
function request(message, locate2, failure) {
  const id = nextId++;
  return new Promise((resolve, settleFailed) => {
    const reject = failure === void 0 ? settleFailed : (error) => settleFailed(failure(error));
    pending.set(id, locate2 === void 0 ? {
      resolve,
      reject
    } : {
      resolve,
      reject,
      locate: locate2
    });
    updateRef();
    send({
      ...message,
      id
    }).catch((error) => {
      pending.delete(id);
      updateRef();
      reject(error);
    });
  });
}
var discovery = run.discovery ? await import(fileUrl(discoveryPath)) : null;
if (revokeDiscoveryGrant) {
  Deno.permissions.revokeSync({
    name: "read",
    path: discoveryPath
  });
}
var globals = installScriptGlobals(run, {
  request,
  send
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
var failing = false;
async function fail(error) {
  if (!failing) {
    failing = true;
    await send({
      t: "failed",
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
  send({
    t: "warning",
    message: `Unhandled promise rejection${where}: ${failure.name}: ${failure.message}; ${fix} (or .catch() it) so its failure stops the run or is handled`
  }).catch(() => void 0);
});
try {
  await import(fileUrl(run.scriptPath));
} catch (error) {
  await fail(error);
}
await writing.catch(() => void 0);
topLevelDone = true;
updateRef();

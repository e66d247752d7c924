// The gateway dashboard: one WebSocket (JSON-RPC on /ws) for every request and every live
// update (events.subscribe pushes runs, approvals and namespace changes; no polling).
import { createEditor } from "./editor.js";

const FAILURE_KINDS = [
  "CheckFailed",
  "SyntaxError",
  "ScriptError",
  "ToolError",
  "UnknownTool",
  "InvalidToolInput",
  "ToolTimeout",
  "Timeout",
  "ToolCallLimitExceeded",
  "PermissionDenied",
  "PermissionRefused",
  "NamespaceUnavailable",
  "PolicyDenied",
  "MemoryLimit",
  "Cancelled",
  "Crashed",
];

const $ = (selector) => document.querySelector(selector);

/** Builds an element: el("td", {class: "x"}, "text", child…). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// ---------------------------------------------------------------- RPC over the WebSocket

class Rpc {
  #socket = null;
  #next = 1;
  #pending = new Map();
  #listeners = new Set();
  #onOpen;
  #retry = 500;

  constructor(onOpen) {
    this.#onOpen = onOpen;
    this.#connect();
  }

  #connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The session cookie `gateway ui` signed this browser in with goes along.
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.#socket = socket;
    socket.onopen = () => {
      this.#retry = 500;
      setConnection("live", "connected");
      this.#onOpen();
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.method && message.id === undefined) {
        for (const listener of this.#listeners) listener(message.method, message.params);
        return;
      }
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) {
        const error = new Error(message.error.message);
        error.data = message.error.data;
        pending.reject(error);
      } else pending.resolve(message.result);
    };
    socket.onclose = () => {
      setConnection("down", "disconnected: reconnecting…");
      for (const pending of this.#pending.values()) {
        pending.reject(new Error("connection lost"));
      }
      this.#pending.clear();
      setTimeout(() => this.#connect(), this.#retry);
      this.#retry = Math.min(this.#retry * 2, 10_000);
    };
  }

  get connected() {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  request(method, params = {}) {
    if (this.#socket?.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error("not connected to the gateway"));
    }
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  on(listener) {
    this.#listeners.add(listener);
  }
}

function setConnection(state, text) {
  const node = $("#connection");
  node.textContent = text;
  node.dataset.state = state;
}

function showError(container, error) {
  container.replaceChildren(el("p", { class: "error", role: "alert" }, `Error: ${error.message}`));
}

const rpc = new Rpc(async () => {
  await rpc.request("events.subscribe");
  await Promise.all([loadNamespaces(), loadTools(), loadApprovals(), loadWorkflows()]);
  route();
});

// ---------------------------------------------------------------- navigation

function currentView() {
  const hash = location.hash.slice(1) || "namespaces";
  return hash.startsWith("run/") ? "details" : hash;
}

function route() {
  const view = currentView();
  for (const section of document.querySelectorAll("[data-view]")) {
    section.hidden = section.dataset.view !== view;
  }
  for (const link of document.querySelectorAll("[data-tab]")) {
    if (link.dataset.tab === view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (!rpc.connected) return;
  if (view === "history") loadHistory();
  if (view === "details") openRun(decodeURIComponent(location.hash.slice("#run/".length)));
  if (view === "run") editor.focus();
}
addEventListener("hashchange", route);

// ---------------------------------------------------------------- namespaces

function renderNamespaces(list) {
  const body = $("#namespaces tbody");
  body.replaceChildren(...list.map((ns) =>
    el(
      "tr",
      { "data-namespace": ns.name },
      el("th", { scope: "row" }, ns.name),
      el("td", {}, ns.kind),
      el(
        "td",
        { class: `status ${ns.status}` },
        ns.status,
        ns.reason ? el("div", { class: "reason" }, ns.reason) : null,
      ),
      el("td", {}, String(ns.tools)),
      el(
        "td",
        { class: "actions" },
        el("button", {
          type: "button",
          "aria-label": `Restart ${ns.name}`,
          onclick: async (event) => {
            event.target.disabled = true;
            try {
              await rpc.request("namespace.restart", { namespace: ns.name });
            } catch (error) {
              showError($("#stderr"), error);
            } finally {
              event.target.disabled = false;
            }
          },
        }, "Restart"),
        ns.kind === "mcp"
          ? el("button", {
            type: "button",
            "aria-label": `Show stderr of ${ns.name}`,
            onclick: () => showStderr(ns.name),
          }, "stderr")
          : null,
      ),
    )
  ));
}

async function loadNamespaces() {
  const answer = await rpc.request("namespaces");
  renderNamespaces(answer.namespaces);
}

async function showStderr(name) {
  const answer = await rpc.request("upstream.stderr", { namespace: name, lines: 40 });
  $("#stderr-panel").hidden = false;
  $("#stderr-title").textContent = `Last stderr lines of ${name}`;
  $("#stderr").textContent = answer.lines.join("\n") || "(nothing on stderr)";
}

// ---------------------------------------------------------------- tools

let tools = [];

async function loadTools() {
  tools = (await rpc.request("upstream.tools")).tools;
  renderToolList();
}

function renderToolList() {
  const words = $("#tool-search").value.toLowerCase().split(/\s+/).filter(Boolean);
  const matching = tools.filter((t) => {
    const text = `${t.namespace} ${t.name} ${t.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  $("#tool-list").replaceChildren(
    ...matching.slice(0, 200).map((t) =>
      el(
        "li",
        {},
        el("button", {
          type: "button",
          class: "link",
          onclick: () => showTool(t),
        }, `${t.identifier}.${t.name}`),
        el("span", { class: "muted" }, ` ${t.description.split("\n")[0].slice(0, 80)}`),
      )
    ),
  );
}
$("#tool-search").addEventListener("input", renderToolList);

function fieldFor(name, schema, required) {
  const id = `arg-${name}`;
  const label = `${name}${required ? " (required)" : ""}`;
  const hint = schema.description ? el("span", { class: "muted" }, schema.description) : null;
  if (Array.isArray(schema.enum)) {
    return el(
      "label",
      { for: id },
      label,
      el(
        "select",
        { id, name, "data-kind": "enum" },
        required ? null : el("option", { value: "" }, "—"),
        schema.enum.map((v) => el("option", { value: JSON.stringify(v) }, String(v))),
      ),
      hint,
    );
  }
  if (schema.type === "boolean") {
    return el(
      "label",
      { for: id, class: "check" },
      el("input", { id, name, type: "checkbox", "data-kind": "boolean" }),
      label,
      hint,
    );
  }
  if (schema.type === "number" || schema.type === "integer") {
    return el(
      "label",
      { for: id },
      label,
      el("input", {
        id,
        name,
        type: "number",
        step: schema.type === "integer" ? "1" : "any",
        required,
        "data-kind": "number",
      }),
      hint,
    );
  }
  if (schema.type === "string") {
    return el(
      "label",
      { for: id },
      label,
      el("input", { id, name, type: "text", required, "data-kind": "string" }),
      hint,
    );
  }
  return el(
    "label",
    { for: id },
    `${label} (JSON)`,
    el("textarea", { id, name, rows: 3, required, "data-kind": "json" }),
    hint,
  );
}

function formArgs(form) {
  const args = {};
  for (const input of form.querySelectorAll("[data-kind]")) {
    const kind = input.dataset.kind;
    if (kind === "boolean") {
      if (input.checked) args[input.name] = true;
      continue;
    }
    if (input.value === "") continue;
    if (kind === "number") args[input.name] = Number(input.value);
    else if (kind === "string") args[input.name] = input.value;
    else args[input.name] = JSON.parse(input.value);
  }
  return args;
}

async function showTool(tool) {
  const detail = $("#tool-detail");
  let described = "";
  try {
    described = (await rpc.request("describe", { path: `${tool.identifier}.${tool.name}` })).text;
  } catch (error) {
    described = `${tool.name}: ${tool.description}\n(${error.message})`;
  }
  const schema = tool.inputSchema ?? {};
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, s]) =>
    fieldFor(name, s, required.has(name))
  );
  const output = el("pre", { class: "result", tabindex: "0", "aria-label": "Call result" });
  const form = el(
    "form",
    {
      class: "try",
      "aria-label": `Try ${tool.name}`,
      onsubmit: async (event) => {
        event.preventDefault();
        output.textContent = "calling…";
        try {
          const answer = await rpc.request("call", {
            namespace: tool.namespace,
            tool: tool.name,
            args: formArgs(form),
          });
          output.textContent = typeof answer.value === "string"
            ? answer.value
            : JSON.stringify(answer.value, null, 2);
        } catch (error) {
          output.textContent = `error${
            error.data?.kind ? `[${error.data.kind}]` : ""
          }: ${error.message}`;
        }
      },
    },
    fields.length ? fields : el("p", { class: "muted" }, "This tool takes no arguments."),
    el("button", { type: "submit" }, "Call"),
  );
  detail.replaceChildren(
    el("h3", {}, `${tool.identifier}.${tool.name}`),
    el("pre", { class: "signature", tabindex: "0", "aria-label": "Signature and docs" }, described),
    el("h4", {}, "Try it"),
    form,
    output,
  );
  form.querySelector("input, select, textarea, button")?.focus();
}

// ---------------------------------------------------------------- editor and runs

const GLOBALS = [
  { label: "tools", type: "variable", info: "Every namespace's tools" },
  { label: "search", type: "function", info: "search(words) → ranked tools" },
  { label: "describe", type: "function", info: "describe('ns.tool') → signature and docs" },
  { label: "attach", type: "function", info: "attach({data, mimeType}) → media for the caller" },
  { label: "args", type: "variable", info: "The run's arguments" },
  { label: "stdin", type: "function", info: "stdin().text() / .json() / .lines()" },
  { label: "console", type: "variable" },
];

function complete(context) {
  const member = context.matchBefore(/tools\.([A-Za-z_$][\w$]*)\.[\w$]*$/);
  if (member) {
    const ns = member.text.split(".")[1];
    const from = member.from + member.text.lastIndexOf(".") + 1;
    return {
      from,
      options: tools.filter((t) => t.identifier === ns && /^[A-Za-z_$][\w$]*$/.test(t.name))
        .map((t) => ({
          label: t.name,
          type: "function",
          detail: "tool",
          info: t.description,
          apply: `${t.name}({})`,
        })),
    };
  }
  const namespace = context.matchBefore(/tools\.[\w$]*$/);
  if (namespace) {
    const identifiers = [...new Set(tools.map((t) => t.identifier))];
    return {
      from: namespace.from + "tools.".length,
      options: identifiers.map((id) => ({ label: id, type: "namespace" })),
    };
  }
  const word = context.matchBefore(/[\w$]+$/);
  if (!word && !context.explicit) return null;
  return { from: word ? word.from : context.pos, options: GLOBALS };
}

async function diagnose(source) {
  if (source.trim() === "") return [];
  try {
    return (await rpc.request("check", { source })).diagnostics;
  } catch {
    return [];
  }
}

const editor = createEditor($("#editor"), {
  doc: "const sum = 1 + 2;\nconsole.log('sum is', sum);\nsum",
  complete,
  diagnose,
  run: () => $("#run-form").requestSubmit(),
});

function list(value) {
  return value.split(",").map((s) => s.trim()).filter(Boolean);
}

async function runSource(source, extra = {}) {
  const live = $("#live-output");
  live.textContent = "";
  const permissions = {};
  if ($("#run-net").value.trim()) permissions.net = list($("#run-net").value);
  if ($("#run-read").value.trim()) permissions.read = list($("#run-read").value);
  const params = {
    source,
    client: "ui",
    stream: true,
    args: $("#run-args").value.split(/\s+/).filter(Boolean),
    check: $("#run-check").checked,
    ...($("#run-stdin").value ? { stdin: $("#run-stdin").value } : {}),
    ...($("#run-timeout").value ? { timeoutMs: Number($("#run-timeout").value) } : {}),
    ...(Object.keys(permissions).length ? { permissions } : {}),
    ...extra,
  };
  const result = $("#run-result");
  result.replaceChildren(el("p", { class: "muted" }, "running…"));
  try {
    const doc = await rpc.request("exec", params);
    const stored = await rpc.request("history.get", { id: doc.runId }).catch(() => null);
    result.replaceChildren(renderRun(doc, stored ?? { source }));
  } catch (error) {
    showError(result, error);
  }
}

rpc.on((method, params) => {
  if (method === "run.output") {
    $("#live-output").append(
      el("span", { class: params.stream === "stderr" ? "stderr" : "" }, params.text),
    );
  }
});

$("#run-form").addEventListener("submit", (event) => {
  event.preventDefault();
  runSource(editor.value);
});

function errorLine(doc, stored) {
  if (doc?.error?.line) return doc.error.line;
  const match = /\(line (\d+)\)/.exec(stored?.errorMessage ?? "");
  return match ? Number(match[1]) : null;
}

/** Run details: error, source with the error line, output, result, media, tool calls. */
function renderRun(doc, stored) {
  const source = stored?.source ?? "";
  const line = errorLine(doc, stored);
  const ok = doc ? doc.ok : stored.status === "ok";
  const runId = doc?.runId ?? stored.runId;
  const error = doc?.error ??
    (stored?.errorKind ? { kind: stored.errorKind, message: stored.errorMessage ?? "" } : null);
  const result = doc && "result" in doc
    ? doc.result
    : stored?.result != null
    ? JSON.parse(stored.result)
    : undefined;
  const nameInput = el("input", { id: `save-${runId}`, type: "text", placeholder: "script-name" });
  const saveStatus = el("span", { role: "status" });
  return el(
    "article",
    { class: `run ${ok ? "ok" : "failed"}`, "aria-label": `Run ${runId}` },
    el(
      "p",
      { class: "run-head" },
      el("strong", {}, ok ? "ok" : "failed"),
      ` · run ${runId}`,
      doc ? ` · ${doc.durationMs} ms` : stored ? ` · ${stored.durationMs} ms` : "",
    ),
    error
      ? el(
        "p",
        { class: "error", role: "alert" },
        `error[${error.kind}]: ${error.message}${line ? ` (line ${line})` : ""}`,
      )
      : null,
    source
      ? el(
        "ol",
        { class: "source", "aria-label": "Source", tabindex: "0" },
        source.split("\n").map((text, i) =>
          el(
            "li",
            i + 1 === line ? { class: "error-line", "aria-current": "true" } : {},
            el("code", {}, text || " "),
          )
        ),
      )
      : null,
    el("h4", {}, "stdout"),
    el("pre", { class: "stdout", tabindex: "0" }, (doc?.stdout ?? stored?.stdout) || "(none)"),
    (doc?.stderr ?? stored?.stderr)
      ? [
        el("h4", {}, "stderr"),
        el("pre", { class: "stderr", tabindex: "0" }, doc?.stderr ?? stored.stderr),
      ]
      : null,
    result !== undefined
      ? [
        el("h4", {}, "result"),
        el("pre", { class: "result", tabindex: "0" }, JSON.stringify(result, null, 2)),
      ]
      : null,
    renderAttachments(doc?.attachments ?? []),
    renderToolCalls(stored?.toolCalls ?? []),
    el(
      "div",
      { class: "run-actions" },
      el("button", {
        type: "button",
        onclick: () => {
          editor.value = source;
          location.hash = "#run";
          runSource(source);
        },
      }, "Rerun"),
      el("label", { for: `save-${runId}` }, "Save as"),
      nameInput,
      el("button", {
        type: "button",
        disabled: !ok,
        onclick: async () => {
          try {
            const saved = await rpc.request("history.save", { id: runId, name: nameInput.value });
            saveStatus.textContent = `saved as ${saved.file}`;
          } catch (error) {
            saveStatus.textContent = `error: ${error.message}`;
          }
        },
      }, "Save"),
      saveStatus,
    ),
  );
}

function renderAttachments(attachments) {
  if (!attachments.length) return null;
  return [
    el("h4", {}, "attachments"),
    el(
      "div",
      { class: "media" },
      attachments.map((a, i) => {
        if (a.type === "image") {
          return el("img", {
            src: `data:${a.mimeType};base64,${a.data}`,
            alt: `Image ${i + 1} attached by the run (${a.mimeType})`,
          });
        }
        if (a.type === "audio") {
          return el("audio", {
            controls: true,
            src: `data:${a.mimeType};base64,${a.data}`,
            "aria-label": `Audio ${i + 1} attached by the run`,
          });
        }
        return el("pre", { tabindex: "0" }, JSON.stringify(a, null, 2));
      }),
    ),
  ];
}

function renderToolCalls(calls) {
  if (!calls.length) return null;
  return [
    el("h4", {}, "tool calls"),
    el(
      "table",
      { class: "calls" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col" }, "Call"),
          el("th", { scope: "col" }, "ms"),
          el("th", { scope: "col" }, "Outcome"),
          el("th", { scope: "col" }, "Result"),
        ),
      ),
      el(
        "tbody",
        {},
        calls.map((c) =>
          el(
            "tr",
            {},
            el("td", {}, `${c.namespace}.${c.tool}`),
            el("td", {}, String(c.durationMs)),
            el(
              "td",
              {},
              c.ok ? "ok" : c.errorKind ?? "failed",
              c.approval
                ? ` (${c.approval.allowed ? "allowed" : "denied"} by ${c.approval.by})`
                : "",
            ),
            el(
              "td",
              { class: "call-result" },
              typeof c.result === "string"
                ? el("pre", { tabindex: "0" }, c.result)
                : el("span", { class: "muted" }, "(none)"),
            ),
          )
        ),
      ),
    ),
  ];
}

async function openRun(runId) {
  const container = $("#details");
  container.replaceChildren(el("p", { class: "muted" }, "loading…"));
  try {
    const stored = await rpc.request("history.get", { id: runId });
    // The finished document (attachments, error line) while the gateway still remembers it.
    const doc = await rpc.request("wait", { runId, timeoutMs: 1 }).catch(() => null);
    container.replaceChildren(renderRun(doc && "ok" in doc ? doc : null, stored));
  } catch (error) {
    showError(container, error);
  }
}

// ---------------------------------------------------------------- history

const PAGE = 20;
let offset = 0;

for (const kind of FAILURE_KINDS) $("#filter-kind").append(el("option", {}, kind));

function filters() {
  const since = $("#filter-since").value;
  const until = $("#filter-until").value;
  return {
    ...($("#filter-status").value ? { status: $("#filter-status").value } : {}),
    ...($("#filter-kind").value ? { kind: $("#filter-kind").value } : {}),
    ...($("#filter-text").value ? { text: $("#filter-text").value } : {}),
    ...(since ? { since: new Date(`${since}T00:00:00`).getTime() } : {}),
    ...(until ? { until: new Date(`${until}T23:59:59.999`).getTime() } : {}),
  };
}

async function loadHistory() {
  let answer;
  try {
    answer = await rpc.request("history.search", { ...filters(), limit: PAGE, offset });
  } catch (error) {
    showError($("#page-info"), error);
    return;
  }
  $("#runs tbody").replaceChildren(...answer.runs.map((r) =>
    el(
      "tr",
      { class: r.status },
      el("td", {}, el("a", { href: `#run/${encodeURIComponent(r.runId)}` }, r.runId)),
      el("td", {}, r.status, r.errorKind ? ` ${r.errorKind}` : ""),
      el("td", {}, new Date(r.startedAt).toLocaleString()),
      el("td", {}, String(r.durationMs)),
      el("td", {}, String(r.toolCalls)),
      el("td", {}, el("code", {}, r.preview)),
    )
  ));
  const last = Math.min(offset + PAGE, answer.total);
  $("#page-info").textContent = answer.total
    ? `${offset + 1}–${last} of ${answer.total}`
    : "no runs match";
  $("#page-prev").disabled = offset === 0;
  $("#page-next").disabled = last >= answer.total;
}

$("#history-filters").addEventListener("submit", (event) => {
  event.preventDefault();
  offset = 0;
  loadHistory();
});
$("#page-prev").addEventListener("click", () => {
  offset = Math.max(0, offset - PAGE);
  loadHistory();
});
$("#page-next").addEventListener("click", () => {
  offset += PAGE;
  loadHistory();
});

// ---------------------------------------------------------------- approvals

const pending = new Map();

function renderApprovals() {
  $("#approval-count").textContent = pending.size ? String(pending.size) : "";
  $("#approvals tbody").replaceChildren(...[...pending.values()].map((p) => {
    const answer = (allow) => async () => {
      await rpc.request("approval.respond", { runId: p.id, allow, by: "dashboard" });
    };
    return el(
      "tr",
      { "data-approval": p.id },
      el("td", {}, p.runId),
      el("td", {}, el("code", {}, `${p.namespace}.${p.tool}(${p.args})`)),
      el("td", {}, p.rule),
      el(
        "td",
        { class: "actions" },
        el("button", {
          type: "button",
          class: "allow",
          onclick: answer(true),
          "aria-label": `Allow ${p.namespace}.${p.tool} for run ${p.runId}`,
        }, "Allow"),
        el("button", {
          type: "button",
          class: "deny",
          onclick: answer(false),
          "aria-label": `Deny ${p.namespace}.${p.tool} for run ${p.runId}`,
        }, "Deny"),
      ),
    );
  }));
}

async function loadApprovals() {
  const answer = await rpc.request("approval.list");
  pending.clear();
  for (const p of answer.pending) pending.set(p.id, p);
  renderApprovals();
}

$("#enable-notifications").addEventListener("click", async () => {
  if (!("Notification" in window)) return;
  const permission = await Notification.requestPermission();
  $("#enable-notifications").textContent = `Browser notifications: ${permission}`;
});

rpc.on((method, params) => {
  if (method === "event.approval.pending") {
    pending.set(params.id, params);
    renderApprovals();
    if ("Notification" in window && Notification.permission === "granted") {
      new Notification("gateway: approval needed", {
        body: `${params.namespace}.${params.tool}(${params.args})`,
      });
    }
  } else if (method === "event.approval.answered") {
    pending.delete(params.id);
    renderApprovals();
    $("#answered").prepend(
      el(
        "li",
        {},
        `${params.id}: ${params.allowed ? "allowed" : "denied"} by ${params.by}`,
      ),
    );
  } else if (method === "event.namespaces") {
    renderNamespaces(params.namespaces);
    loadTools();
  } else if (method === "event.run.finished") {
    if (currentView() === "history") loadHistory();
    loadWorkflows();
  }
});

// ---------------------------------------------------------------- workflows

async function loadWorkflows() {
  const answer = await rpc.request("workflow.list");
  $("#sessions tbody").replaceChildren(...answer.sessions.map((s) =>
    el(
      "tr",
      {},
      el("th", { scope: "row" }, s.session),
      el("td", {}, s.name),
      el("td", {}, `step ${s.step} of ${s.totalSteps}, pass ${s.pass}`),
      el(
        "td",
        {},
        el("button", {
          type: "button",
          onclick: () => showSession(s.session),
          "aria-label": `Show session ${s.session}`,
        }, "Show"),
      ),
    )
  ));
  $("#workflow-files").replaceChildren(...answer.files.map((f) =>
    el(
      "li",
      {},
      el("strong", {}, f.name),
      f.error
        ? el("span", { class: "error" }, ` ${f.error}`)
        : ` ${f.description ?? ""} (${f.steps} steps)`,
    )
  ));
}

async function showSession(session) {
  const [status, log] = await Promise.all([
    rpc.request("workflow.status", { session }),
    rpc.request("workflow.log", { session }),
  ]);
  $("#session-detail").replaceChildren(
    el("h3", {}, `Session ${session}`),
    el("pre", { tabindex: "0", "aria-label": "Current step" }, status.text),
    el("h4", {}, "Events"),
    el("pre", { tabindex: "0", "aria-label": "Events" }, log.text),
  );
}

route();

// The gateway dashboard: one WebSocket (JSON-RPC on /ws) for every request and every live
// update (events.subscribe pushes runs, approvals and namespace changes; protocol.watch the
// protocol log; no polling). Views: namespaces, tools, resources, prompts, protocol log, the
// script editor with its problems list, history, approvals and workflows.
import { createEditor } from "./editor.js";
import { RpcSocket } from "./rpc_socket.js";
import { clippedText, el, fillTable, setChildren, showError } from "./elements.js";
import { createInspectorViews } from "./inspector_views.js";
import { createProtocolView } from "./protocol_view.js";

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

function setConnection(state, text) {
  const node = $("#connection");
  node.textContent = text;
  node.dataset.state = state;
}

const rpc = new RpcSocket({
  onState: setConnection,
  onOpen: async () => {
    await rpc.request("events.subscribe");
    // A new connection has no watches yet: the protocol view watches again.
    protocolOpen = false;
    await Promise.all([
      loadNamespaces(),
      loadTools(),
      loadApprovals(),
      loadAnswered(),
      loadWorkflows(),
    ]);
    route();
  },
});
const inspector = createInspectorViews(rpc, $);
const protocol = createProtocolView(rpc, $);
rpc.on((method, params) => protocol.onEvent(method, params));

// ---------------------------------------------------------------- navigation

/** The view a hash names (`#prompts/everything` → "prompts"), and its argument. */
function currentView() {
  const hash = location.hash.slice(1) || "namespaces";
  const slash = hash.indexOf("/");
  const view = slash < 0 ? hash : hash.slice(0, slash);
  return view === "run" && slash >= 0 ? "details" : view;
}

function hashArgument() {
  const hash = location.hash.slice(1);
  const slash = hash.indexOf("/");
  return slash < 0 ? null : decodeURIComponent(hash.slice(slash + 1));
}

const INSPECTOR_VIEWS = ["resources", "prompts", "protocol"];

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
  if (view === "details") openRun(hashArgument());
  if (view === "run") editor.focus();
  if (INSPECTOR_VIEWS.includes(view)) openInspector(view, hashArgument());
  if (view !== "protocol" && protocolOpen) {
    // Nobody reads the log off screen: stop its pushes until the view is back.
    protocolOpen = false;
    inspected = { view: null, namespace: null };
    protocol.close();
  }
}
addEventListener("hashchange", route);

// ---------------------------------------------------------------- namespaces

let namespaces = [];

/** MCP namespaces, the ones the inspector views can show. */
function mcpNamespaces() {
  return namespaces.filter((ns) => ns.kind === "mcp").map((ns) => ns.name);
}

function renderNamespaces(list) {
  namespaces = list;
  fillPickers();
  const rows = list.map((ns) =>
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
            const button = event.currentTarget;
            button.disabled = true;
            try {
              await rpc.request("namespace.restart", { namespace: ns.name });
            } catch (error) {
              showError($("#namespace-status"), error);
            } finally {
              button.disabled = false;
            }
          },
        }, "Restart"),
        ns.kind === "mcp"
          ? [
            el("button", {
              type: "button",
              "aria-label": `Show stderr of ${ns.name}`,
              onclick: () => showStderr(ns.name),
            }, "stderr"),
            INSPECTOR_VIEWS.map((view) =>
              el("a", {
                class: "button",
                href: `#${view}/${encodeURIComponent(ns.name)}`,
                "aria-label": `${view[0].toUpperCase()}${view.slice(1)} of ${ns.name}`,
              }, view[0].toUpperCase() + view.slice(1))
            ),
          ]
          : null,
      ),
    )
  );
  fillTable(
    $("#namespaces"),
    rows,
    "No namespaces yet — add a tool module as tools/NAME.ts in the root, or an MCP server " +
      "under mcpServers (or an API under apis) in gateway.json; they appear here as they start.",
  );
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

// ---------------------------------------------------------------- resources, prompts, protocol

/** The MCP server pickers of the inspector views, one option per MCP namespace. */
function fillPickers() {
  const names = mcpNamespaces();
  for (const picker of document.querySelectorAll(".ns-picker")) {
    const chosen = picker.value;
    setChildren(
      picker,
      ...(names.length
        ? names.map((name) => el("option", { value: name }, name))
        : [el("option", { value: "" }, "(no MCP servers)")]),
    );
    if (names.includes(chosen)) picker.value = chosen;
  }
}

for (const picker of document.querySelectorAll(".ns-picker")) {
  picker.addEventListener("change", () => {
    location.hash = `#${picker.dataset.target}/${encodeURIComponent(picker.value)}`;
  });
}
$("#resources-refresh").addEventListener("click", () => route());
$("#prompts-refresh").addEventListener("click", () => route());

let inspected = { view: null, namespace: null };

/** Shows `view` for MCP namespace `name` (the first one when the hash names none). */
function openInspector(view, name) {
  const names = mcpNamespaces();
  const namespace = name && names.includes(name) ? name : names[0] ?? null;
  $(`#${view}-ns`).value = namespace ?? "";
  const same = inspected.view === view && inspected.namespace === namespace;
  inspected = { view, namespace };
  if (view === "resources") inspector.showResources(namespace);
  else if (view === "prompts") inspector.showPrompts(namespace);
  else if (!same || !protocolOpen) {
    protocolOpen = true;
    protocol.open(namespace);
  }
}
let protocolOpen = false;

// ---------------------------------------------------------------- tools

let tools = [];
/** Tools by the path a script types (`everything.get_sum`). */
let toolsByPath = new Map();
/** The same tools by the upstream's names (`everything` + `get-sum`). */
let toolsByUpstream = new Map();

/** The path a script types for `tool` (`everything.get_sum`). */
function typedPath(tool) {
  return `${tool.identifier}.${tool.toolIdentifier ?? tool.name}`;
}

/**
 * A call recorded under the upstream's names, as the script typed it, with the upstream's
 * tool name as a note where it differs.
 */
function callLabel(namespace, tool, typedName) {
  const typed = typedName ?? (toolsByUpstream.get(`${namespace}\u0000${tool}`) &&
    typedPath(toolsByUpstream.get(`${namespace}\u0000${tool}`)));
  if (!typed) return [`${namespace}.${tool}`];
  const typedTool = typed.slice(typed.indexOf(".") + 1);
  return typedTool === tool
    ? [typed]
    : [typed, " ", el("span", { class: "muted note" }, `(upstream name ${tool})`)];
}

async function loadTools() {
  tools = (await rpc.request("upstream.tools")).tools
    .sort((a, b) => typedPath(a) < typedPath(b) ? -1 : 1);
  toolsByPath = new Map(tools.map((t) => [typedPath(t), t]));
  toolsByUpstream = new Map(tools.map((t) => [`${t.namespace}\u0000${t.name}`, t]));
  await renderToolList();
}

let searchAsked = 0;

/**
 * Lists every tool, or the tools the gateway's search ranks for the query: it finds a tool by
 * the path a script types (`kv.get`, `tools.kv.get`), by the upstream's name (`get-sum`) and
 * by words of its name and description.
 */
async function renderToolList() {
  const query = $("#tool-search").value.trim();
  let matching = tools;
  if (query !== "") {
    const asked = ++searchAsked;
    let answer;
    try {
      answer = await rpc.request("search", { query, limit: 200 });
    } catch (error) {
      showError($("#tool-count"), error);
      return;
    }
    if (asked !== searchAsked) return;
    matching = answer.results.filter((hit) => hit.kind === "tool")
      .map((hit) => toolsByPath.get(hit.path.replace(/^tools\./, "")))
      .filter((tool) => tool !== undefined);
  }
  $("#tool-count").textContent = query === ""
    ? `${tools.length} tools`
    : `${matching.length} of ${tools.length} tools match "${query}"`;
  if (matching.length === 0) {
    setChildren(
      $("#tool-list"),
      el(
        "li",
        { class: "empty" },
        tools.length === 0
          ? "No tools yet — the tools of ready namespaces appear here: add a module as " +
            "tools/NAME.ts or an MCP server in gateway.json (the Namespaces tab says why one is " +
            "not ready)."
          : `No tool matches "${query}" — try a part of its name or words of what it does.`,
      ),
    );
    return;
  }
  setChildren(
    $("#tool-list"),
    ...matching.map((t) => {
      const path = typedPath(t);
      return el(
        "li",
        { "data-path": path },
        el("button", { type: "button", class: "link", onclick: () => showTool(t) }, path),
        t.toolIdentifier && t.toolIdentifier !== t.name
          ? el("span", { class: "muted note" }, ` (upstream name ${t.name})`)
          : null,
        clippedText(t.description),
      );
    }),
  );
}

let searchTimer = null;
$("#tool-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(renderToolList, 120);
});

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
  const path = typedPath(tool);
  let described = "";
  try {
    described = (await rpc.request("describe", { path })).text;
  } catch (error) {
    described = `${path}: ${tool.description}\n(${error.message})`;
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
      "aria-label": `Try ${path}`,
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
  setChildren(
    detail,
    el("h3", {}, `tools.${path}`),
    tool.toolIdentifier && tool.toolIdentifier !== tool.name
      ? el("p", { class: "muted" }, `The server names it "${tool.name}"; scripts call it as above.`)
      : null,
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
      options: tools.filter((t) => t.identifier === ns).map((t) => t.toolIdentifier ?? t.name)
        .filter((name) => /^[A-Za-z_$][\w$]*$/.test(name))
        .map((name) => ({
          label: name,
          type: "function",
          detail: "tool",
          info: toolsByPath.get(`${ns}.${name}`)?.description ?? "",
          apply: `${name}({})`,
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

/** Type errors of `source` for the editor's underlines, listed under it as Problems too. */
async function diagnose(source) {
  if (source.trim() === "") {
    renderProblems([], null);
    return [];
  }
  let diagnostics;
  try {
    diagnostics = (await rpc.request("check", { source })).diagnostics;
  } catch (error) {
    renderProblems([], error);
    return [];
  }
  // An answer for text typed over since is not this text's problems.
  if (source === editor.value) renderProblems(diagnostics, null);
  return diagnostics;
}

/** The Problems list: each type error by line and column; a click puts the cursor there. */
function renderProblems(diagnostics, error) {
  const list = $("#problems");
  $("#problem-count").textContent = diagnostics.length ? String(diagnostics.length) : "";
  if (error) {
    setChildren(list, el("li", { class: "error" }, `Cannot check the script: ${error.message}`));
    return;
  }
  if (diagnostics.length === 0) {
    setChildren(
      list,
      el(
        "li",
        { class: "empty" },
        "No problems — type errors in the script are listed here as you type (checked " +
          "against the live tool types); click one to go to its line.",
      ),
    );
    return;
  }
  setChildren(
    list,
    ...diagnostics.map((d) =>
      el(
        "li",
        {},
        el(
          "button",
          {
            type: "button",
            class: "problem",
            "data-line": d.line,
            onclick: () => goToProblem(d),
          },
          el("span", { class: "where" }, `Line ${d.line}:${d.column}`),
          ` ${d.message}`,
        ),
      )
    ),
  );
}

/** Moves the editor's cursor to a problem's line and column and focuses the editor. */
function goToProblem(problem) {
  const doc = editor.view.state.doc;
  const line = doc.line(Math.min(Math.max(problem.line, 1), doc.lines));
  const at = Math.min(line.from + Math.max(problem.column - 1, 0), line.to);
  editor.view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  editor.focus();
}

const editor = createEditor($("#editor"), {
  doc: "const sum = 1 + 2;\nconsole.log('sum is', sum);\nsum",
  complete,
  diagnose,
  run: () => $("#run-form").requestSubmit(),
});
renderProblems([], null);

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
  setChildren(result, el("p", { class: "muted" }, "running…"));
  try {
    const doc = await rpc.request("exec", params);
    const stored = await rpc.request("history.get", { id: doc.runId }).catch(() => null);
    setChildren(result, renderRun(doc, stored ?? { source }));
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
      { class: "calls cards" },
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
            el("td", { "data-label": "Call" }, callLabel(c.namespace, c.tool, c.typedName)),
            el("td", { "data-label": "ms" }, String(c.durationMs)),
            el(
              "td",
              { "data-label": "Outcome" },
              c.ok ? "ok" : c.errorKind ?? "failed",
              c.approval
                ? ` (${c.approval.allowed ? "allowed" : "denied"} by ${c.approval.by})`
                : "",
            ),
            el(
              "td",
              { class: "call-result", "data-label": "Result" },
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
  setChildren(container, el("p", { class: "muted" }, "loading…"));
  try {
    const stored = await rpc.request("history.get", { id: runId });
    // The finished document (attachments, error line) while the gateway still remembers it.
    const doc = await rpc.request("wait", { runId, timeoutMs: 1 }).catch(() => null);
    setChildren(container, renderRun(doc && "ok" in doc ? doc : null, stored));
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
    $("#page-info").textContent = `Error: ${error.message}`;
    return;
  }
  const rows = answer.runs.map((r) =>
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
  );
  const filtered = Object.keys(filters()).length > 0;
  fillTable(
    $("#runs"),
    rows,
    filtered
      ? "No runs match these filters — clear them to see every run."
      : "No runs yet — run gateway exec '1+1' in the project, or a script on the Run tab; " +
        "every run is kept here with its output and tool calls.",
  );
  const last = Math.min(offset + PAGE, answer.total);
  $("#page-info").textContent = answer.total
    ? `${offset + 1}–${last} of ${answer.total}`
    : filtered
    ? "no runs match"
    : "no runs yet";
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

/** A call's name as text (typed path, upstream name in brackets), for labels and notices. */
function callText(namespace, tool) {
  return callLabel(namespace, tool).map((part) =>
    typeof part === "string" ? part : part.textContent
  )
    .join("");
}

function renderApprovals() {
  $("#approval-count").textContent = pending.size ? String(pending.size) : "";
  const rows = [...pending.values()].map((p) => {
    const answer = (allow) => async () => {
      try {
        await rpc.request("approval.respond", { runId: p.id, allow, by: "dashboard" });
      } catch (error) {
        showError($("#approval-status"), error);
      }
    };
    const name = callLabel(p.namespace, p.tool);
    const typed = typeof name[0] === "string" ? name[0] : `${p.namespace}.${p.tool}`;
    return el(
      "tr",
      { "data-approval": p.id },
      el("td", {}, p.runId),
      el("td", {}, el("code", {}, `${typed}(${p.args})`), name.slice(1)),
      el("td", {}, p.rule),
      el(
        "td",
        { class: "actions" },
        el("button", {
          type: "button",
          class: "allow",
          onclick: answer(true),
          "aria-label": `Allow ${typed} for run ${p.runId}`,
        }, "Allow"),
        el("button", {
          type: "button",
          class: "deny",
          onclick: answer(false),
          "aria-label": `Deny ${typed} for run ${p.runId}`,
        }, "Deny"),
      ),
    );
  });
  fillTable(
    $("#approvals"),
    rows,
    "Nothing is waiting — a call that an ask rule in gateway.json's policy holds appears " +
      "here until you allow or deny it (or gateway approve RUNID does).",
  );
}

async function loadApprovals() {
  const answer = await rpc.request("approval.list");
  pending.clear();
  for (const p of answer.pending) pending.set(p.id, p);
  renderApprovals();
}

/** Answered approvals from history, newest first, and those answered since (not yet stored). */
let answeredStored = [];
let answeredLive = [];

async function loadAnswered() {
  answeredStored = (await rpc.request("approval.answered", { limit: 50 })).answered;
  // A live answer leaves the list of its own once history holds its call (its run ended).
  answeredLive = answeredLive.filter((live) =>
    !answeredStored.some((s) =>
      s.runId === live.runId && s.namespace === live.namespace && s.tool === live.tool
    )
  );
  renderAnswered();
}

function renderAnswered() {
  const items = [...answeredLive, ...answeredStored].map((a) =>
    el(
      "li",
      {},
      el("code", {}, callText(a.namespace, a.tool)),
      " ",
      el("strong", { class: a.allowed ? "allowed" : "denied" }, a.allowed ? "allowed" : "denied"),
      ` by ${a.by}`,
      el(
        "span",
        { class: "muted" },
        ` · run `,
        el("a", { href: `#run/${encodeURIComponent(a.runId)}` }, a.runId),
        a.at ? ` · ${new Date(a.at).toLocaleString()}` : "",
      ),
    )
  );
  setChildren(
    $("#answered"),
    ...(items.length ? items : [
      el(
        "li",
        { class: "empty" },
        "No answered approvals yet — each call you allow or deny (here, with gateway " +
          "approve, or from an MCP host) is listed here, and stays after a reload.",
      ),
    ]),
  );
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
        body: `${callText(params.namespace, params.tool)}(${params.args})`,
      });
    }
  } else if (method === "event.approval.answered") {
    const held = pending.get(params.id);
    pending.delete(params.id);
    renderApprovals();
    answeredLive.unshift({
      runId: params.runId,
      namespace: held?.namespace ?? "",
      tool: held?.tool ?? params.id,
      allowed: params.allowed,
      by: params.by,
      at: Date.now(),
    });
    renderAnswered();
  } else if (method === "event.namespaces") {
    renderNamespaces(params.namespaces);
    loadTools();
  } else if (method === "event.run.finished") {
    if (currentView() === "history") loadHistory();
    loadWorkflows();
    loadAnswered();
  }
});

// ---------------------------------------------------------------- workflows

async function loadWorkflows() {
  const answer = await rpc.request("workflow.list");
  const rows = answer.sessions.map((s) =>
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
  );
  fillTable(
    $("#sessions"),
    rows,
    "No workflow sessions — start one with gateway workflow start NAME (a workflow below), " +
      "then gateway workflow step after each step; its progress shows here.",
  );
  setChildren(
    $("#workflow-files"),
    ...(answer.files.length
      ? answer.files.map((f) =>
        el(
          "li",
          {},
          el("strong", {}, f.name),
          f.error ? el("span", { class: "error" }, ` ${f.error}`) : [
            " ",
            clippedText(f.description ?? ""),
            el("span", { class: "muted" }, ` (${f.steps} steps)`),
          ],
        )
      )
      : [
        el(
          "li",
          { class: "empty" },
          "No workflows — add a file as workflows/NAME.yaml in the root (a description and " +
            "its steps, each with a title and a prompt).",
        ),
      ]),
  );
}

async function showSession(session) {
  const [status, log] = await Promise.all([
    rpc.request("workflow.status", { session }),
    rpc.request("workflow.log", { session }),
  ]);
  setChildren(
    $("#session-detail"),
    el("h3", {}, `Session ${session}`),
    el("pre", { tabindex: "0", "aria-label": "Current step" }, status.text),
    el("h4", {}, "Events"),
    el("pre", { tabindex: "0", "aria-label": "Events" }, log.text),
  );
}

route();

// The Protocol view: every JSON-RPC message between the gateway and one MCP server, live and
// newest first, as the MCP Inspector's history shows it — time, direction, method and what it
// is about (tool, prompt, URI), id, size, how long an answer took, and the message as
// indented JSON on demand. The gateway keeps the newest messages;
// new ones arrive over the WebSocket (`protocol.watch` → `event.protocol`). Pause holds new
// rows back, Clear empties the gateway's log, the filter narrows by text and direction.
import {
  el,
  emptyRow,
  formatBytes,
  formatClock,
  labelCells,
  prettyJson,
  setChildren,
  showError,
} from "./elements.js";

/** Rows the page keeps; older ones leave the table as new ones come. */
const MAX_ROWS = 1000;

/** The Protocol view over `rpc`; `$` finds elements of the page. */
export function createProtocolView(rpc, $) {
  let namespace = null;
  let entries = [];
  let held = [];
  let paused = false;
  let loading = false;
  let early = [];
  const table = $("#protocol-table");

  function matches(entry) {
    const direction = $("#protocol-direction").value;
    if (direction && entry.direction !== direction) return false;
    const words = $("#protocol-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return true;
    const text = `${entry.method ?? ""} ${entry.target ?? ""} ${entry.kind} ${
      entry.id ?? ""
    } ${entry.preview}`
      .toLowerCase();
    return words.every((word) => text.includes(word));
  }

  function emptyText() {
    if (!namespace) {
      return "No MCP servers configured — add one under mcpServers in gateway.json; the " +
        "messages the gateway exchanges with it appear here.";
    }
    if (entries.length > 0) return "No message matches the filter.";
    return `No messages yet — every JSON-RPC message between the gateway and "${namespace}" ` +
      "appears here as it happens: call one of its tools (Tools tab, or gateway exec), or " +
      "Restart it on the Namespaces tab to see the handshake.";
  }

  async function toggleJson(entry, button) {
    const row = button.closest("tr");
    const open = row.nextElementSibling?.classList.contains("json");
    if (open) {
      row.nextElementSibling.remove();
      button.setAttribute("aria-expanded", "false");
      button.textContent = "Show JSON";
      button.setAttribute("aria-label", `Show JSON of message ${entry.seq}`);
      return;
    }
    button.setAttribute("aria-expanded", "true");
    button.textContent = "Hide JSON";
    button.setAttribute("aria-label", `Hide JSON of message ${entry.seq}`);
    const cell = el("td", { colspan: table.querySelectorAll("thead th").length });
    row.after(el("tr", { class: "json" }, cell));
    cell.append(el("p", { class: "muted" }, "loading…"));
    try {
      const message = await rpc.request("protocol.message", { namespace, seq: entry.seq });
      setChildren(
        cell,
        message.truncated
          ? el(
            "p",
            { class: "muted" },
            `The first ${message.text.length} characters of ${formatBytes(message.bytes)}:`,
          )
          : null,
        el(
          "pre",
          { tabindex: "0", "aria-label": `Message ${entry.seq} as JSON` },
          message.truncated ? message.text : prettyJson(message.text),
        ),
      );
    } catch (error) {
      showError(cell, error);
    }
  }

  function row(entry) {
    const sent = entry.direction === "sent";
    const button = el("button", {
      type: "button",
      "aria-expanded": "false",
      "aria-label": `Show JSON of message ${entry.seq}`,
      onclick: (event) => toggleJson(entry, event.currentTarget),
    }, "Show JSON");
    return el(
      "tr",
      { class: `${entry.direction} ${entry.kind}`, "data-seq": entry.seq },
      el("td", {}, formatClock(entry.at)),
      el(
        "td",
        {},
        el("span", { "aria-hidden": "true" }, sent ? "→ " : "← "),
        sent ? "sent" : "received",
      ),
      el(
        "td",
        {},
        el("code", {}, entry.method ?? "?"),
        entry.target === null ? "" : [" ", el("span", { class: "target" }, entry.target)],
        entry.kind === "request" || entry.kind === "notification"
          ? ""
          : el("span", { class: "kind" }, ` (${entry.kind})`),
      ),
      el("td", {}, entry.id === null ? null : String(entry.id)),
      el("td", {}, formatBytes(entry.bytes)),
      el("td", {}, entry.durationMs === undefined ? null : `${entry.durationMs} ms`),
      el("td", { class: "actions" }, button),
    );
  }

  function render() {
    const shown = entries.filter(matches);
    const body = table.tBodies[0];
    if (shown.length === 0) setChildren(body, emptyRow(table, emptyText()));
    else {
      const rows = shown.reverse().map(row);
      setChildren(body, ...rows);
      labelCells(table, rows);
    }
    status();
  }

  function status() {
    const shown = table.tBodies[0].querySelectorAll("tr[data-seq]").length;
    $("#protocol-count").textContent = namespace
      ? `${shown} of ${entries.length} messages shown${
        paused ? `; paused, ${held.length} new held back` : ""
      }`
      : "";
    $("#protocol-pause").textContent = paused ? `Resume (${held.length} new)` : "Pause";
    $("#protocol-pause").setAttribute("aria-pressed", String(paused));
  }

  function append(fresh) {
    const last = entries.at(-1)?.seq ?? 0;
    const added = fresh.filter((e) => e.seq > last);
    if (added.length === 0) return;
    entries.push(...added);
    const body = table.tBodies[0];
    if (body.querySelector("tr.empty")) setChildren(body);
    // Newest first: the new rows go on top, the newest of them first.
    const rows = added.filter(matches).reverse().map(row);
    body.prepend(...rows);
    labelCells(table, rows);
    while (entries.length > MAX_ROWS) {
      const gone = body.querySelector(`tr[data-seq="${entries.shift().seq}"]`);
      if (gone?.nextElementSibling?.classList.contains("json")) gone.nextElementSibling.remove();
      gone?.remove();
    }
    if (!body.querySelector("tr")) setChildren(body, emptyRow(table, emptyText()));
    status();
  }

  /** Shows namespace `name`'s log and follows it live (or says there is no MCP server). */
  async function open(name) {
    if (namespace !== name) close();
    namespace = name ?? null;
    entries = [];
    held = [];
    early = [];
    render();
    if (!namespace) return;
    loading = true;
    try {
      await rpc.request("protocol.watch", { namespace });
      const answer = await rpc.request("protocol.log", { namespace, limit: MAX_ROWS });
      entries = answer.entries;
      render();
      append(early);
    } catch (error) {
      showError($("#protocol-count"), error);
    } finally {
      loading = false;
      early = [];
    }
  }

  /** Stops following the log (the view is left); `open` starts again from the kept messages. */
  function close() {
    if (!namespace) return;
    const name = namespace;
    namespace = null;
    // Fails only when the connection is gone, and its watches went with it.
    rpc.request("protocol.unwatch", { namespace: name }).catch((error) =>
      console.warn(`protocol.unwatch ${name}: ${error.message}`)
    );
  }

  /** Takes `event.protocol` pushes for the namespace shown. */
  function onEvent(method, params) {
    if (method !== "event.protocol" || params.namespace !== namespace) return;
    if (loading) early.push(...params.entries);
    else if (paused) {
      held.push(...params.entries);
      status();
    } else append(params.entries);
  }

  $("#protocol-filter").addEventListener("input", render);
  $("#protocol-direction").addEventListener("change", render);
  $("#protocol-pause").addEventListener("click", () => {
    paused = !paused;
    if (!paused) {
      const release = held;
      held = [];
      append(release);
    }
    status();
  });
  $("#protocol-clear").addEventListener("click", async () => {
    if (!namespace) return;
    try {
      await rpc.request("protocol.clear", { namespace });
      entries = [];
      held = [];
      render();
    } catch (error) {
      showError($("#protocol-count"), error);
    }
  });

  return { open, close, onEvent };
}

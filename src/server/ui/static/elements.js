// Building blocks of the dashboard's pages: elements, descriptions cut at a word with the whole
// a click away, tables that say what would appear when they are empty and that turn into
// labelled cards on a phone, sizes and times as people read them.

/** Builds an element: el("td", {class: "x"}, "text", child…); `on…` attributes are listeners. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  node.append(...nodesOf(children));
  return node;
}

/** Replaces `node`'s children, taking what `el` takes (nested arrays, text, null for nothing). */
export function setChildren(node, ...children) {
  node.replaceChildren(...nodesOf(children));
}

function nodesOf(children) {
  return children.flat(Infinity)
    .filter((child) => child !== undefined && child !== null && child !== false)
    .map((child) => child instanceof Node ? child : document.createTextNode(String(child)));
}

/** `text` cut to at most `max` characters at a word boundary (never inside a word). */
export function cutAtWord(text, max) {
  if (text.length <= max) return text;
  const head = text.slice(0, max + 1);
  const space = head.search(/\s\S*$/);
  // One word longer than the limit is cut where it must be.
  const cut = space > 0 ? head.slice(0, space) : text.slice(0, max);
  return cut.replace(/[\s,;:.(-]+$/, "");
}

/**
 * A description in one line: whole when it fits, else cut at a word with "…" and a disclosure
 * that shows all of it (every line).
 */
export function clippedText(text, max = 100) {
  const full = (text ?? "").trim();
  if (full === "") return el("span", { class: "desc muted" }, "(no description)");
  const first = full.split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
  if (first === full && full.length <= max) return el("span", { class: "desc" }, full);
  return el(
    "details",
    { class: "desc" },
    el("summary", {}, `${cutAtWord(first, max)}…`, el("span", { class: "more" }, " more")),
    el("p", { class: "full" }, full),
  );
}

/** A row spanning the table saying what would appear and how: tables are never bare headers. */
export function emptyRow(table, text) {
  const columns = table.querySelectorAll("thead th").length || 1;
  return el("tr", { class: "empty" }, el("td", { colspan: columns, class: "empty" }, text));
}

/**
 * Fills `table`'s body with `rows`, or with `empty` (text or nodes) when there are none, and
 * labels each cell with its column's heading, which the phone layout shows beside the value.
 */
export function fillTable(table, rows, empty) {
  const body = table.tBodies[0];
  if (rows.length === 0) {
    setChildren(body, emptyRow(table, empty));
    return;
  }
  setChildren(body, rows);
  labelCells(table, rows);
}

/** Sets `data-label` on each cell of `rows` from the table's column headings. */
export function labelCells(table, rows) {
  const headings = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
  for (const row of rows) {
    [...row.cells].forEach((cell, i) => {
      if (headings[i]) cell.dataset.label = headings[i];
    });
  }
}

/** A size in bytes as people read it: 512 B, 1.4 KiB, 2.0 MiB. */
export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A time of day with milliseconds (13:04:05.123), for messages close together. */
export function formatClock(ms) {
  const date = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${
    String(date.getMilliseconds()).padStart(3, "0")
  }`;
}

/** Replaces `container`'s content with an error message that screen readers announce. */
export function showError(container, error) {
  setChildren(container, el("p", { class: "error", role: "alert" }, `Error: ${error.message}`));
}

/** JSON text made readable (indented); the text itself when it is not JSON (a cut message). */
export function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * `GET /ui`: a small dashboard (namespaces, recent runs, a run box) served from the gateway
 * itself, so its Origin is the gateway's own. The token arrives as `?token=` and stays in the
 * page; every fetch sends it as a Bearer header.
 * @module
 */

/** The dashboard's HTML (no external assets; the machine may be offline). */
export function dashboardHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gateway</title>
<style>
body{font:14px system-ui,sans-serif;margin:2rem;max-width:60rem;color:#222}
h1{font-size:1.4rem} table{border-collapse:collapse;width:100%} td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left}
.failed{color:#b00} .ready{color:#070} textarea{width:100%;height:6rem;font-family:monospace} pre{background:#f4f4f4;padding:.5rem;overflow:auto}
</style></head>
<body>
<h1>gateway</h1>
<h2>Namespaces</h2><table id="namespaces"><thead><tr><th>name</th><th>kind</th><th>status</th><th>tools</th></tr></thead><tbody></tbody></table>
<h2>Waiting for approval</h2><table id="approvals"><thead><tr><th>run</th><th>call</th><th>rule</th><th></th></tr></thead><tbody></tbody></table>
<h2>Run</h2><textarea id="source">await tools.kv.list({})</textarea><button id="run">Run</button><pre id="output"></pre>
<h2>Recent runs</h2><table id="runs"><thead><tr><th>id</th><th>status</th><th>ms</th><th>source</th></tr></thead><tbody></tbody></table>
<script>
const token = new URLSearchParams(location.search).get("token") || "";
const headers = { authorization: "Bearer " + token, "content-type": "application/json" };
const cell = (text, cls) => { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; return td; };
async function load() {
  const ns = await (await fetch("/namespaces", { headers })).json();
  const nsBody = document.querySelector("#namespaces tbody"); nsBody.replaceChildren();
  for (const n of ns.namespaces || []) { const tr = document.createElement("tr");
    tr.append(cell(n.name), cell(n.kind), cell(n.status + (n.reason ? ": " + n.reason : ""), n.status), cell(String(n.tools))); nsBody.append(tr); }
  const hist = await (await fetch("/history?limit=20", { headers })).json();
  const runBody = document.querySelector("#runs tbody"); runBody.replaceChildren();
  for (const r of hist.runs || []) { const tr = document.createElement("tr");
    tr.append(cell(r.runId), cell(r.status + (r.errorKind ? " " + r.errorKind : ""), r.status), cell(String(r.durationMs)), cell(r.preview)); runBody.append(tr); }
}
async function loadApprovals() {
  const held = await (await fetch("/approvals", { headers })).json();
  const body = document.querySelector("#approvals tbody"); body.replaceChildren();
  for (const p of held.pending || []) { const tr = document.createElement("tr");
    const actions = document.createElement("td");
    for (const [label, allow] of [["Allow", true], ["Deny", false]]) {
      const b = document.createElement("button"); b.textContent = label; b.dataset.run = p.runId;
      b.onclick = async () => { await fetch("/approvals/respond", { method: "POST", headers, body: JSON.stringify({ runId: p.id, allow, by: "dashboard" }) }); loadApprovals(); };
      actions.append(b);
    }
    tr.append(cell(p.runId), cell(p.namespace + "." + p.tool + "(" + p.args + ")"), cell(p.rule), actions); body.append(tr); }
}
// New held calls are pushed over the WebSocket; the poll catches answers given elsewhere.
function watchApprovals() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws?token=" + encodeURIComponent(token));
  ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "approval.watch", params: {} }));
  ws.onmessage = (event) => { if (JSON.parse(event.data).method === "approval.pending") loadApprovals(); };
  ws.onclose = () => setTimeout(watchApprovals, 2000);
}
watchApprovals();
setInterval(loadApprovals, 2000);
loadApprovals();
document.querySelector("#run").onclick = async () => {
  const source = document.querySelector("#source").value;
  const res = await fetch("/exec", { method: "POST", headers, body: JSON.stringify({ source, client: "ui" }) });
  document.querySelector("#output").textContent = JSON.stringify(await res.json(), null, 2);
  load();
};
load();
</script></body></html>`;
}

/**
 * What `/ui` shows without a valid token: how to get in (`gateway ui` prints the URL with the
 * token), instead of a bare JSON 401.
 */
export function dashboardLoginHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gateway: sign in</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .3em}</style>
</head><body>
<h1>gateway dashboard</h1>
<p>This page needs the gateway's token. In the project the gateway serves, run</p>
<p><code>gateway ui</code></p>
<p>It prints (and on a desktop opens) this address with the token. The token lives in the
gateway's data dir (<code>token</code>, mode 0600); <code>gateway status</code> shows where.</p>
</body></html>
`;
}

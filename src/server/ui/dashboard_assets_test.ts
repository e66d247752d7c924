import assert from "node:assert/strict";
import { dashboardResponse, isDashboardAsset } from "./dashboard_assets.ts";

Deno.test("`isDashboardAsset` admits the static files and the icon, never the page or a guess", () => {
  for (
    const path of ["/ui/dashboard.js", "/ui/protocol_view.js", "/ui/favicon.svg", "/favicon.ico"]
  ) {
    assert.equal(isDashboardAsset(path), true, path);
  }
  for (
    const path of ["/ui", "/ui/", "/ui/index.html", "/ui/../token", "/ui/nope.js", "/favicon.png"]
  ) {
    assert.equal(isDashboardAsset(path), false, path);
  }
});

Deno.test("`dashboardResponse` serves the icon at /favicon.ico and every module the page imports", async () => {
  const icon = await dashboardResponse("/favicon.ico");
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get("content-type"), "image/svg+xml");
  assert.match(await icon.text(), /^<svg /);
  const page = await (await dashboardResponse("/ui")).text();
  assert.match(page, /<link rel="icon" href="\/ui\/favicon.svg"/);
  // Every script the page loads, and every module those import, is served (none 404s).
  const pending = [...page.matchAll(/src="\/ui\/([\w.]+)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const response = await dashboardResponse(`/ui/${name}`);
    assert.equal(response.status, 200, name);
    assert.equal(isDashboardAsset(`/ui/${name}`), true, name);
    const text = await response.text();
    for (const m of text.matchAll(/from "\.\/([\w.]+)"/g)) pending.push(m[1]!);
  }
  assert.ok(seen.has("protocol_view.js") && seen.has("editor.js"), [...seen].join());
});

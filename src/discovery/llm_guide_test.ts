import assert from "node:assert/strict";
import { execConfigSchema } from "../config/gateway_config.ts";
import { SCRIPT_GLOBALS } from "../protocol/names.ts";
import { FAILURE_KINDS } from "../protocol/run_document.ts";
import { renderLlmGuide } from "./llm_guide.ts";
import { renderMcpGuide } from "./mcp_guide.ts";
import { syntheticSnapshot } from "./synthetic_snapshot.ts";

Deno.test("`renderLlmGuide()` states the limits in force from the exec config", () => {
  const limits = execConfigSchema.parse({
    timeoutMs: 30_000,
    callTimeoutMs: 5_000,
    maxOutputBytes: 131_072,
    maxToolCalls: 77,
    maxConcurrentCalls: 3,
    yieldAfterMs: 2_000,
    maxPermissions: { net: ["api.example.com"], read: true },
  });
  const guide = renderLlmGuide(syntheticSnapshot(), { limits });
  assert.match(guide, /Whole run: 30000 ms/);
  assert.match(guide, /One tool call: 5000 ms without progress, 600000 ms at most\./);
  assert.match(guide, /Tool calls per run: 77; at once: 3\./);
  assert.match(guide, /Output returned: 128 KiB of stdout/);
  assert.match(guide, /Memory: 512 MB; script source: 256 KiB\./);
  assert.match(guide, /Runs still going after 2000 ms answer/);
  assert.match(
    guide,
    /Default grant: none; most a caller may ask for: net=api\.example\.com; read\./,
  );
});

Deno.test("`renderLlmGuide()` lists namespaces, globals, failure kinds and how to run", () => {
  const guide = renderLlmGuide(syntheticSnapshot(), { limits: execConfigSchema.parse({}) });
  assert.match(guide, /^- `tools\.jira`: MCP server, failed: connect ECONNREFUSED .*, 8 tools \(/m);
  assert.match(guide, /^- `tools\.weather`: local module, starting, 8 tools \(/m);
  assert.match(
    guide,
    /^- `tools\.fancy_name \("fancy-name"\)`: MCP server, ready, 8 tools \(archive_widget, /m,
  );
  assert.match(guide, /Named scripts: 3/);
  for (const name of SCRIPT_GLOBALS) assert.ok(guide.includes(`| \`${name}`), `global ${name}`);
  for (const kind of FAILURE_KINDS) assert.match(guide, new RegExp(`^- \`${kind}\`: `, "m"));
  for (
    const command of ["gateway exec", "gateway catalog", "gateway search", "gateway tools types"]
  ) {
    assert.ok(guide.includes(command), command);
  }
  assert.match(guide, /Type check before running: on\./);
  assert.match(guide, /describe\("tools\.calendar\.archive_event"\)/, "example uses a live tool");
});

Deno.test("`renderLlmGuide()` shows pinned tools' signatures, and says when one names no tool", () => {
  const guide = renderLlmGuide(syntheticSnapshot(), {
    limits: execConfigSchema.parse({}),
    pinned: ["kv.get_entry", "kv.gett"],
  });
  assert.match(
    guide,
    /^Pinned tools:\n- tools\.kv\.get_entry\(args: \{ id: string \}\): Promise<.*> — Gets one entry/m,
  );
  assert.match(guide, /^- "kv\.gett" is pinned but names no tool \(nearest: tools\.kv/m);
});

Deno.test("`renderMcpGuide()` speaks of MCP tools, sums up each namespace, and stays short", () => {
  const limits = execConfigSchema.parse({ maxPermissions: { read: ["./data"] } });
  const guide = renderMcpGuide(syntheticSnapshot(), { limits, pinned: ["github.get_issue"] });
  for (const tool of ["`exec`", "`search`", "`describe`"]) assert.ok(guide.includes(tool), tool);
  assert.doesNotMatch(guide, /gateway (exec|search|tools)|--allow|--json/, "no shell commands");
  assert.match(guide, /^- `tools\.jira` \(MCP, 8 tools, failed: connect ECONNREFUSED/m);
  assert.match(guide, /^- `tools\.kv` \(local, 8 tools\): archive_entry, create_entry, /m);
  assert.match(guide, /^## Pinned tools\n- tools\.github\.get_issue\(args: \{ id: string \}\)/m);
  assert.match(guide, /permissions` asks \(at most read: \.\/data\)/);
  assert.ok(guide.length < 3500, `${guide.length} characters`);
});

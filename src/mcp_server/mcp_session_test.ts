import assert from "node:assert/strict";
import { Server } from "@modelcontextprotocol/server";
import { McpSession } from "./mcp_session.ts";
import { isLogLevel } from "../protocol/mcp_log_levels.ts";

function session(): McpSession {
  return new McpSession(new Server({ name: "t", version: "1" }), "legacy");
}

Deno.test("a session logs nothing until the client sets a level, then that level and above", () => {
  const s = session();
  assert.equal(s.wantsLogs(), false);
  assert.equal(s.logs("emergency"), false);
  // A held call the client cannot answer otherwise is told before any level is set.
  assert.equal(s.admits("warning"), true);
  s.setLogLevel("warning");
  assert.equal(s.logs("info"), false);
  assert.equal(s.logs("warning"), true);
  assert.equal(s.logs("error"), true);
  assert.equal(s.admits("info"), false);
  assert.equal(isLogLevel("notice"), true);
  assert.equal(isLogLevel("verbose"), false);
});

Deno.test("a held call is put to the host once; results are shaped for the newest 2025 revision before negotiation", () => {
  const s = session();
  assert.equal(s.firstAsk("run:1"), true);
  assert.equal(s.firstAsk("run:1"), false);
  assert.equal(s.firstAsk("run:2"), true);
  assert.equal(s.revision(), "2025-11-25");
});

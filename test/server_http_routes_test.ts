/**
 * End-to-end over real HTTP: `/health`, `/namespaces`, `/types`, `/types/:ns[,ns]`,
 * `POST /call`, `POST /exec` and `/openapi.json` answer what the WebSocket methods answer, and
 * bad bodies get JSON-RPC-shaped errors with a 4xx status.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";
import { rpcRootFiles } from "./support/rpc_root.ts";
import { pollUntil } from "./support/poll_until.ts";

Deno.test("the HTTP routes serve status, types, tool calls and runs to the token holder", async (t) => {
  await withHarness({ files: await rpcRootFiles() }, async (gw) => {
    const { port, token } = await gw.server();
    const base = `http://127.0.0.1:${port}`;
    const auth = { Authorization: `Bearer ${token}` };
    const getJson = async (path: string, headers: Record<string, string> = auth) => {
      const response = await fetch(`${base}${path}`, { headers });
      return { status: response.status, body: await response.json() };
    };
    const postJson = async (path: string, body: string) => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body,
      });
      return { status: response.status, body: await response.json() };
    };
    await pollUntil("echo, kv and fs to be ready", async () => {
      const { body } = await getJson("/health");
      const ready = (body.namespaces as Array<{ status: string }>).filter((n) =>
        n.status === "ready"
      );
      return ready.length === 3 ? true : undefined;
    });

    await t.step("GET /health reports each namespace's status to the token holder", async () => {
      assert.deepEqual((await getJson("/health", {})).body, { ok: true });
      const { status, body } = await getJson("/health");
      assert.equal(status, 200);
      assert.equal(body.ok, true);
      assert.equal(body.root, gw.root);
      const echo = body.namespaces.find((n: { name: string }) => n.name === "echo");
      assert.deepEqual(
        { status: echo.status, tools: echo.tools, kind: echo.kind },
        { status: "ready", tools: 2, kind: "local" },
      );
    });

    await t.step("GET /namespaces lists the namespaces", async () => {
      const { status, body } = await getJson("/namespaces");
      assert.equal(status, 200);
      assert.deepEqual(
        body.namespaces.map((n: { name: string }) => n.name).sort(),
        ["echo", "fs", "kv"],
      );
    });

    await t.step("GET /types and /types/kv,fs render TypeScript", async () => {
      const all = await getJson("/types");
      assert.equal(all.status, 200);
      for (const ns of ["echo", "kv", "fs"]) {
        assert.match(all.body.types, new RegExp(`namespace ${ns} \\{`));
      }
      const some = await getJson("/types/kv,fs");
      assert.equal(some.status, 200);
      assert.match(some.body.types, /^ {2}namespace kv \{/m);
      assert.match(some.body.types, /^ {2}namespace fs \{/m);
      assert.doesNotMatch(some.body.types, /namespace echo \{/);
      const unknown = await getJson("/types/kv,nope");
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, -32602);
      assert.match(unknown.body.error.message, /"nope"/);
    });

    await t.step("POST /call calls one tool", async () => {
      const ok = await postJson(
        "/call",
        JSON.stringify({ namespace: "echo", tool: "echo", args: { value: "via http" } }),
      );
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, { value: "via http" });
      const failed = await postJson(
        "/call",
        JSON.stringify({ namespace: "echo", tool: "fail", args: { message: "declined" } }),
      );
      assert.equal(failed.status, 422);
      assert.equal(failed.body.error.data.kind, "ToolError");
      assert.match(failed.body.error.message, /declined/);
      const missing = await postJson("/call", JSON.stringify({ tool: "echo" }));
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.code, -32602);
      assert.match(missing.body.error.message, /"namespace"/);
      const garbage = await postJson("/call", "{not json");
      assert.equal(garbage.status, 400);
      assert.equal(garbage.body.error.code, -32700);
    });

    await t.step("POST /exec answers the run document", async () => {
      const ok = await postJson(
        "/exec",
        JSON.stringify({ source: 'const v = await tools.kv.set({ key: "h", value: 2 }); 40 + 2' }),
      );
      assert.equal(ok.status, 200);
      assert.equal(ok.body.ok, true, JSON.stringify(ok.body));
      assert.equal(ok.body.result, 42);
      assert.equal(ok.body.toolCalls, 1);
      assert.equal(typeof ok.body.runId, "string");
      const failed = await postJson("/exec", JSON.stringify({ source: "null.x" }));
      assert.equal(failed.status, 200);
      assert.equal(failed.body.ok, false);
      assert.ok(["ScriptError", "CheckFailed"].includes(failed.body.error.kind));
      const bad = await postJson("/exec", JSON.stringify({ source: 1 }));
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /"source"/);
    });

    await t.step("GET /openapi.json describes the routes", async () => {
      const { status, body } = await getJson("/openapi.json");
      assert.equal(status, 200);
      assert.match(body.openapi, /^3\./);
      for (const path of ["/health", "/namespaces", "/types", "/types/{ns}", "/call", "/exec"]) {
        assert.ok(body.paths[path], `openapi.json lacks ${path}`);
      }
      // Request schemas are the router's own: `exec` requires its source and refuses extras.
      const exec = body.paths["/exec"].post.requestBody.content["application/json"].schema;
      assert.deepEqual(exec.required, ["source"]);
      assert.equal(exec.additionalProperties, false);
    });

    await t.step("an unknown route is a 404 naming it", async () => {
      const { status, body } = await getJson("/nope");
      assert.equal(status, 404);
      assert.match(body.error.message, /\/nope/);
    });
  });
});

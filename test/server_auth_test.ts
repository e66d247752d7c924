/**
 * End-to-end over real sockets: the token guards every route but `/health`, a foreign `Origin`
 * or a non-loopback `Host` is refused (HTTP 403, WebSocket upgrade refused with no 101), and the
 * token file is private.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { getRequest, rawHttp, upgradeRequest } from "./support/raw_http.ts";
import { boundedCli, minimalEnv } from "./support/bounded_cli.ts";

Deno.test("the gateway's HTTP and WebSocket interfaces admit only the token holder on a loopback origin", async (t) => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const { port, token } = await gw.server();
    const host = `127.0.0.1:${port}`;
    const get = (path: string, headers: Record<string, string | null>) =>
      rawHttp(port, getRequest(path, { Host: host, ...headers }));
    const upgrade = (path: string, headers: Record<string, string | null>) =>
      rawHttp(port, upgradeRequest(path, { Host: host, ...headers }));
    const bearer = { Authorization: `Bearer ${token}` };
    const runsRecorded = async () => {
      const response = await get("/history?limit=1000", bearer);
      assert.equal(response.status, 200, response.body);
      return (JSON.parse(response.body) as { runs: unknown[] }).runs.length;
    };

    await t.step("/health answers without a token only that the gateway is up", async () => {
      const response = await get("/health", {});
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(response.body), { ok: true });
      const wrong = await get("/health", { Authorization: "Bearer not-the-token" });
      assert.deepEqual(JSON.parse(wrong.body), { ok: true });
      const full = JSON.parse((await get("/health", bearer)).body);
      assert.equal(full.ok, true);
      assert.ok(Array.isArray(full.namespaces));
      assert.equal(typeof full.pid, "number");
    });

    await t.step("every other route answers 401 to a missing or wrong token", async () => {
      const wrong = token.replace(/^./, (c) => (c === "a" ? "b" : "a"));
      const bad: Array<[string, Record<string, string | null>]> = [
        ["no token", {}],
        ["a wrong token", { Authorization: "Bearer not-the-token" }],
        ["a same-length wrong token", { Authorization: `Bearer ${wrong}` }],
        ["a prefix of the token", { Authorization: `Bearer ${token.slice(0, 16)}` }],
        ["the token plus a suffix", { Authorization: `Bearer ${token}x` }],
        ["the wrong scheme", { Authorization: `Basic ${token}` }],
        ["no scheme", { Authorization: token }],
        ["an empty bearer", { Authorization: "Bearer " }],
      ];
      for (const path of ["/namespaces", "/types", "/openapi.json", "/history", "/ui", "/nope"]) {
        for (const [why, headers] of bad) {
          const response = await get(path, headers);
          assert.equal(response.status, 401, `${path} with ${why}: ${response.status}`);
          // The dashboard says how to get in; every other route says Unauthorized.
          assert.match(response.body, path === "/ui" ? /gateway ui/ : /Unauthorized/);
        }
      }
      assert.equal((await get("/namespaces", bearer)).status, 200);
    });

    await t.step("a POST /exec without the token runs nothing", async () => {
      const before = await runsRecorded();
      const body = JSON.stringify({ source: "1" });
      const response = await rawHttp(
        port,
        `POST /exec HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      assert.equal(response.status, 401);
      assert.equal(await runsRecorded(), before);
    });

    await t.step(
      "?token= is accepted on /ws and /ui only, where it becomes a session",
      async () => {
        const query = `?token=${token}`;
        assert.equal((await get(`/namespaces${query}`, {})).status, 401);
        assert.equal((await get(`/types${query}`, {})).status, 401);
        // The dashboard trades the token for an HttpOnly session cookie and drops it from the
        // address, so it stays in no browser history.
        const ui = await get(`/ui${query}`, {});
        assert.equal(ui.status, 303);
        assert.equal(ui.headers.location, "/ui");
        const cookie = ui.headers["set-cookie"] ?? "";
        assert.match(
          cookie,
          new RegExp(`^gateway_session_${port}=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=/`),
        );
        assert.ok(!cookie.includes(token));
        const session = { Cookie: cookie.split(";")[0]! };
        assert.equal((await get("/ui", session)).status, 200);
        assert.equal((await upgrade("/ws", session)).status, 101);
        // The session opens the page and its WebSocket, nothing else.
        assert.equal((await get("/namespaces", session)).status, 401);
        assert.equal((await upgrade(`/ws${query}`, {})).status, 101);
      },
    );

    await t.step(
      "a WebSocket upgrade without a valid token is refused with 401, no 101",
      async () => {
        assert.equal((await upgrade("/ws", {})).status, 401);
        assert.equal((await upgrade("/ws?token=wrong", {})).status, 401);
        assert.equal((await upgrade(`/ws?token=${token.slice(0, 32)}`, {})).status, 401);
        assert.equal((await upgrade("/ws", { Authorization: "Basic x" })).status, 401);
        assert.equal((await upgrade("/ws", bearer)).status, 101);
      },
    );

    const foreignOrigins = [
      "http://evil.example",
      "null",
      "http://localhost.evil.example",
      `http://127.0.0.1:${port}.evil.example`,
      `http://127.0.0.1:${port + 1}`,
      `http://localhost:${port + 1}`,
      `https://127.0.0.1:${port}`,
    ];

    await t.step("a foreign Origin gets 403 on HTTP, even with the token", async () => {
      const before = await runsRecorded();
      for (const origin of foreignOrigins) {
        const response = await get("/namespaces", { ...bearer, Origin: origin });
        assert.equal(response.status, 403, `Origin ${origin}: ${response.status}`);
        assert.match(response.body, /Origin/);
        const body = JSON.stringify({ source: "1" });
        const exec = await rawHttp(
          port,
          `POST /exec HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
        assert.equal(exec.status, 403, `POST /exec with Origin ${origin}`);
      }
      assert.equal(await runsRecorded(), before);
    });

    await t.step("a foreign Origin gets its WebSocket upgrade refused (403, no 101)", async () => {
      for (const origin of foreignOrigins) {
        const response = await upgrade(`/ws?token=${token}`, { Origin: origin });
        assert.equal(response.status, 403, `Origin ${origin}: ${response.status}`);
      }
      const log = await Deno.readTextFile(join(gw.dataDir, "server.log"));
      const refusals = log.split("\n").filter((l) =>
        l.includes("refused request") && l.includes('\\"http://evil.example\\"')
      );
      assert.ok(refusals.length > 0, "no warning logged for a refused Origin");
      assert.ok(!log.includes(token), "the server log holds the token");
    });

    await t.step("the gateway's own origins may upgrade", async () => {
      for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
        const response = await upgrade(`/ws?token=${token}`, { Origin: origin });
        assert.equal(response.status, 101, `Origin ${origin}`);
      }
    });

    await t.step(
      "a non-loopback Host is refused (DNS rebinding), loopback names are accepted",
      async () => {
        for (const badHost of [`evil.example:${port}`, "evil.example", `localhost:${port + 1}`]) {
          const plain = await rawHttp(
            port,
            getRequest("/namespaces", { Host: badHost, ...bearer }),
          );
          assert.equal(plain.status, 403, `Host ${badHost}`);
          const ws = await rawHttp(
            port,
            upgradeRequest(`/ws?token=${token}`, { Host: badHost }),
          );
          assert.equal(ws.status, 403, `WebSocket with Host ${badHost}`);
          const health = await rawHttp(port, getRequest("/health", { Host: badHost }));
          assert.equal(health.status, 403, `/health with Host ${badHost}`);
          const mcp = await rawHttp(port, getRequest("/mcp", { Host: badHost, ...bearer }));
          assert.equal(mcp.status, 403, `/mcp with Host ${badHost}`);
        }
        // Both bad, and good Host with bad Origin.
        const both = await rawHttp(
          port,
          getRequest("/namespaces", {
            Host: `evil.example:${port}`,
            Origin: "http://evil.example",
            ...bearer,
          }),
        );
        assert.equal(both.status, 403);
        for (const goodHost of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
          const response = await rawHttp(
            port,
            getRequest("/namespaces", { Host: goodHost, ...bearer }),
          );
          assert.equal(response.status, 200, `Host ${goodHost}`);
        }
      },
    );

    await t.step("the token file is mode 0600 in a private data dir", async () => {
      const info = await Deno.stat(join(gw.dataDir, "token"));
      assert.equal((info.mode ?? 0) & 0o777, 0o600);
      assert.equal(((await Deno.stat(gw.dataDir)).mode ?? 0) & 0o077, 0);
      assert.match(token, /^[0-9a-f]{64}$/);
    });
  });
});

Deno.test("gateway server refuses to start when the token file is readable by others", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    await Deno.mkdir(gw.dataDir, { recursive: true, mode: 0o700 });
    const file = join(gw.dataDir, "token");
    await Deno.writeTextFile(file, `${"ab".repeat(32)}\n`);
    const env = minimalEnv(gw.dataDir);
    for (const mode of [0o640, 0o604]) {
      await Deno.chmod(file, mode);
      const result = await boundedCli(["--root", gw.root, "server"], { env, cwd: gw.cwd });
      assert.equal(result.timedOut, false, `the server started with a token file of mode ${mode}`);
      assert.notEqual(result.code, 0);
      assert.ok(result.stderr.includes(file), result.stderr);
      assert.match(result.stderr, /readable by others.*chmod 600/);
    }
    await assert.rejects(Deno.stat(join(gw.dataDir, "server.json")), Deno.errors.NotFound);
  });
});

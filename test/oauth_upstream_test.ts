/**
 * OAuth for remote MCP servers, end to end against a real OAuth-protected MCP server built from
 * the SDK's auth router (test/fixtures/mcp/oauth_mcp_server.ts): `gateway auth login` with the
 * test playing the user at the authorization URL, tokens kept 0600 and nowhere else, refresh
 * when the access token expires, a revoked grant and a token for the wrong audience reported
 * with the server's own reason, status and logout.
 * @module
 */

import { readUntil } from "./support/read_until.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { GatewayHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { parseRun, withRunHarness } from "./support/run_test_support.ts";

const FIXTURE = new URL("./fixtures/mcp/oauth_mcp_server.ts", import.meta.url).pathname;
/** The tests' lock, which pins the fixture's express (the product's deno.lock leaves it out). */
const TEST_LOCK = new URL("./deno.lock", import.meta.url).pathname;

/** Starts the OAuth-protected server; resolves with its MCP URL, admin base and a stopper. */
async function startOAuthServer(env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--no-prompt", "--quiet", "--lock", TEST_LOCK, FIXTURE],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the OAuth fixture exited before it was ready");
    text += value;
  }
  const { url, base } = JSON.parse(text.split("\n")[0]!) as { url: string; base: string };
  return {
    url,
    base,
    stats: async () => (await (await fetch(`${base}admin/stats`)).json()) as Record<string, number>,
    revokeAll: async () =>
      void await (await fetch(`${base}admin/revoke-all`, { method: "POST" })).body
        ?.cancel(),
    stop: async () => {
      await reader.cancel().catch(() => undefined);
      try {
        child.kill("SIGTERM");
      } catch {
        // gone
      }
      await child.status;
    },
  };
}

/** Runs `gateway auth login NS` and plays the user: opens the URL it prints, follows the redirect. */
async function driveLogin(gw: GatewayHarness, namespace: string) {
  const child = gw.spawnCli(["auth", "login", namespace, "--no-browser", "--timeout", "60"]);
  const errReader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const seen = { text: "" };
  const authorizeUrl = (await readUntil(
    errReader,
    /(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)/,
    seen,
  ))[1]!;
  // The user approves: the authorization server redirects to the CLI's loopback listener.
  const approval = await fetch(authorizeUrl, { redirect: "manual" });
  await approval.body?.cancel();
  assert.equal(approval.status, 302);
  const landing = await fetch(approval.headers.get("location")!);
  assert.match(await landing.text(), /Logged in/);
  const rest = (async () => {
    for (;;) {
      const { value, done } = await errReader.read();
      if (done) return;
      seen.text += value;
    }
  })();
  const [status, stdout] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    rest,
  ]);
  return { code: status.code, stdout, stderr: seen.text };
}

async function namespaceRow(gw: GatewayHarness, name: string) {
  const { port, token } = await gw.server();
  const response = await fetch(`http://127.0.0.1:${port}/namespaces`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = await response.json() as {
    namespaces: { name: string; status: string; reason?: string }[];
  };
  return body.namespaces.find((n) => n.name === name);
}

Deno.test(
  "gateway auth logs in to an OAuth-protected MCP server, refreshes, and says why when refused",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async (t) => {
    const oauth = await startOAuthServer({ OAUTH_TOKEN_TTL_SECONDS: "3" });
    try {
      const files = {
        "gateway.json": JSON.stringify({
          port: 0,
          mcpServers: { secure: { url: oauth.url, transport: "streamable-http" } },
        }),
      };
      await withRunHarness({ files }, async (gw) => {
        await t.step(
          "before a login the namespace is unavailable and says what to run",
          async () => {
            const row = await pollUntil("secure to fail", async () => {
              const r = await namespaceRow(gw, "secure");
              return r?.status === "failed" ? r : undefined;
            });
            assert.match(row.reason ?? "", /needs a login.*run gateway auth login secure/);
            const run = parseRun(
              (await gw.cli(["exec", "--json", "--no-check", "await tools.secure.whoami()"]))
                .stdout,
            );
            assert.equal(run.error?.kind, "NamespaceUnavailable");
            assert.match(run.error?.message ?? "", /gateway auth login secure/);
          },
        );

        await t.step(
          "gateway auth login stores tokens 0600 and the server reconnects",
          async () => {
            const login = await driveLogin(gw, "secure");
            assert.equal(login.code, 0, login.stderr);
            assert.match(login.stdout, /Logged in to "secure" \(scopes: mcp:tools/);
            assert.match(login.stdout, /"secure" is ready/);
            const file = join(gw.dataDir, "oauth", "secure.json");
            assert.equal((Deno.statSync(file).mode ?? 0) & 0o777, 0o600);
            const run = parseRun(
              (await gw.cli(["exec", "--json", "--no-check", "await tools.secure.whoami()"]))
                .stdout,
            );
            assert.equal(run.ok, true, JSON.stringify(run.error));
            assert.match(String(run.result), /^client /);
            // The server speaks both eras; behind its login, the gateway settled on 2026-07-28.
            const eras = JSON.parse(
              await Deno.readTextFile(join(gw.dataDir, "mcp", "eras.json")),
            ) as Record<string, { era: string }>;
            assert.equal(eras.secure?.era, "modern");
          },
        );

        await t.step("an expired access token is refreshed without the user", async () => {
          const before = (await oauth.stats()).refreshes ?? 0;
          await pollUntil("the access token to expire", async () => {
            const status = await gw.cli(["auth", "status", "secure"]);
            return /expired; will refresh/.test(status.stdout) ? true : undefined;
          }, { timeoutMs: 15_000 });
          const run = parseRun(
            (await gw.cli(["exec", "--json", "--no-check", "await tools.secure.whoami()"])).stdout,
          );
          assert.equal(run.ok, true, JSON.stringify(run.error));
          assert.ok((await oauth.stats()).refreshes! > before, "no refresh happened");
        });

        await t.step("tokens appear nowhere but their file", async () => {
          const stored = JSON.parse(
            await Deno.readTextFile(join(gw.dataDir, "oauth", "secure.json")),
          ) as { tokens: { access_token: string; refresh_token: string } };
          const places = [
            await Deno.readTextFile(join(gw.dataDir, "server.log")).catch(() => ""),
            new TextDecoder().decode(await Deno.readFile(join(gw.dataDir, "gateway.db"))),
            (await gw.cli(["tools", "types", "secure"])).stdout,
            (await gw.cli(["auth", "status", "--json"])).stdout,
          ];
          for (const text of places) {
            assert.ok(!text.includes(stored.tokens.access_token));
            assert.ok(!text.includes(stored.tokens.refresh_token));
          }
        });

        await t.step(
          "a revoked grant fails the call with the authorization server's reason",
          async () => {
            await oauth.revokeAll();
            const run = parseRun(
              (await gw.cli(["exec", "--json", "--no-check", "await tools.secure.whoami()"]))
                .stdout,
            );
            assert.equal(run.error?.kind, "NamespaceUnavailable", JSON.stringify(run));
            assert.match(
              run.error?.message ?? "",
              /needs a login \(the authorization server refused: invalid_grant: refresh token revoked or unknown\): run gateway auth login secure/,
            );
          },
        );

        await t.step("logout forgets the tokens and status says so", async () => {
          const login = await driveLogin(gw, "secure");
          assert.equal(login.code, 0, login.stderr);
          assert.match((await gw.cli(["auth", "status", "secure"])).stdout, /secure: logged in/);
          const out = await gw.cli(["auth", "logout", "secure"]);
          assert.equal(out.code, 0, out.stderr);
          assert.match(out.stdout, /Logged out of "secure"/);
          assert.match(
            (await gw.cli(["auth", "status", "secure"])).stdout,
            /secure: not logged in/,
          );
          assert.match((await namespaceRow(gw, "secure"))?.reason ?? "", /needs a login/);
        });

        await t.step("a bad namespace is a usage error naming the remote servers", async () => {
          const out = await gw.cli(["auth", "login", "nope"]);
          assert.equal(out.code, 2);
          assert.match(out.stderr, /"nope" is not a remote MCP server.*remote servers: secure/);
        });
      });
    } finally {
      await oauth.stop();
    }
  },
);

Deno.test("a token issued for another audience is refused with the resource server's reason", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const oauth = await startOAuthServer({ OAUTH_EXPECTED_AUDIENCE: "http://other.invalid/mcp" });
  try {
    const files = {
      "gateway.json": JSON.stringify({
        port: 0,
        mcpServers: { aud: { url: oauth.url, transport: "streamable-http" } },
      }),
    };
    await withRunHarness({ files }, async (gw) => {
      await gw.server();
      const login = await driveLogin(gw, "aud");
      assert.equal(login.code, 0, login.stderr);
      const row = await pollUntil("aud to report the refusal", async () => {
        const r = await namespaceRow(gw, "aud");
        return r?.status === "failed" && /not issued for this resource/.test(r.reason ?? "")
          ? r
          : undefined;
      });
      assert.match(row.reason ?? "", /the MCP server refused the token: invalid_token/);
    });
  } finally {
    await oauth.stop();
  }
});

Deno.test(
  "a hand-registered client logs in without registration, and a call needing a wider scope steps up",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const redirectPort = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const oauth = await startOAuthServer({
      OAUTH_STATIC_CLIENT: `static-client|s3cret-value|http://127.0.0.1:${redirectPort}/callback`,
      OAUTH_NO_REGISTRATION: "1",
    });
    try {
      const files = {
        "gateway.json": JSON.stringify({
          port: 0,
          mcpServers: {
            hand: {
              url: oauth.url,
              transport: "streamable-http",
              oauth: {
                clientId: "static-client",
                clientSecret: "s3cret-value",
                scopes: ["mcp:tools"],
                redirectPort,
              },
            },
          },
        }),
      };
      await withRunHarness({ files }, async (gw) => {
        await gw.server();
        const login = await driveLogin(gw, "hand");
        assert.equal(login.code, 0, login.stderr);
        assert.match(login.stdout, /scopes: mcp:tools\)/);
        assert.equal((await oauth.stats()).registrations, 0);
        const ok = parseRun(
          (await gw.cli(["exec", "--json", "--no-check", "await tools.hand.whoami()"])).stdout,
        );
        assert.equal(ok.result, "client static-client", JSON.stringify(ok));

        const refused = parseRun(
          (await gw.cli(["exec", "--json", "--no-check", "await tools.hand.admin_report()"]))
            .stdout,
        );
        assert.equal(refused.error?.kind, "ToolError", JSON.stringify(refused));
        assert.match(
          refused.error?.message ?? "",
          /needs the OAuth scope "mcp:tools mcp:admin".*run gateway auth login hand/,
        );
        // The namespace itself still works for what the grant covers.
        assert.equal((await namespaceRow(gw, "hand"))?.status, "ready");

        const wider = await driveLogin(gw, "hand");
        assert.equal(wider.code, 0, wider.stderr);
        assert.match(wider.stdout, /scopes: mcp:tools mcp:admin/);
        const done = parseRun(
          (await gw.cli(["exec", "--json", "--no-check", "await tools.hand.admin_report()"]))
            .stdout,
        );
        assert.equal(done.result, "admin report", JSON.stringify(done));
      });
    } finally {
      await oauth.stop();
    }
  },
);

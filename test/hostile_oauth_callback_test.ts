/**
 * `gateway auth login` waits for the authorization server's redirect on a loopback port, which
 * every local process can reach. Written as the attackers' moves: another local user (uid 65534)
 * sends that port a refusal of its own to cancel the login and put escape sequences on the
 * user's terminal; and an authorization server answers with an `error_description` full of
 * them. Only the redirect carrying this login's `state` may end it, and what it says is printed
 * with its control characters escaped.
 * @module
 */

import assert from "node:assert/strict";
import type { GatewayHarness } from "./support/gateway_harness.ts";
import { withHarness } from "./support/gateway_harness.ts";
import { canActAsOtherUser, otherUserDir, runAsOtherUser } from "./support/other_user.ts";
import { readUntil } from "./support/read_until.ts";

const FIXTURE = new URL("./fixtures/mcp/oauth_mcp_server.ts", import.meta.url).pathname;
/** The tests' lock, which pins the fixture's express (the product's deno.lock leaves it out). */
const TEST_LOCK = new URL("./deno.lock", import.meta.url).pathname;

/** Escape sequences that would erase the line above and print a fake success over it. */
const FORGED = '\u001b[1A\u001b[2K\rLogged in to "secure"\u001b]0;pwned\u0007';

/** Starts the OAuth-protected MCP server fixture; its MCP URL and a stopper. */
async function startOAuthServer() {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--no-prompt", "--quiet", "--lock", TEST_LOCK, FIXTURE],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const seen = { text: "" };
  const url = JSON.parse((await readUntil(reader, /^(.*)\n/, seen))[1]!).url as string;
  return {
    url,
    stop: async () => {
      await reader.cancel().catch(() => undefined);
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Starts `gateway auth login secure` and reads the authorization URL it prints. */
async function startLogin(gw: GatewayHarness) {
  const child = gw.spawnCli(["auth", "login", "secure", "--no-browser", "--timeout", "60"]);
  const errReader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const seen = { text: "" };
  const authorize = new URL(
    (await readUntil(errReader, /(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)/, seen))[1]!,
  );
  const redirect = new URL(authorize.searchParams.get("redirect_uri")!);
  return {
    authorize,
    redirect,
    state: authorize.searchParams.get("state")!,
    /** Waits for the login to end: its exit code and everything it printed. */
    async end() {
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
    },
  };
}

/** The files of a root whose `secure` namespace is the OAuth fixture at `url`. */
function rootFor(url: string) {
  return {
    "gateway.json": JSON.stringify({
      port: 0,
      mcpServers: { secure: { url, transport: "streamable-http" } },
    }),
  };
}

Deno.test({
  name:
    "another local user's forged redirect to the login's loopback port neither ends the login nor reaches the terminal",
  ignore: !canActAsOtherUser(),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const oauth = await startOAuthServer();
  const home = await otherUserDir();
  try {
    await withHarness({ files: rootFor(oauth.url) }, async (gw) => {
      const login = await startLogin(gw);
      // The attacker's move: answer the callback first, without this login's state (it cannot
      // know it), and with a wrong one.
      const attacker = await runAsOtherUser(
        home,
        `const base = ${JSON.stringify(login.redirect.href)};
const forged = ${JSON.stringify(FORGED)};
const statuses = [];
for (const state of [null, "guessed"]) {
  const url = new URL(base);
  url.searchParams.set("error", "access_denied");
  url.searchParams.set("error_description", forged);
  if (state !== null) url.searchParams.set("state", state);
  const response = await fetch(url);
  await response.body?.cancel();
  statuses.push(response.status);
}
console.log(JSON.stringify({ statuses }));`,
      );
      assert.deepEqual(await attacker.next(), { statuses: [400, 400] });
      // The user then approves, and the login ends with the real redirect.
      const approval = await fetch(login.authorize, { redirect: "manual" });
      await approval.body?.cancel();
      assert.equal(approval.status, 302);
      const landing = await fetch(approval.headers.get("location")!);
      assert.match(await landing.text(), /Logged in/);
      const ended = await login.end();
      assert.equal(ended.code, 0, ended.stderr);
      assert.match(ended.stdout, /^Logged in to "secure"/);
      assert.doesNotMatch(ended.stdout + ended.stderr, /pwned|(?!\n)\p{Cc}/u);
    });
  } finally {
    await oauth.stop();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name: "an authorization server's error_description is printed with its escape sequences escaped",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const oauth = await startOAuthServer();
  try {
    await withHarness({ files: rootFor(oauth.url) }, async (gw) => {
      const login = await startLogin(gw);
      // The authorization server's move: send the browser back with this login's state and a
      // refusal that would rewrite the terminal.
      const refusal = new URL(login.redirect);
      refusal.searchParams.set("state", login.state);
      refusal.searchParams.set("error", "access_denied\u001b[31m");
      refusal.searchParams.set("error_description", FORGED);
      const answer = await fetch(refusal);
      assert.equal(answer.status, 200);
      assert.doesNotMatch(await answer.text(), /\p{Cc}/u);
      const ended = await login.end();
      assert.equal(ended.code, 1);
      assert.doesNotMatch(ended.stdout + ended.stderr, /(?!\n)\p{Cc}/u);
      assert.match(
        ended.stderr,
        /error\[LoginRefused\]: the authorization server refused the login of "secure": access_denied\\u\{1b\}\[31m: \\u\{1b\}\[1A\\u\{1b\}\[2K\\u\{d\}Logged in to "secure"\\u\{1b\}\]0;pwned\\u\{7\}\n/,
      );
    });
  } finally {
    await oauth.stop();
  }
});

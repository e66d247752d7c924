import assert from "node:assert/strict";
import { CODE_TTL_MS, DashboardSessions, SESSION_TTL_MS } from "./dashboard_sessions.ts";

Deno.test("DashboardSessions: a sign-in code opens one session, once, within its minute", () => {
  let now = 1_000_000;
  const sessions = new DashboardSessions({ now: () => now });
  const { code, expiresInMs } = sessions.issueCode();
  assert.equal(expiresInMs, CODE_TTL_MS);
  assert.match(code, /^[0-9a-f]{64}$/);
  const session = sessions.exchange(code);
  assert.ok(session !== null && sessions.isSession(session));
  assert.equal(sessions.exchange(code), null, "a code works once");
  const late = sessions.issueCode().code;
  now += CODE_TTL_MS;
  assert.equal(sessions.exchange(late), null, "a code is over after its minute");
  assert.equal(sessions.exchange("not-a-code"), null);
  now += SESSION_TTL_MS;
  assert.equal(sessions.isSession(session), false, "a session ends");
});

Deno.test("DashboardSessions: the cookie is HttpOnly, SameSite=Strict, named for the port, and read back", () => {
  const sessions = new DashboardSessions();
  const session = sessions.open();
  const cookie = sessions.cookie(session, 4242);
  assert.match(cookie, /^gateway_session_4242=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\//);
  const request = new Request("http://127.0.0.1:4242/ui", {
    headers: { cookie: `other=1; gateway_session_9=x; ${cookie.split(";")[0]}` },
  });
  assert.equal(sessions.sessionOf(request, 4242), session);
  assert.equal(sessions.sessionOf(request, 9), "x");
  assert.equal(sessions.sessionOf(new Request("http://x/"), 4242), null);
});

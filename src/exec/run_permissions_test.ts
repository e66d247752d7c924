import assert from "node:assert/strict";
import { decidePermissions } from "./run_permissions.ts";

Deno.test("decidePermissions() resolves a relative request against the caller's cwd", () => {
  const decision = decidePermissions({ read: ["data.txt"] }, {
    defaults: {},
    ceiling: { read: ["/work/project"] },
    cwd: "/work/project/sub",
    configDir: "/root",
  });
  assert.deepEqual(decision, { ok: true, permissions: { read: ["/work/project/sub/data.txt"] } });
});

Deno.test("decidePermissions() refuses a request whose path leaves the ceiling", () => {
  const decision = decidePermissions({ read: ["../../etc"] }, {
    defaults: {},
    ceiling: { read: ["/work/project"] },
    cwd: "/work/project/sub",
  });
  assert.equal(decision.ok, false);
  assert.match(
    decision.ok ? "" : decision.message,
    /^Refused before start: read "\/work\/etc" is beyond exec\.maxPermissions\.read\./,
  );
});

Deno.test("decidePermissions() reads relative ceiling paths against the root, not the caller's cwd", () => {
  const options = { defaults: {}, ceiling: { read: ["./data"] }, configDir: "/srv/root" };
  const inside = decidePermissions({ read: ["/srv/root/data/a.txt"] }, { ...options, cwd: "/" });
  assert.equal(inside.ok, true);
  // Were "./data" read against the caller's cwd, this caller could pick "/" and read /data.
  const chosen = decidePermissions({ read: ["/data/a.txt"] }, { ...options, cwd: "/" });
  assert.equal(chosen.ok, false);
});

Deno.test("decidePermissions() grants nothing for relative config paths when no root is known", () => {
  const decision = decidePermissions({ read: ["x"] }, {
    defaults: { write: ["./out"] },
    ceiling: { read: ["."] },
    cwd: "/home/user",
  });
  assert.equal(decision.ok, false);
  const none = decidePermissions(undefined, {
    defaults: { write: ["./out", "/tmp/out"] },
    ceiling: {},
    cwd: "/home/user",
  });
  assert.deepEqual(none, { ok: true, permissions: { write: ["/tmp/out"] } });
});

Deno.test("decidePermissions() always allows the config's own default grant", () => {
  const decision = decidePermissions({ env: ["HOME"] }, {
    defaults: { env: ["HOME"], net: ["api.example.com"] },
    ceiling: {},
    cwd: "/",
  });
  assert.deepEqual(decision, {
    ok: true,
    permissions: { env: ["HOME"], net: ["api.example.com"] },
  });
});

Deno.test("decidePermissions() refuses unrestricted grants under a listed ceiling", () => {
  const decision = decidePermissions({ net: true, run: ["sh"] }, {
    defaults: {},
    ceiling: { net: ["example.com"], run: ["git"] },
    cwd: "/",
  });
  assert.equal(decision.ok, false);
  const message = decision.ok ? "" : decision.message;
  assert.match(message, /net \(unrestricted\) is beyond exec\.maxPermissions\.net/);
  assert.match(message, /run "sh" is beyond exec\.maxPermissions\.run/);
});

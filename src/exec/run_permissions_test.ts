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

Deno.test("decidePermissions() folds `..` before the ceiling check, so A/../DATA is refused", () => {
  const decision = decidePermissions({ read: ["/srv/a/../data"] }, {
    defaults: {},
    ceiling: { read: ["/srv/a"] },
    cwd: "/",
  });
  assert.equal(decision.ok, false);
  assert.match(decision.ok ? "" : decision.message, /read "\/srv\/data" is beyond/);
});

Deno.test("decidePermissions() refuses a value holding a separator in every kind", () => {
  const ceiling = {
    read: ["/a"],
    write: ["/a"],
    net: ["example.com:443"],
    env: ["HOME"],
    run: ["git"],
    sys: ["hostname"],
    ffi: ["/a"],
  };
  const attacks = [
    { read: ["/a/x,/"] },
    { write: ["/a/x,/elsewhere"] },
    { net: ["example.com:443,127.0.0.1"] },
    { env: ["HOME,PATH"] },
    { run: ["git,sh"] },
    { sys: ["hostname,osRelease"] },
    { ffi: ["/a/x,/lib"] },
    { read: ["/a/x\0/etc"] },
  ];
  for (const attack of attacks) {
    const decision = decidePermissions(attack, { defaults: {}, ceiling, cwd: "/" });
    assert.equal(decision.ok, false, JSON.stringify(attack));
    assert.match(decision.ok ? "" : decision.message, /separator/, JSON.stringify(attack));
  }
});

Deno.test("decidePermissions() compares paths by segment: /a does not cover /ab", () => {
  const decision = decidePermissions({ read: ["/srv/ab"] }, {
    defaults: {},
    ceiling: { read: ["/srv/a"] },
    cwd: "/",
  });
  assert.equal(decision.ok, false);
});

Deno.test("decidePermissions() resolves symlinks: a link inside the ceiling to outside is refused", async () => {
  const base = await Deno.makeTempDir({ prefix: "gateway-perm-" });
  try {
    await Deno.mkdir(`${base}/allowed`);
    await Deno.mkdir(`${base}/secret`);
    await Deno.symlink(`${base}/secret`, `${base}/allowed/link`);
    const real = await Deno.realPath(base);
    const decision = decidePermissions({ read: [`${base}/allowed/link/file`] }, {
      defaults: {},
      ceiling: { read: [`${base}/allowed`] },
      cwd: "/",
    });
    assert.equal(decision.ok, false);
    assert.match(decision.ok ? "" : decision.message, new RegExp(`${real}/secret/file`));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("decidePermissions() never grants the data dir, even under an unrestricted ceiling", async () => {
  const base = await Deno.makeTempDir({ prefix: "gateway-perm-" });
  try {
    await Deno.mkdir(`${base}/data`);
    await Deno.symlink(`${base}/data`, `${base}/innocent`);
    const options = {
      defaults: {},
      ceiling: { read: true, write: true },
      cwd: base,
      protectedPaths: [`${base}/data`],
    };
    for (const path of ["data/token", "innocent", "innocent/gateway.db", `${base}/data`]) {
      const decision = decidePermissions({ read: [path] }, options);
      assert.equal(decision.ok, false, path);
      assert.match(decision.ok ? "" : decision.message, /data dir/);
    }
    assert.equal(decidePermissions({ read: [base] }, options).ok, true);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("decidePermissions() refuses malformed hosts and variable names", () => {
  const ceiling = { net: true, env: true } as const;
  for (const attack of [{ net: ["exa mple.com"] }, { net: ["a/b"] }, { env: ["A=B"] }]) {
    assert.equal(decidePermissions(attack, { defaults: {}, ceiling, cwd: "/" }).ok, false);
  }
  const ok = decidePermissions({ net: ["API.example.com:8443", "[::1]:80"], env: ["GW_*"] }, {
    defaults: {},
    ceiling,
    cwd: "/",
  });
  assert.deepEqual(ok, {
    ok: true,
    permissions: { net: ["api.example.com:8443", "[::1]:80"], env: ["GW_*"] },
  });
});

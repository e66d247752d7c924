import assert from "node:assert/strict";
import {
  OsSandbox,
  type OsSandboxSetting,
  type OsSandboxTools,
  OsSandboxUnavailable,
  unwrapNamespacedStatus,
} from "./os_sandbox.ts";
import type { SandboxView } from "./sandbox_view.ts";

const VIEW: SandboxView = {
  read: [],
  write: [],
  hidden: [],
  private: [],
  masked: [],
  own: [],
  ownWritable: [],
  scratch: [],
  net: true,
  cwd: "/",
};

const WITH_BWRAP: OsSandboxTools = {
  sandbox: { kind: "bwrap", path: "/usr/bin/bwrap" },
  setpriv: "/usr/bin/setpriv",
};
const WITHOUT: OsSandboxTools = {
  sandbox: { kind: null, why: "bubblewrap (bwrap) is not installed" },
  setpriv: "/usr/bin/setpriv",
};

function sandbox(tools: OsSandboxTools, setting: OsSandboxSetting, log: string[] = []) {
  return new OsSandbox(tools, { setting: () => setting, log: (m) => log.push(m) });
}

Deno.test("OsSandbox.command() starts the program in bwrap, or through setpriv's parent-death signal when off", () => {
  const inside = sandbox(WITH_BWRAP, "auto").command(["deno", "run", "x.ts"], VIEW);
  assert.equal(inside.namespaced, true);
  assert.equal(inside.argv[0], "/usr/bin/bwrap");
  assert.deepEqual(inside.argv.slice(-4), ["--", "deno", "run", "x.ts"]);
  const off = sandbox(WITH_BWRAP, "off").command(["deno", "run", "x.ts"], VIEW);
  assert.deepEqual(off, {
    argv: ["/usr/bin/setpriv", "--pdeathsig", "KILL", "deno", "run", "x.ts"],
    namespaced: false,
  });
});

Deno.test('OsSandbox with "required" and no sandbox refuses, naming the key and how to install bubblewrap', () => {
  const required = sandbox(WITHOUT, "required");
  assert.throws(() => required.check(), OsSandboxUnavailable);
  assert.throws(
    () => required.command(["deno"], VIEW),
    (error: Error) =>
      /exec\.osSandbox is "required"/.test(error.message) &&
      /bwrap\) is not installed/.test(error.message) &&
      (Deno.build.os !== "linux" || /apt-get install bubblewrap/.test(error.message)) &&
      /"osSandbox": "auto"/.test(error.message),
  );
});

Deno.test('OsSandbox with "auto" and no sandbox says so once and runs under the parent-death guard', () => {
  const log: string[] = [];
  const auto = sandbox(WITHOUT, "auto", log);
  assert.equal(auto.active, false);
  auto.check();
  const first = auto.command(["deno"], VIEW);
  auto.command(["deno"], VIEW);
  assert.equal(log.length, 1);
  assert.match(
    log[0]!,
    /no operating-system sandbox here \(bubblewrap \(bwrap\) is not installed\)/,
  );
  assert.deepEqual(first.argv, ["/usr/bin/setpriv", "--pdeathsig", "KILL", "deno"]);
});

Deno.test("unwrapNamespacedStatus() reads bwrap's 128 + N as the program's signal N", () => {
  assert.deepEqual(unwrapNamespacedStatus({ success: false, code: 137, signal: null }), {
    success: false,
    code: 137,
    signal: "SIGKILL",
  });
  assert.deepEqual(
    unwrapNamespacedStatus({ success: false, code: 133, signal: null }).signal,
    "SIGTRAP",
  );
  const plain = { success: false, code: 1, signal: null };
  assert.equal(unwrapNamespacedStatus(plain), plain);
  const killed = { success: false, code: 143, signal: "SIGTERM" as const };
  assert.equal(unwrapNamespacedStatus(killed), killed);
});

/**
 * A slow first run is never silent on a terminal: while a typed run waits for the type checker's
 * first start, the CLI shows "starting the type checker…" on stderr and clears it once the wait
 * is over; a warm checker shows nothing, and neither does a stderr that is not a terminal. The
 * terminal is a real pty (`script` from util-linux).
 */

import assert from "node:assert/strict";
import { CLI_RUN_ARGS, type GatewayHarness, withHarness } from "./support/gateway_harness.ts";

const WAIT_LINE = "starting the type checker…";
const CLEAR_LINE = "\r\x1b[2K";

/** `'…'` for a POSIX shell. */
function quoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs `gateway --root ROOT ARGS` under a pty, with stdout sent to `stdoutFile` when given
 * (stderr stays on the terminal); answers what the terminal showed.
 */
async function onTerminal(
  gw: GatewayHarness,
  args: string[],
  stdoutFile?: string,
): Promise<{ code: number; terminal: string }> {
  const command = [Deno.execPath(), ...CLI_RUN_ARGS, "--root", gw.root, ...args].map(quoted)
    .join(" ") + (stdoutFile === undefined ? "" : ` > ${quoted(stdoutFile)}`);
  const out = await new Deno.Command("script", {
    args: ["--quiet", "--return", "--command", command, "/dev/null"],
    cwd: gw.cwd,
    clearEnv: true,
    env: {
      GATEWAY_DATA_DIR: gw.dataDir,
      GATEWAY_PORT: "0",
      NO_COLOR: "1",
      HOME: Deno.env.get("HOME") ?? gw.cwd,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TERM: "xterm",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, terminal: new TextDecoder().decode(out.stdout) };
}

Deno.test({
  name: "the first typed run after a start shows one cleared line while the type checker starts",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withHarness({ files: {} }, async (gw) => {
      // A fresh data dir and no server: the run starts one, and the checker's first start
      // (Deno's declarations generated, TypeScript's program built) is the run's wait.
      const first = await onTerminal(gw, ["exec", "1 + 1"]);
      assert.equal(first.code, 0, first.terminal);
      const shown = first.terminal.indexOf(WAIT_LINE);
      assert.ok(shown >= 0, `the wait line was shown: ${JSON.stringify(first.terminal)}`);
      const cleared = first.terminal.indexOf(CLEAR_LINE, shown);
      assert.ok(cleared > shown, "and cleared after it");
      assert.ok(
        first.terminal.slice(cleared).startsWith(`${CLEAR_LINE}2\r\n`),
        "before the answer",
      );

      // Warm now: a new snippet shows nothing.
      const warm = await onTerminal(gw, ["exec", "2 + 2"]);
      assert.equal(warm.code, 0);
      assert.ok(!warm.terminal.includes(WAIT_LINE), JSON.stringify(warm.terminal));
      assert.match(warm.terminal, /4\r?\n/);
    }),
});

Deno.test({
  name:
    "the wait line goes to a terminal on stderr only: piped stdout keeps it, piped stderr drops it",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withHarness({ files: {} }, async (gw) => {
      const answer = `${gw.cwd}/answer.txt`;
      const started = await gw.cli(["start"]);
      assert.equal(started.code, 0, started.stderr);
      // stdout piped, stderr a terminal (the installed command's fast path, to a running server
      // whose checker has not warmed up): the line on the terminal, only the answer piped.
      const piped = await onTerminal(gw, ["exec", "1 + 1"], answer);
      assert.equal(piped.code, 0, piped.terminal);
      assert.ok(piped.terminal.includes(WAIT_LINE), JSON.stringify(piped.terminal));
      assert.ok(piped.terminal.includes(CLEAR_LINE));
      assert.equal(await Deno.readTextFile(answer), "2\n");

      // Neither stream a terminal: the same cold wait says nothing anywhere.
      const stopped = await gw.cli(["stop"]);
      assert.equal(stopped.code, 0, stopped.stderr);
      const restarted = await gw.cli(["start"]);
      assert.equal(restarted.code, 0, restarted.stderr);
      const plain = await gw.cli(["exec", "3 + 3"]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(plain.stdout, "6\n");
      assert.equal(plain.stderr, "");
    }),
});

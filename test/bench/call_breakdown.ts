/**
 * The floors of a local tool call (one hop should cost what a unix-socket round
 * trip costs): a JSON line over a unix socket and back between this process and a child Deno
 * process, the way the runner talks to the gateway; and the same line relayed through a middle
 * process that does nothing but parse and re-frame it, the shape of a local call (runner →
 * gateway → tool host and back) with none of the gateway's work.
 * @module
 */

import { pollUntil } from "../support/poll_until.ts";
import { forEachJsonLine } from "./json_lines.ts";

/**
 * The child side of the round trip: sends `count` JSON lines after `warm` more, awaits each
 * answer, prints the median of the timed ones.
 */
const ROUND_TRIP_CLIENT = `
const [path, count, warm = "0"] = Deno.args;
const conn = await Deno.connect({ transport: "unix", path });
const enc = new TextEncoder(), dec = new TextDecoder();
const buf = new Uint8Array(65536);
const times = [];
for (let i = -Number(warm); i < Number(count); i++) {
  const t = performance.now();
  await conn.write(enc.encode(JSON.stringify({ t: "call", id: i, namespace: "echo", tool: "echo", args: { v: i } }) + "\\n"));
  let text = "";
  while (!text.endsWith("\\n")) { const n = await conn.read(buf); if (n === null) throw new Error("closed"); text += dec.decode(buf.subarray(0, n)); }
  JSON.parse(text);
  if (i >= 0) times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)]);
conn.close();
`;

/**
 * The middle of a relayed round trip: listens at its first argument, connects to its second,
 * and passes each line on after parsing it and framing it anew (both ways).
 */
const RELAY = `
import { forEachJsonLine } from ${JSON.stringify(new URL("./json_lines.ts", import.meta.url).href)};
import { cpuMs } from ${JSON.stringify(new URL("./bench_support.ts", import.meta.url).href)};
const [listenPath, onwardPath] = Deno.args;
const enc = new TextEncoder();
let cpuAtFirst;
let lines = 0;
const listener = Deno.listen({ transport: "unix", path: listenPath });
const onward = await Deno.connect({ transport: "unix", path: onwardPath });
const caller = await listener.accept();
listener.close();
async function relay(from, to, frame) {
  await forEachJsonLine(from, async (message) => {
    cpuAtFirst ??= cpuMs();
    lines++;
    await to.write(enc.encode(JSON.stringify(frame(message)) + "\\n"));
  });
  to.close();
}
await Promise.race([
  relay(caller, onward, (m) => ({ type: "call", id: m.id, tool: m.tool, args: m.args })),
  relay(onward, caller, (m) => ({ t: "reply", id: m.id, ok: true, value: m.value })),
]);
// Its CPU per call (two lines), in µs: the middle process of the floor, against the gateway's.
console.log(((cpuMs() - cpuAtFirst) / (lines / 2)) * 1000);
`;

/** Median round trip of a JSON line over a unix socket between this process and a child. */
export function unixRoundTripMs(count: number): Promise<number> {
  return roundTripMs(count, { relayed: false });
}

/**
 * Median round trip of a JSON line from a child to this process, which answers each line with
 * what `answer` resolves to, after `warm` untimed lines. With `answer` calling an MCP server
 * over stdio it is the shape of a script's MCP call (runner → gateway → upstream and back) with
 * none of the gateway's code: the floor of that row.
 */
export function answeredRoundTripMs(
  count: number,
  warm: number,
  answer: () => Promise<unknown>,
): Promise<number> {
  return roundTripMs(count, { relayed: false, answer, warm });
}

/**
 * Median round trip of a JSON line from a child through a second child that relays it to this
 * process and back: three processes and four socket writes per call, like a local tool call;
 * with the relay's CPU per call (µs, /proc: Linux only, NaN elsewhere).
 */
export async function relayedRoundTripMs(
  count: number,
): Promise<{ ms: number; relayCpuUsPerCall: number }> {
  let relayCpuUsPerCall = NaN;
  const ms = await roundTripMs(count, {
    relayed: true,
    onRelayOutput: (text) => (relayCpuUsPerCall = Number(text.trim())),
  });
  return { ms, relayCpuUsPerCall };
}

async function roundTripMs(
  count: number,
  options: {
    relayed: boolean;
    answer?: () => Promise<unknown>;
    warm?: number;
    /** What the relay printed (its CPU per call), once it has ended. */
    onRelayOutput?: (text: string) => void;
  },
): Promise<number> {
  const { answer } = options;
  const dir = await Deno.makeTempDir({ prefix: "gateway-bench-uds-" });
  const path = `${dir}/s.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const serve = (async () => {
    const conn = await listener.accept();
    const enc = new TextEncoder();
    // Closed however the loop ends: an answer that fails ends the child's wait too.
    try {
      await forEachJsonLine(conn, async (message) => {
        const { id, args } = message as { id: number; args: unknown };
        const value = answer === undefined ? args : await answer();
        await conn.write(enc.encode(JSON.stringify({ t: "reply", id, ok: true, value }) + "\n"));
      });
    } finally {
      conn.close();
    }
  })();
  // Awaited below, once the child is done; handled now, so a failed answer is not reported as an
  // unhandled rejection before then.
  serve.catch(() => {});
  let relay: Deno.ChildProcess | undefined;
  try {
    let target = path;
    if (options.relayed) {
      target = `${dir}/relay.sock`;
      relay = new Deno.Command(Deno.execPath(), {
        args: ["eval", "--no-config", RELAY, target, path],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      await waitForSocket(target, relay);
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--no-config",
        ROUND_TRIP_CLIENT,
        target,
        String(count),
        String(options.warm ?? 0),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      const said = new TextDecoder().decode(out.stderr).trim().slice(0, 500);
      throw new Error(`the round-trip client failed (exit ${out.code}): ${said}`);
    }
    return Number(new TextDecoder().decode(out.stdout).trim());
  } finally {
    if (relay !== undefined) {
      const printed = await relay.output();
      options.onRelayOutput?.(new TextDecoder().decode(printed.stdout));
    }
    await serve;
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Resolves once the relay listens at `path`; fails at once if it exits first. */
async function waitForSocket(path: string, child: Deno.ChildProcess): Promise<void> {
  let exited = false;
  child.status.then(() => (exited = true));
  await pollUntil("the relay process to listen", () => {
    if (exited) throw new Error("the relay process exited before it listened");
    return Deno.lstatSync(path).isSocket;
  }, { timeoutMs: 10_000 });
}

/**
 * The floor of a local tool call (issue 12 item 3: one hop should cost what a unix-socket round
 * trip costs): a JSON line over a unix socket and back between this process and a child Deno
 * process, the way the runner talks to the gateway.
 * @module
 */

/** The child side of the round trip: sends `n` JSON lines, awaits each echo, prints the median. */
const ROUND_TRIP_CLIENT = `
const [path, count] = Deno.args;
const conn = await Deno.connect({ transport: "unix", path });
const enc = new TextEncoder(), dec = new TextDecoder();
const buf = new Uint8Array(65536);
const times = [];
for (let i = 0; i < Number(count); i++) {
  const t = performance.now();
  await conn.write(enc.encode(JSON.stringify({ t: "call", id: i, namespace: "echo", tool: "echo", args: { v: i } }) + "\\n"));
  let text = "";
  while (!text.endsWith("\\n")) { const n = await conn.read(buf); if (n === null) throw new Error("closed"); text += dec.decode(buf.subarray(0, n)); }
  JSON.parse(text);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)]);
conn.close();
`;

/** Median round trip of a JSON line over a unix socket between this process and a child. */
export async function unixRoundTripMs(count: number): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-bench-uds-" });
  const path = `${dir}/s.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const serve = (async () => {
    const conn = await listener.accept();
    const buf = new Uint8Array(65536);
    const dec = new TextDecoder();
    const enc = new TextEncoder();
    let pending = "";
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      pending += dec.decode(buf.subarray(0, n), { stream: true });
      let at = pending.indexOf("\n");
      while (at >= 0) {
        const message = JSON.parse(pending.slice(0, at)) as { id: number; args: unknown };
        pending = pending.slice(at + 1);
        await conn.write(
          enc.encode(
            JSON.stringify({ t: "reply", id: message.id, ok: true, value: message.args }) + "\n",
          ),
        );
        at = pending.indexOf("\n");
      }
    }
    conn.close();
  })();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", ROUND_TRIP_CLIENT, path, String(count)],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    return Number(new TextDecoder().decode(out.stdout).trim());
  } finally {
    await serve;
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
}

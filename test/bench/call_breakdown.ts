/**
 * Where a sequential local tool call's time goes (issue 12 item 1): script → channel → call
 * broker → policy → namespace → tool host → back, taken apart by difference — a bare unix-socket
 * round trip between two Deno processes (what one hop costs), a call the policy denies (script,
 * channel, broker, policy and back, no namespace), the full call of a tool that returns its
 * argument — and the server-side span of the call when the gateway exports telemetry.
 * @module
 */

import type { GatewayClient } from "../../src/client/gateway_client.ts";
import type { RunDocument } from "../../src/protocol/run_document.ts";

/** The per-call medians, in ms. */
export interface CallBreakdown {
  unixRoundTrip: number;
  denied: number;
  full: number;
}

/** The child side of the unix round trip: sends `n` JSON lines, awaits each echo, prints the median. */
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

async function perCall(client: GatewayClient, source: string): Promise<number> {
  const doc = await client.request<RunDocument>("exec", { source, check: false });
  if (!doc.ok) throw new Error(`bench run failed: ${JSON.stringify(doc.error)}`);
  return Number(doc.result);
}

/**
 * Measures a root with tool module `echo` exporting `echo` (returns its argument) and
 * `blocked` (denied by a policy rule `echo.blocked`).
 */
export async function measureCallBreakdown(
  client: GatewayClient,
  calls: number,
): Promise<CallBreakdown> {
  const loop = (body: string) =>
    `const times: number[] = [];
for (let i = 0; i < ${calls}; i++) { const t = performance.now(); ${body} times.push(performance.now() - t); }
times.sort((a, b) => a - b); times[Math.floor(times.length / 2)]`;
  const denied = await perCall(
    client,
    loop("try { await tools.echo.blocked({ v: i }); } catch { /* denied by policy */ }"),
  );
  const full = await perCall(client, loop("await tools.echo.echo({ v: i });"));
  return { unixRoundTrip: await unixRoundTripMs(calls), denied, full };
}

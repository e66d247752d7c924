/**
 * Where a trivial exec's time goes: client → server, prepare + check +
 * spawn/handoff, the script body, report → history write, the history write, the answer back.
 * The server runs with telemetry on (`OTEL_DENO`, exported as OTLP/JSON to a receiver here):
 * its `gateway.run`, `gateway.typecheck`, `gateway.history_write` and `gateway.tool_call` spans
 * give the server's steps; the script stamps its first and last line with the wall clock, and
 * the client its send and receive. A script timing 500 local calls against their
 * `gateway.tool_call` spans splits a call into the script/channel part and the server part. Telemetry costs a little, so these runs are not the ones the
 * headline rows time.
 * @module
 */

import { createHarness, type RootFiles } from "../support/gateway_harness.ts";
import type { RunDocument } from "../../src/protocol/run_document.ts";
import { median } from "./bench_support.ts";

interface OtlpSpan {
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
}

/** One exec's steps, in ms. */
export interface ExecSteps {
  toServer: number;
  prepareCheckHandoff: number;
  check: number;
  script: number;
  reportToHistory: number;
  history: number;
  answer: number;
  total: number;
}

/** Medians of each step over the runs, plus the median server-side tool call span. */
export interface ExecBreakdown {
  unchecked: ExecSteps;
  checked: ExecSteps;
  /** Median `gateway.tool_call` span of a local echo call: policy → namespace → tool host → back. */
  toolCallSpan: number;
  /** Median of the same calls timed in the script: the whole call. */
  toolCallInScript: number;
}

function startReceiver() {
  const spans: OtlpSpan[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    if (new URL(req.url).pathname === "/v1/traces") {
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
    }
    return Response.json({});
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, spans, server };
}

const ms = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000;
const now = () => performance.timeOrigin + performance.now();

/** Measures `runs` unchecked and `runs` checked trivial execs in a traced gateway. */
export async function measureExecBreakdown(
  files: RootFiles,
  runs: number,
): Promise<ExecBreakdown> {
  const receiver = startReceiver();
  const gw = await createHarness({
    files,
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_DENO_CONSOLE: "ignore",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    },
  });
  try {
    const client = await gw.client();
    const stamped = (n: number) =>
      `const __t0 = performance.timeOrigin + performance.now();\nconsole.log(${n} + 1);\n` +
      `[__t0, performance.timeOrigin + performance.now()]`;
    const one = async (check: boolean, n: number) => {
      const sent = now();
      const doc = await client.request<RunDocument>("exec", { source: stamped(n), check });
      const received = now();
      if (!doc.ok) throw new Error(`bench run failed: ${JSON.stringify(doc.error)}`);
      const [scriptStart, scriptEnd] = doc.result as [number, number];
      return { runId: doc.runId, sent, received, scriptStart, scriptEnd };
    };
    await one(false, 0);
    await one(true, 0);
    const samples: { check: boolean; s: Awaited<ReturnType<typeof one>> }[] = [];
    for (let i = 1; i <= runs; i++) {
      await new Promise((r) => setTimeout(r, 150)); // the pool refills between runs
      samples.push({ check: false, s: await one(false, i) });
      await new Promise((r) => setTimeout(r, 150));
      samples.push({ check: true, s: await one(true, 1000 + i) }); // a new source: a real check
    }
    const echo = await client.request<RunDocument>("exec", {
      source: `const times: number[] = [];
for (let i = 0; i < 500; i++) { const t = performance.now(); await tools.echo.echo({ v: i }); times.push(performance.now() - t); }
times.sort((a, b) => a - b); times[Math.floor(times.length / 2)]`,
      check: false,
    });
    await client.close();
    const runSpanOf = (runId: string) =>
      receiver.spans.find((s) =>
        s.name === "gateway.run" &&
        s.attributes?.some((a) => a.key === "gateway.run.id" && a.value.stringValue === runId)
      );
    const deadline = Date.now() + 15_000;
    while (
      Date.now() < deadline &&
      (![...samples.map((x) => x.s.runId), echo.runId].every((id) => runSpanOf(id)) ||
        !receiver.spans.some((s) => s.name === "gateway.history_write"))
    ) await new Promise((r) => setTimeout(r, 100));
    const steps = (check: boolean): ExecSteps => {
      const rows: ExecSteps[] = [];
      for (const { s } of samples.filter((x) => x.check === check)) {
        const run = runSpanOf(s.runId);
        if (!run) continue;
        const children = receiver.spans.filter((c) => c.parentSpanId === run.spanId);
        const typecheck = children.find((c) => c.name === "gateway.typecheck");
        const history = children.find((c) => c.name === "gateway.history_write");
        if (!history) continue;
        rows.push({
          toServer: ms(run.startTimeUnixNano) - s.sent,
          prepareCheckHandoff: s.scriptStart - ms(run.startTimeUnixNano),
          check: typecheck ? ms(typecheck.endTimeUnixNano) - ms(typecheck.startTimeUnixNano) : 0,
          script: s.scriptEnd - s.scriptStart,
          reportToHistory: ms(history.startTimeUnixNano) - s.scriptEnd,
          history: ms(history.endTimeUnixNano) - ms(history.startTimeUnixNano),
          answer: s.received - ms(history.endTimeUnixNano),
          total: s.received - s.sent,
        });
      }
      const pick = (key: keyof ExecSteps) => median(rows.map((r) => r[key]));
      return {
        toServer: pick("toServer"),
        prepareCheckHandoff: pick("prepareCheckHandoff"),
        check: pick("check"),
        script: pick("script"),
        reportToHistory: pick("reportToHistory"),
        history: pick("history"),
        answer: pick("answer"),
        total: pick("total"),
      };
    };
    const echoRun = runSpanOf(echo.runId);
    const callSpans = receiver.spans.filter((s) =>
      s.name === "gateway.tool_call" && s.parentSpanId === echoRun?.spanId
    ).map((s) => ms(s.endTimeUnixNano) - ms(s.startTimeUnixNano));
    return {
      unchecked: steps(false),
      checked: steps(true),
      toolCallSpan: median(callSpans),
      toolCallInScript: Number(echo.result),
    };
  } finally {
    await gw.dispose();
    await receiver.server.shutdown();
  }
}

/**
 * OpenTelemetry end to end: a gateway started with `OTEL_DENO=true` exports, to a local
 * OTLP/HTTP receiver the test runs, a span tree for a run with three tool calls (one failing):
 * the run span under the caller's `traceparent`, a child per call with its outcome, the type
 * check and the history write; and the run metrics. Without `OTEL_DENO` nothing is exported.
 * @module
 */

import assert from "node:assert/strict";
import { pollUntil } from "./support/poll_until.ts";
import { execRpc, runTestRoot, withRunHarness } from "./support/run_test_support.ts";
import { startTraceRecordingServer } from "./fixtures/mcp/http_trace_server.ts";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
}

/** A local OTLP/HTTP (JSON) receiver: what the gateway exports, decoded. */
function startReceiver() {
  const spans: OtlpSpan[] = [];
  const metricNames = new Set<string>();
  const bodies: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const text = await req.text();
    bodies.push(text);
    const path = new URL(req.url).pathname;
    const body = JSON.parse(text);
    if (path === "/v1/traces") {
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
    } else if (path === "/v1/metrics") {
      for (const rm of body.resourceMetrics ?? []) {
        for (const sm of rm.scopeMetrics ?? []) {
          for (const m of sm.metrics ?? []) metricNames.add(m.name);
        }
      }
    }
    return new Response("{}", { headers: { "content-type": "application/json" } });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, spans, metricNames, bodies, server };
}

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  return value.stringValue ?? value.doubleValue ??
    (value.intValue !== undefined ? Number(value.intValue) : value.boolValue);
}

const SECRET = "sk-telemetry-planted-42";

Deno.test("a traced run exports its span tree and metrics over OTLP", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const receiver = startReceiver();
  const upstream = startTraceRecordingServer();
  try {
    const files = await runTestRoot({
      config: {
        history: { redact: [SECRET] },
        mcpServers: { remote: { url: upstream.url, transport: "streamable-http" } },
      },
    });
    await withRunHarness({
      files,
      env: {
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_DENO_CONSOLE: "ignore",
        OTEL_BSP_SCHEDULE_DELAY: "200",
        OTEL_METRIC_EXPORT_INTERVAL: "500",
        OTEL_SERVICE_NAME: "gateway-test",
      },
    }, async (gw) => {
      const client = await gw.client();
      try {
        const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        const callerSpan = "00f067aa0ba902b7";
        const document = await execRpc(client, {
          check: true,
          traceparent: `00-${traceId}-${callerSpan}-01`,
          source: `
            await tools.probe.echo({ nonce: "one" });
            await tools.probe.echo({ nonce: ${JSON.stringify(SECRET)} });
            try { await tools.probe.fail({ message: "no" }); } catch { /* expected */ }
            await tools.remote.ping();
            "done"`,
        });
        assert.equal(document.ok, true, JSON.stringify(document.error));

        const runSpan = await pollUntil("the run span", () =>
          Promise.resolve(
            receiver.spans.find((s) =>
              s.name === "gateway.run" && attr(s, "gateway.run.id") === document.runId
            ),
          ), { timeoutMs: 30_000 });
        assert.equal(runSpan.traceId, traceId);
        assert.equal(runSpan.parentSpanId, callerSpan);
        assert.equal(attr(runSpan, "gateway.run.tool_calls"), 4, JSON.stringify(runSpan));
        assert.equal(attr(runSpan, "gateway.outcome"), "ok");

        const children = await pollUntil("the run's child spans", () => {
          const found = receiver.spans.filter((s) => s.parentSpanId === runSpan.spanId);
          const names = found.map((s) => s.name);
          return Promise.resolve(
            names.filter((n) => n === "gateway.tool_call").length === 4 &&
              names.includes("gateway.typecheck") && names.includes("gateway.history_write")
              ? found
              : undefined,
          );
        }, { timeoutMs: 30_000 });
        const calls = children.filter((s) => s.name === "gateway.tool_call");
        assert.deepEqual(
          calls.map((s) => [attr(s, "gateway.tool"), attr(s, "gateway.outcome")]).sort(),
          [["echo", "ok"], ["echo", "ok"], ["fail", "error"], ["ping", "ok"]],
        );
        // The HTTP upstream received the call span's trace context (W3C traceparent).
        const ping = calls.find((s) => attr(s, "gateway.tool") === "ping")!;
        assert.equal(attr(ping, "gateway.upstream"), "mcp");
        assert.equal(upstream.traceparents.length, 1);
        assert.match(upstream.traceparents[0] ?? "", new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
        const failed = calls.find((s) => attr(s, "gateway.outcome") === "error")!;
        assert.equal(attr(failed, "gateway.error.kind"), "ToolError");
        assert.equal(failed.status?.code, 2);
        assert.equal(attr(failed, "gateway.upstream"), "local");

        await pollUntil("the run metrics", () =>
          Promise.resolve(
            receiver.metricNames.has("gateway.runs") &&
              receiver.metricNames.has("gateway.run.duration") &&
              receiver.metricNames.has("gateway.tool_call.duration") &&
              receiver.metricNames.has("gateway.queue.depth")
              ? true
              : undefined,
          ), { timeoutMs: 30_000 });
        // Over HTTP, the caller's traceparent header parents the run the same way.
        const { port, token } = await gw.server();
        const httpTrace = "0af7651916cd43dd8448eb211c80319c";
        const response = await fetch(`http://127.0.0.1:${port}/exec`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${token}`,
            "content-type": "application/json",
            traceparent: `00-${httpTrace}-b7ad6b7169203331-01`,
          },
          body: JSON.stringify({ source: "1 + 1", check: false }),
        });
        const httpRun = await response.json() as { runId: string };
        const httpSpan = await pollUntil("the HTTP run's span", () =>
          Promise.resolve(
            receiver.spans.find((s) =>
              s.name === "gateway.run" && attr(s, "gateway.run.id") === httpRun.runId
            ),
          ), { timeoutMs: 30_000 });
        assert.equal(httpSpan.traceId, httpTrace);

        // Attributes carry names and kinds, never arguments or messages.
        assert.ok(!receiver.bodies.some((b) => b.includes(SECRET)), "a secret was exported");
      } finally {
        await client.close();
      }
    });
  } finally {
    await receiver.server.shutdown();
    await upstream.close();
  }
});

Deno.test("without OTEL_DENO the gateway exports nothing", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const receiver = startReceiver();
  try {
    const files = await runTestRoot({});
    await withRunHarness({
      files,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    }, async (gw) => {
      const client = await gw.client();
      try {
        const document = await execRpc(client, {
          source: 'await tools.probe.echo({ nonce: "x" })',
        });
        assert.equal(document.ok, true);
        // Stopping the server flushes whatever an exporter would hold.
        await gw.cli(["stop"]);
        assert.equal(receiver.bodies.length, 0);
      } finally {
        await client.close();
      }
    });
  } finally {
    await receiver.server.shutdown();
  }
});

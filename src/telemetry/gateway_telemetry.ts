/**
 * OpenTelemetry for runs, through Deno's built-in export (`OTEL_DENO=true` and the standard
 * `OTEL_*` variables) and `@opentelemetry/api`: a span per run with child spans for the type
 * check, each tool call and the history write; W3C trace context taken from callers and carried
 * to HTTP upstreams (Deno's `fetch` injects it from the active context); metrics for outcomes,
 * latencies, the queue and namespace states. Off by default: every entry point
 * returns a shared no-op when `OTEL_DENO` is not set, so an untraced run pays for nothing.
 * Attributes carry ids, names and kinds only, never messages, arguments or output (no secrets).
 * @module
 */

import type { Attributes, Context, Span } from "@opentelemetry/api";

/** How a traced run ended, as far as telemetry cares. */
export interface RunOutcome {
  ok: boolean;
  /** The failure kind when not ok. */
  kind?: string;
  toolCalls: number;
  durationMs: number;
}

/** One tool call's span. */
export interface CallTrace {
  /** The context to run the call in, so HTTP upstreams receive its trace context. */
  readonly context: Context | undefined;
  end(outcome: { ok: boolean; kind?: string }): void;
}

/** One run's spans. */
export interface RunTrace {
  /** Runs `fn` as a child span named `name` (the type check, the history write). */
  step<T>(name: string, fn: () => T): T;
  /** Opens the span of a tool call. */
  call(namespace: string, tool: string, upstream: string): CallTrace;
  /** Ends the run span and records the run's metrics. */
  end(outcome: RunOutcome): void;
}

const NO_CALL: CallTrace = { context: undefined, end: () => {} };
const NO_RUN: RunTrace = {
  step: (_name, fn) => fn(),
  call: () => NO_CALL,
  end: () => {},
};

/** Whether Deno exports telemetry in this process (`OTEL_DENO=true`). */
export function telemetryEnabled(
  env: { get(name: string): string | undefined } = Deno.env,
): boolean {
  const value = env.get("OTEL_DENO")?.toLowerCase();
  return value === "true" || value === "1";
}

/**
 * `@opentelemetry/api`, loaded only when this process exports telemetry: evaluating it costs
 * the server CPU and memory at start, for nothing when telemetry is off.
 */
const otel: typeof import("@opentelemetry/api") | null = telemetryEnabled()
  ? await import("@opentelemetry/api")
  : null;

/** The API when telemetry is on; an `enabled` telemetry without `OTEL_DENO` is a caller bug. */
function otelApi(): typeof import("@opentelemetry/api") {
  if (otel === null) {
    throw new Error(
      "GatewayTelemetry is enabled but OTEL_DENO is not set: @opentelemetry/api was not loaded",
    );
  }
  return otel;
}

/** Kinds that mean the run hit one of its limits (a span attribute of their own). */
const LIMIT_KINDS = new Set(["Timeout", "MemoryLimit", "ToolCallLimitExceeded", "ToolTimeout"]);

/** The tracer and instruments of a telemetry that is on. */
function makeInstruments() {
  const api = otelApi();
  const meter = api.metrics.getMeter("gateway");
  return {
    api,
    tracer: api.trace.getTracer("gateway"),
    meter,
    runs: meter.createCounter("gateway.runs", {
      description: "Runs finished, by outcome and failure kind",
    }),
    runDuration: meter.createHistogram("gateway.run.duration", {
      description: "Wall time of a run",
      unit: "ms",
    }),
    callDuration: meter.createHistogram("gateway.tool_call.duration", {
      description: "Wall time of a tool call from a script",
      unit: "ms",
    }),
  };
}

/** The gateway's tracer and instruments, or no-ops when telemetry is off. */
export class GatewayTelemetry {
  readonly enabled: boolean;
  /** Null when off: nothing of `@opentelemetry/api` is touched then. */
  readonly #on: ReturnType<typeof makeInstruments> | null;

  constructor(options: { enabled?: boolean } = {}) {
    this.enabled = options.enabled ?? telemetryEnabled();
    this.#on = this.enabled ? makeInstruments() : null;
  }

  /**
   * Reports `read()` as gauges on every export: runs waiting for a turn, runs in flight, and
   * namespaces per state.
   */
  observe(
    read: () => { queued: number; active: number; namespaces: Record<string, number> },
  ): void {
    if (this.#on === null) return;
    const meter = this.#on.meter;
    const queue = meter.createObservableGauge("gateway.queue.depth", {
      description: "Runs waiting for a turn",
    });
    const active = meter.createObservableGauge("gateway.runs.active", {
      description: "Runs in flight",
    });
    const namespaces = meter.createObservableGauge("gateway.namespaces", {
      description: "Namespaces per state",
    });
    meter.addBatchObservableCallback((result) => {
      const now = read();
      result.observe(queue, now.queued);
      result.observe(active, now.active);
      for (const [state, count] of Object.entries(now.namespaces)) {
        result.observe(namespaces, count, { state });
      }
    }, [queue, active, namespaces]);
  }

  /**
   * Opens a run's span: a child of `traceparent` when the caller sent one (W3C trace
   * context), else of the active context (an HTTP request Deno is already tracing).
   */
  startRun(info: { runId: string; client: string; name?: string; traceparent?: string }): RunTrace {
    if (this.#on === null) return NO_RUN;
    const { api: { context, propagation, trace }, tracer, callDuration, runs, runDuration } =
      this.#on;
    const parent = info.traceparent
      ? propagation.extract(context.active(), { traceparent: info.traceparent })
      : context.active();
    const span = tracer.startSpan("gateway.run", {
      attributes: {
        "gateway.run.id": info.runId,
        "gateway.run.client": info.client,
        ...(info.name ? { "gateway.run.script": info.name } : {}),
      },
    }, parent);
    const runContext = trace.setSpan(parent, span);
    return {
      step: <T>(name: string, fn: () => T): T => {
        const child = tracer.startSpan(name, {}, runContext);
        try {
          const value = context.with(trace.setSpan(runContext, child), fn);
          if (value instanceof Promise) {
            return value.then(
              (v) => (child.end(), v),
              (error) => (fail(child, "Error"), child.end(), Promise.reject(error)),
            ) as T;
          }
          child.end();
          return value;
        } catch (error) {
          fail(child, "Error");
          child.end();
          throw error;
        }
      },
      call: (namespace, tool, upstream) => {
        const started = performance.now();
        const child = tracer.startSpan("gateway.tool_call", {
          attributes: {
            "gateway.namespace": namespace,
            "gateway.tool": tool,
            "gateway.upstream": upstream,
          },
        }, runContext);
        return {
          context: trace.setSpan(runContext, child),
          end: (outcome) => {
            const attributes: Attributes = {
              "gateway.namespace": namespace,
              "gateway.outcome": outcome.ok ? "ok" : "error",
              ...(outcome.kind ? { "gateway.error.kind": outcome.kind } : {}),
            };
            child.setAttributes(attributes);
            if (!outcome.ok) fail(child, outcome.kind ?? "Error");
            child.end();
            callDuration.record(performance.now() - started, attributes);
          },
        };
      },
      end: (outcome) => {
        span.setAttributes({
          "gateway.run.tool_calls": outcome.toolCalls,
          "gateway.outcome": outcome.ok ? "ok" : "error",
          ...(outcome.kind ? { "gateway.error.kind": outcome.kind } : {}),
          ...(outcome.kind && LIMIT_KINDS.has(outcome.kind)
            ? { "gateway.run.limit_hit": outcome.kind }
            : {}),
        });
        if (!outcome.ok) fail(span, outcome.kind ?? "Error");
        span.end();
        const attributes: Attributes = {
          "gateway.outcome": outcome.ok ? "ok" : "error",
          ...(outcome.kind ? { "gateway.error.kind": outcome.kind } : {}),
        };
        runs.add(1, attributes);
        runDuration.record(outcome.durationMs, attributes);
      },
    };
  }

  /** Runs `fn` in `ctx` (a call's context), or plainly when there is none. */
  static within<T>(ctx: Context | undefined, fn: () => T): T {
    return ctx === undefined ? fn() : otelApi().context.with(ctx, fn);
  }
}

/** Marks a span failed with the kind only: messages may hold secrets. */
function fail(span: Span, kind: string): void {
  span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: kind });
}

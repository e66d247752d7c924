/**
 * The gateway's own per-call work between a script's channel and a namespace, in process: the
 * call broker (turns, records, the call's history text, the reply) and the tool dispatcher
 * (names, status, policy, the namespace's limits), over a namespace that answers at once. What
 * is left of a call is I/O: the hops to the runner and to the tool host.
 * @module
 */

import { CallBroker } from "../../src/exec/call_broker.ts";
import { RunReturns } from "../../src/exec/run_returns.ts";
import { GatewayTelemetry } from "../../src/telemetry/gateway_telemetry.ts";
import { NamespaceRegistry } from "../../src/namespaces/namespace_registry.ts";
import type { Namespace, ToolCallResult } from "../../src/namespaces/namespace.ts";
import { ToolDispatcher } from "../../src/server/tool_dispatcher.ts";
import { CallPolicy } from "../../src/server/call_policy.ts";
import { Approvals } from "../../src/server/approvals.ts";
import type { GatewayConfig } from "../../src/config/gateway_config.ts";
import { MessagePeer } from "../../src/protocol/message_peer.ts";
import type { TransportEvents } from "../../src/protocol/transport.ts";
import { toolDescriptor } from "../support/tool_descriptor.ts";

/** A local namespace with one tool, `echo`, answering its argument's `v` at once. */
function instantNamespace(): Namespace {
  const namespace: Partial<Namespace> = {
    name: "echo",
    kind: "local",
    status: () => ({ state: "ready" }),
    catalogue: () => ({
      tools: [toolDescriptor("echo", { inputType: "{ v: number }", outputType: "number" })],
      declarations: "",
      warnings: [],
    }),
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    callTool: (_tool: string, args: unknown): Promise<ToolCallResult> =>
      Promise.resolve({ value: (args as { v: number }).v, raw: { content: [] } }),
    onChange: () => () => {},
  };
  return namespace as Namespace;
}

/** Median µs per call of broker → dispatcher → an instant namespace, over `rounds` × `calls`. */
export async function serverCallPathUs(calls: number, rounds = 5): Promise<number> {
  const registry = new NamespaceRegistry();
  await registry.add(instantNamespace());
  const config = { exec: { callTimeoutMs: 60_000, callMaxMs: 60_000 } } as GatewayConfig;
  const dispatcher = new ToolDispatcher({
    registry,
    policy: new CallPolicy({
      rules: () => [],
      approvals: new Approvals(),
      log: () => {},
      root: "/",
    }),
    config: () => config,
    check: () => null,
  });
  let events: TransportEvents | undefined;
  let replied: () => void = () => {};
  // The broker's peer on a transport that hands messages over in the caller's turn.
  const peer = new MessagePeer({
    start: (started) => (events = started),
    send: () => replied(),
    close: () => {},
    flushed: () => Promise.resolve(),
  });
  await Promise.resolve();
  const broker = new CallBroker({
    runId: "bench",
    connection: peer,
    returns: new RunReturns({
      maxResultBytes: 65_536,
      maxAttachments: 4,
      maxAttachmentBytes: 65_536,
      maxWarnings: 10,
    }),
    maxToolCalls: Number.MAX_SAFE_INTEGER,
    maxConcurrentCalls: 16,
    callTimeoutMs: 60_000,
    deadline: Date.now() + 3_600_000,
    argsChecked: true,
    callTool: (call) =>
      dispatcher.callTool(call.namespace, call.tool, call.args, {
        raw: call.raw,
        signal: call.signal,
        argsChecked: true,
      }),
    resources: () => Promise.resolve([]),
    trace: new GatewayTelemetry({ enabled: false }).startRun({ runId: "bench", client: "bench" }),
  });
  const perRound: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      broker.toolCalls.length = 0;
      const t = performance.now();
      for (let i = 0; i < calls; i++) {
        const answered = new Promise<void>((resolve) => (replied = resolve));
        events!.message({
          id: i,
          method: "call",
          params: { namespace: "echo", tool: "echo", args: { v: i }, raw: false },
        });
        await answered;
      }
      perRound.push((performance.now() - t) / calls * 1000);
    }
  } finally {
    broker.stop();
    await registry.stopAll();
  }
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)] ?? NaN;
}

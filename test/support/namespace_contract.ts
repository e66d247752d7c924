/**
 * The contract every {@linkcode Namespace} kind passes (STYLE rule 8, in the way of hono's shared
 * router test): each kind's `*_namespace_contract_test.ts` calls
 * `namespaceContract({ name, make, skip })` with a working, a failing and a disabled upstream,
 * and the same steps run against local modules, MCP servers, OpenAPI and GraphQL APIs alike.
 * @module
 */

import assert from "node:assert/strict";
import {
  type Namespace,
  type NamespaceStatus,
  ToolCallError,
  type ToolCallOptions,
} from "../../src/namespaces/namespace.ts";
import { pollUntil } from "./poll_until.ts";

/** One namespace under test and what the contract needs to know about its upstream. */
export interface NamespaceSubject {
  /** Not started yet: the contract starts it. */
  namespace: Namespace;
  /** A call that succeeds on the working upstream (tool by original name, and its argument). */
  call: { tool: string; args: unknown };
  /** A call that runs until it is aborted (a tool or endpoint that hangs), if the kind has one. */
  slowCall?: { tool: string; args: unknown };
  /** Makes the upstream change its tool list after start (edit a module, add an MCP tool). */
  changeTools?: () => Promise<void>;
  /** Ends what the subject started besides the namespace (servers, scratch files). */
  close(): Promise<void>;
}

/** The cases of the contract, by the name `skip` uses. */
export type NamespaceContractCase =
  | "start never rejects"
  | "stop is idempotent"
  | "status is a snapshot"
  | "unknown tool names the nearest"
  | "abort gives Cancelled"
  | "failed gives NamespaceUnavailable"
  | "onChange fires when tools change"
  | "disabled stays disabled";

/** Which upstream a subject gets. */
export type Upstream = "working" | "failing" | "disabled";

/** Options of {@linkcode namespaceContract}. */
export interface NamespaceContractOptions {
  /** Names the kind in test names, e.g. "local" or "MCP (server-everything)". */
  name: string;
  /**
   * Builds a fresh subject: `"working"` with an upstream that serves tools, `"failing"` with
   * one that cannot (a module that throws at import, a command that does not exist …),
   * `"disabled"` with the working one's config marked `disabled`.
   */
  make(upstream: Upstream): Promise<NamespaceSubject>;
  /** Cases this kind cannot take part in, each with the reason (shown in the test name). */
  skip?: Partial<Record<NamespaceContractCase, string>>;
}

/** Per-call options with test-sized limits. */
function callOptions(signal: AbortSignal = new AbortController().signal): ToolCallOptions {
  return { signal, callTimeoutMs: 20_000, callMaxMs: 30_000 };
}

/** A change listener that throws: it must not make `start()` reject or skip other listeners. */
function throwingListener(): void {
  throw new Error("a change listener that throws (on purpose)");
}

/** The `ToolCallError` a call failed with; fails the test when it succeeded or threw another. */
async function callFailure(promise: Promise<unknown>): Promise<ToolCallError> {
  const error = await promise.then(
    () => assert.fail("expected the call to fail"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof ToolCallError, `expected a ToolCallError, got ${String(error)}`);
  return error;
}

/** Registers the contract tests for one namespace kind. */
export function namespaceContract(options: NamespaceContractOptions): void {
  const { name, make } = options;
  const skip = options.skip ?? {};
  for (const [which, reason] of Object.entries(skip)) {
    assert.ok(reason.trim() !== "", `${name}: skipping "${which}" needs a reason`);
  }
  const step = (
    t: Deno.TestContext,
    which: NamespaceContractCase,
    title: string,
    fn: () => Promise<void>,
  ) => {
    const reason = skip[which];
    return t.step({
      name: reason === undefined ? title : `${title} (skipped: ${reason})`,
      ignore: reason !== undefined,
      fn,
    });
  };

  /** Registers one test over a fresh subject, always stopped and closed afterwards. */
  const contractTest = (
    upstream: Upstream,
    body: (t: Deno.TestContext, subject: NamespaceSubject, changes: () => number) => Promise<void>,
  ) =>
    Deno.test(`${name} namespace contract: ${upstream} upstream`, async (t) => {
      const subject = await make(upstream);
      let changes = 0;
      const unsubscribe = subject.namespace.onChange(() => changes++);
      try {
        await body(t, subject, () => changes);
      } finally {
        unsubscribe();
        await subject.namespace.stop();
        await subject.close();
      }
    });

  contractTest("working", async (t, subject, changes) => {
    const ns = subject.namespace;
    await step(
      t,
      "start never rejects",
      "start() resolves ready with tools, even when a listener throws",
      async () => {
        const throwing = ns.onChange(throwingListener);
        await ns.start().finally(throwing);
        assert.deepEqual(ns.status(), { state: "ready" });
        assert.ok(ns.catalogue().tools.length > 0, "a ready namespace lists its tools");
        assert.ok(changes() > 0, "onChange fired while it started");
        const { tool, args } = subject.call;
        await ns.callTool(tool, args, callOptions());
      },
    );

    await step(t, "status is a snapshot", "status() returns a snapshot", async () => {
      const snapshot: NamespaceStatus = ns.status();
      (snapshot as { state: string }).state = "mutated by the caller";
      assert.deepEqual(ns.status(), { state: "ready" });
      await Promise.resolve();
    });

    await step(
      t,
      "unknown tool names the nearest",
      "an unknown tool fails with UnknownTool naming the nearest tools",
      async () => {
        const known = subject.call.tool;
        const error = await callFailure(ns.callTool(`${known}x`, {}, callOptions()));
        assert.equal(error.kind, "UnknownTool", error.message);
        assert.ok(error.message.includes(`${known}x`), error.message);
        // Suggested as a path: `did you mean "ns.tool"?`
        assert.ok(error.message.includes(`.${known}"?`), `no "${known}" in: ${error.message}`);
      },
    );

    await step(t, "abort gives Cancelled", "an aborted call fails with Cancelled", async () => {
      const before = new AbortController();
      before.abort(new Error("cancelled before the call"));
      const { tool, args } = subject.call;
      const early = await callFailure(ns.callTool(tool, args, callOptions(before.signal)));
      assert.equal(early.kind, "Cancelled", early.message);
      if (subject.slowCall === undefined) return;
      // The slow call never ends by itself, so Cancelled is the only outcome whenever the
      // abort lands; the short delay only lets the call reach the upstream first.
      const during = new AbortController();
      const call = ns.callTool(
        subject.slowCall.tool,
        subject.slowCall.args,
        callOptions(during.signal),
      );
      const timer = setTimeout(() => during.abort(new Error("cancelled by the test")), 200);
      try {
        const late = await callFailure(call);
        assert.equal(late.kind, "Cancelled", late.message);
      } finally {
        clearTimeout(timer);
      }
      assert.deepEqual(ns.status(), { state: "ready" }, "a cancelled call leaves it ready");
    });

    await step(
      t,
      "onChange fires when tools change",
      "onChange fires when the tools change",
      async () => {
        if (subject.changeTools === undefined) {
          throw new Error(`${name}: give changeTools or skip "onChange fires when tools change"`);
        }
        const before = ns.catalogue().tools.map((tool) => tool.originalName).sort();
        const seen = changes();
        await subject.changeTools();
        await pollUntil(
          "onChange after the tools changed",
          () => Promise.resolve(changes() > seen ? true : undefined),
        );
        const after = ns.catalogue().tools.map((tool) => tool.originalName).sort();
        assert.notDeepEqual(after, before);
      },
    );

    await step(
      t,
      "stop is idempotent",
      "stop() is idempotent, leaves snapshots alone and refuses later calls",
      async () => {
        const held = ns.status();
        let heard = 0;
        const quiet = ns.onChange(() => heard++);
        quiet();
        await Promise.all([ns.stop(), ns.stop()]);
        await ns.stop();
        assert.deepEqual(held, { state: "ready" }, "a snapshot taken before stop() changed");
        assert.equal(ns.status().state, "failed");
        assert.equal(heard, 0, "an unsubscribed listener was called");
        const { tool, args } = subject.call;
        const error = await callFailure(ns.callTool(tool, args, callOptions()));
        assert.equal(error.kind, "NamespaceUnavailable", error.message);
      },
    );
  });

  contractTest("failing", async (t, subject, changes) => {
    const ns = subject.namespace;
    await step(
      t,
      "start never rejects",
      "start() resolves failed with a reason, even when a listener throws",
      async () => {
        const throwing = ns.onChange(throwingListener);
        await ns.start().finally(throwing);
        const status = ns.status();
        assert.equal(status.state, "failed", JSON.stringify(status));
        assert.ok(status.state === "failed" && status.reason.trim() !== "", "no reason given");
        assert.ok(changes() > 0, "onChange fired when it failed");
      },
    );

    await step(t, "status is a snapshot", "status() of a failed namespace is a snapshot", () => {
      const first = ns.status();
      (first as { state: string }).state = "mutated by the caller";
      assert.equal(ns.status().state, "failed");
      return Promise.resolve();
    });

    await step(
      t,
      "failed gives NamespaceUnavailable",
      "a call on a failed namespace fails with NamespaceUnavailable",
      async () => {
        const { tool, args } = subject.call;
        const error = await callFailure(ns.callTool(tool, args, callOptions()));
        assert.equal(error.kind, "NamespaceUnavailable", error.message);
        assert.ok(error.message.includes(`"${ns.name}"`), error.message);
      },
    );

    await step(
      t,
      "stop is idempotent",
      "stop() of a failed namespace is idempotent",
      async () => {
        await Promise.all([ns.stop(), ns.stop()]);
        await ns.stop();
        assert.equal(ns.status().state, "failed");
      },
    );
  });

  contractTest("disabled", async (t, subject) => {
    const ns = subject.namespace;
    await step(
      t,
      "disabled stays disabled",
      "a disabled namespace starts nothing, refuses calls and stays disabled",
      async () => {
        assert.deepEqual(ns.status(), { state: "disabled" });
        await ns.start();
        assert.deepEqual(ns.status(), { state: "disabled" });
        const { tool, args } = subject.call;
        const error = await callFailure(ns.callTool(tool, args, callOptions()));
        assert.equal(error.kind, "NamespaceUnavailable", error.message);
        await Promise.all([ns.stop(), ns.stop()]);
        assert.deepEqual(ns.status(), { state: "disabled" });
      },
    );
  });
}

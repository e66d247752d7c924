/**
 * The contract every {@linkcode Namespace} implementation passes (in the way of hono's shared
 * router test): each `*_namespace_contract_test.ts` calls `namespaceContract({ name, make, skip })`
 * with a working, a failing and a disabled upstream, and the same steps run against local
 * modules (a process of their own or a Worker of the shared host), MCP servers (loaded or
 * deferred), OpenAPI and GraphQL APIs and the blocked stand-in alike. A namespace states its
 * optional capabilities; the contract checks it states the ones its subject expects, and holds
 * each stated one to its sub-interface (resources, upstream requests, stderr tail, upstream
 * events).
 * @module
 */

import assert from "node:assert/strict";
import {
  hasResources,
  hasStderrTail,
  hasUpstreamEvents,
  hasUpstreamRequests,
  type Namespace,
  type NamespaceCapability,
  type NamespaceStatus,
  ToolCallError,
  type ToolCallOptions,
  type UpstreamLogMessage,
  type UpstreamMethod,
} from "../../src/namespaces/namespace.ts";
import { pollUntil } from "./poll_until.ts";

/** How to exercise each optional capability on the working upstream. */
export interface CapabilityProbes {
  /** A resource the working upstream lists and reads. */
  resources?: { uri: string };
  /** A request the working upstream answers, and what its answer must satisfy. */
  "upstream-requests"?: {
    method: UpstreamMethod;
    params: Record<string, unknown>;
    answered(value: unknown): boolean;
  };
  /** Text the working upstream writes to stderr as it starts. */
  "stderr-tail"?: { written: string };
  /** Makes the working upstream send a log message, and a resource update (answers its URI). */
  "upstream-events"?: { logMessage(): Promise<void>; resourceUpdate(): Promise<string> };
}

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
  /** The optional capabilities the namespace must state (none: `[]`). */
  capabilities: readonly NamespaceCapability[];
  /** How to exercise them; a stated capability without a probe needs its case skipped. */
  probes?: CapabilityProbes;
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
  | "disabled stays disabled"
  | "start after stop is ready again"
  | "states its capabilities"
  | "resources list and read"
  | "upstream requests answer"
  | "stderr tail keeps what the upstream wrote"
  | "upstream events reach listeners"
  | "capabilities of a namespace that is down fail cleanly";

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
  /**
   * Upstreams the kind cannot have, each with the reason (a blocked namespace is never
   * working); their tests are registered as ignored, naming it.
   */
  without?: Partial<Record<Upstream, string>>;
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

/** The methods each capability's sub-interface has. */
const CAPABILITY_METHODS: Record<NamespaceCapability, readonly string[]> = {
  resources: ["listResources", "readResource"],
  "upstream-requests": ["upstreamRequest"],
  "stderr-tail": ["stderrTail"],
  "upstream-events": ["onLogMessage", "onResourceUpdated"],
};

/** The namespace states exactly the subject's capabilities and has each one's methods. */
function statesItsCapabilities(subject: NamespaceSubject): Promise<void> {
  const ns = subject.namespace;
  assert.deepEqual([...ns.capabilities].sort(), [...subject.capabilities].sort());
  const methods = ns as unknown as Record<string, unknown>;
  for (const capability of ns.capabilities) {
    for (const method of CAPABILITY_METHODS[capability]) {
      assert.equal(
        typeof methods[method],
        "function",
        `states "${capability}" without ${method}()`,
      );
    }
  }
  return Promise.resolve();
}

/**
 * What a namespace that is not running (failed, disabled) does with each capability it states:
 * resources and upstream requests fail at once with `NamespaceUnavailable` naming it, the
 * stderr tail is a string, listeners come and go without throwing.
 */
async function capabilitiesWhileDown(ns: Namespace): Promise<void> {
  const unavailable = (error: ToolCallError) => {
    assert.equal(error.kind, "NamespaceUnavailable", error.message);
    assert.ok(error.message.includes(`"${ns.name}"`), error.message);
  };
  if (hasResources(ns)) {
    unavailable(await callFailure(ns.listResources()));
    unavailable(await callFailure(ns.readResource("contract://nothing")));
  }
  if (hasUpstreamRequests(ns)) {
    unavailable(await callFailure(ns.upstreamRequest("prompts/list", {})));
  }
  if (hasStderrTail(ns)) assert.equal(typeof ns.stderrTail(), "string");
  if (hasUpstreamEvents(ns)) {
    ns.onLogMessage(() => assert.fail("a log message from a namespace that is down"))();
    ns.onResourceUpdated(() => assert.fail("an update from a namespace that is down"))();
  }
}

/** Registers the contract tests for one namespace kind. */
export function namespaceContract(options: NamespaceContractOptions): void {
  const { name, make } = options;
  const skip = options.skip ?? {};
  const without = options.without ?? {};
  for (const [which, reason] of Object.entries({ ...skip, ...without })) {
    assert.ok(reason.trim() !== "", `${name}: leaving out "${which}" needs a reason`);
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
  ) => {
    const reason = without[upstream];
    const title = `${name} namespace contract: ${upstream} upstream`;
    if (reason !== undefined) {
      Deno.test({ name: `${title} (left out: ${reason})`, ignore: true, fn: () => {} });
      return;
    }
    Deno.test(title, async (t) => {
      const subject = await make(upstream);
      let changes = 0;
      const unsubscribe = subject.namespace.onChange(() => changes++);
      try {
        await step(
          t,
          "states its capabilities",
          "states the optional capabilities it has, and has what it states",
          () => statesItsCapabilities(subject),
        );
        await body(t, subject, () => changes);
      } finally {
        unsubscribe();
        await subject.namespace.stop();
        await subject.close();
      }
    });
  };

  /** The probe of `capability`, or an error saying to give one or skip `which`. */
  const probeOf = <C extends keyof CapabilityProbes>(
    subject: NamespaceSubject,
    capability: C,
    which: NamespaceContractCase,
  ): NonNullable<CapabilityProbes[C]> => {
    const probe = subject.probes?.[capability];
    if (probe === undefined) {
      throw new Error(
        `${name}: states "${capability}": give probes["${capability}"] or skip "${which}"`,
      );
    }
    return probe as NonNullable<CapabilityProbes[C]>;
  };

  contractTest("working", async (t, subject, changes) => {
    const ns = subject.namespace;
    const states = (capability: NamespaceCapability) => subject.capabilities.includes(capability);
    // Before anything runs: no stderr yet, and a log listener that must hear the upstream once
    // it runs (a deferred namespace keeps it across loading its code).
    const tailBeforeStart = hasStderrTail(ns) ? ns.stderrTail() : "";
    const early: UpstreamLogMessage[] = [];
    const stopEarly = hasUpstreamEvents(ns) ? ns.onLogMessage((m) => early.push(m)) : () => {};
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

    if (states("resources") && hasResources(ns)) {
      await step(
        t,
        "resources list and read",
        "listResources() lists what readResource() reads; a bad URI fails naming the namespace",
        async () => {
          const { uri } = probeOf(subject, "resources", "resources list and read");
          const listing = await ns.listResources();
          assert.ok(listing.resources.some((r) => r.uri === uri), JSON.stringify(listing));
          const read = await ns.readResource(uri);
          assert.ok(read.contents.some((c) => c.uri === uri), JSON.stringify(read));
          const missing = await callFailure(ns.readResource(`${uri}-nowhere`));
          assert.ok(missing.message.includes(`"${ns.name}"`), missing.message);
        },
      );
    }

    if (states("upstream-requests") && hasUpstreamRequests(ns)) {
      await step(
        t,
        "upstream requests answer",
        "upstreamRequest() relays a request and gives the upstream's answer",
        async () => {
          const probe = probeOf(subject, "upstream-requests", "upstream requests answer");
          const value = await ns.upstreamRequest(probe.method, probe.params);
          assert.ok(probe.answered(value), `${probe.method} answered ${JSON.stringify(value)}`);
        },
      );
    }

    if (states("stderr-tail") && hasStderrTail(ns)) {
      await step(
        t,
        "stderr tail keeps what the upstream wrote",
        "stderrTail() is empty before the start and keeps what the upstream wrote",
        async () => {
          const { written } = probeOf(
            subject,
            "stderr-tail",
            "stderr tail keeps what the upstream wrote",
          );
          assert.equal(tailBeforeStart, "");
          await pollUntil(
            `"${written}" in the stderr tail`,
            () => ns.stderrTail().includes(written),
            { last: () => ns.stderrTail() },
          );
        },
      );
    }

    if (states("upstream-events") && hasUpstreamEvents(ns)) {
      await step(
        t,
        "upstream events reach listeners",
        "log messages and resource updates reach listeners, also one registered before start",
        async () => {
          const probe = probeOf(subject, "upstream-events", "upstream events reach listeners");
          const heard: UpstreamLogMessage[] = [];
          const stopLogs = ns.onLogMessage((message) => heard.push(message));
          await probe.logMessage();
          await pollUntil(
            "a log message, heard by the listener of before the start and by a new one",
            () => heard.length > 0 && early.length > 0,
            { last: () => ({ heard, early }) },
          );
          stopLogs();
          const updated: string[] = [];
          const stopUpdates = ns.onResourceUpdated((uri) => updated.push(uri));
          const uri = await probe.resourceUpdate();
          await pollUntil(`an update of "${uri}"`, () => updated.includes(uri), {
            last: () => updated,
          });
          stopUpdates();
        },
      );
    }
    stopEarly();

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

    await step(
      t,
      "start after stop is ready again",
      "start() after stop() makes it ready again (the dashboard's restart)",
      async () => {
        await ns.start();
        assert.deepEqual(ns.status(), { state: "ready" });
        const { tool, args } = subject.call;
        await ns.callTool(tool, args, callOptions());
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
        // A namespace failed from the outset (blocked) has no change to announce.
        const before = ns.status();
        const throwing = ns.onChange(throwingListener);
        await ns.start().finally(throwing);
        const status = ns.status();
        assert.equal(status.state, "failed", JSON.stringify(status));
        assert.ok(status.state === "failed" && status.reason.trim() !== "", "no reason given");
        if (before.state === "failed") assert.deepEqual(status, before, "failed, then failed anew");
        else assert.ok(changes() > 0, "onChange fired when it failed");
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

    if (ns.capabilities.size > 0) {
      await step(
        t,
        "capabilities of a namespace that is down fail cleanly",
        "a failed namespace's capabilities fail at once with NamespaceUnavailable",
        () => capabilitiesWhileDown(ns),
      );
    }

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

    if (ns.capabilities.size > 0) {
      await step(
        t,
        "capabilities of a namespace that is down fail cleanly",
        "a disabled namespace's capabilities fail at once with NamespaceUnavailable",
        () => capabilitiesWhileDown(ns),
      );
    }
  });
}

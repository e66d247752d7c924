/**
 * The gateway's conversation with one loaded tool module, through a `MessagePeer` per placement
 * (each Worker, or host process, the module was loaded into): calls made before the module's
 * runtime joins the gateway's socket wait for it; when the runtime goes, the calls sent to it
 * wait for the verdict (how it ended, or that the module moved and the call will never be
 * answered) and fail with it; and once the module is retired or gone, every waiting and later
 * call fails with the same error.
 * @module
 */

import { DeferredTransport } from "../../protocol/deferred_transport.ts";
import { MessagePeer, type RequestId, type WireError } from "../../protocol/message_peer.ts";
import type { Transport } from "../../protocol/transport.ts";
import { messageOf } from "../../protocol/message_of.ts";
import { type Clock, systemClock } from "../../protocol/clock.ts";
import { settlesWithin } from "../../process/terminate_process_group.ts";
import { ToolCallError } from "../namespace.ts";

/** Where a call's answer goes: `resolve` gets the tool's value, `reject` why the call failed. */
export interface PendingCall {
  resolve(value: unknown): void;
  reject(error: ToolCallError): void;
}

/** A call in flight, for its caller: whether it still waits, and how to ask for its abort. */
export interface CallTicket {
  /** True until the call was answered or failed. */
  readonly pending: boolean;
  /** Asks the module to abort the call's signal (its answer, if any, still comes). */
  cancel(): void;
}

/** The error data a tool host sends with a tool's failure: what the module threw. */
export interface ThrownData {
  name?: string;
  stack?: string;
}

/** A ticket of a call that never left (it failed at once). */
const NOT_SENT: CallTicket = { pending: false, cancel: () => {} };

class Ticket implements CallTicket {
  readonly #peer: MessagePeer<PendingCall>;
  readonly #id: RequestId;
  constructor(peer: MessagePeer<PendingCall>, id: RequestId) {
    this.#peer = peer;
    this.#id = id;
  }
  get pending(): boolean {
    return this.#peer.isPending(this.#id);
  }
  cancel(): void {
    if (this.#peer.isPending(this.#id)) this.#peer.cancel(this.#id);
  }
}

/** One placement's conversation: its peer, over a wire that may not have joined yet. */
interface Placement {
  peer: MessagePeer<PendingCall>;
  wire: DeferredTransport;
  /** The count of runtimes the module was loaded into when this one joined (0: not yet). */
  placement: number;
}

/** Settings of {@linkcode ModuleCalls}. */
export interface ModuleCallsOptions {
  /** The namespace, in messages (`Cannot send arguments to "kv.set"`). */
  name: string;
  /** Notifications the module's runtime sends on its own link (`ready`, `load_error`). */
  onNotice?: (method: string, params: unknown) => void;
  /** Polls for {@linkcode ModuleCalls.drained}. @default {systemClock} */
  clock?: Clock;
}

/** A module's calls; see the module doc. */
export class ModuleCalls {
  readonly #options: ModuleCallsOptions;
  #current: Placement;
  /** Placements whose runtime went: their calls wait for the verdict. */
  readonly #earlier = new Map<number, MessagePeer<PendingCall>>();
  #retiredWith: ToolCallError | undefined;
  #endedWith: ToolCallError | undefined;

  constructor(options: ModuleCallsOptions) {
    this.#options = options;
    this.#current = this.#placement();
  }

  /** Calls waiting for an answer, in every placement. */
  get size(): number {
    let size = this.#current.peer.pendingCount;
    for (const peer of this.#earlier.values()) size += peer.pendingCount;
    return size;
  }

  /** The error of a retired module, which later calls get at once. */
  get retiredWith(): ToolCallError | undefined {
    return this.#retiredWith;
  }

  /** The placement the current runtime joined with (0 while none has). */
  get placement(): number {
    return this.#current.placement;
  }

  /** Whether the current runtime has joined (calls are sent at once). */
  get joined(): boolean {
    return this.#current.wire.attached;
  }

  /**
   * Calls `tool` with `args` (undefined = no argument); `answer` hears the outcome, never in
   * this turn. Fails at once (a turn later) when the module is retired or gone, or the
   * arguments cannot be sent.
   */
  call(tool: string, args: unknown, answer: PendingCall): CallTicket {
    const gone = this.#retiredWith ?? this.#endedWith;
    if (gone !== undefined) {
      queueMicrotask(() => answer.reject(gone));
      return NOT_SENT;
    }
    const { peer } = this.#current;
    try {
      const id = peer.call("call", args === undefined ? { tool } : { tool, args }, answer);
      return new Ticket(peer, id);
    } catch (error) {
      const unsendable = new ToolCallError(
        "InvalidToolInput",
        `Cannot send arguments to "${this.#options.name}.${tool}": not JSON: ${messageOf(error)}`,
      );
      queueMicrotask(() => answer.reject(unsendable));
      return NOT_SENT;
    }
  }

  /**
   * The module's runtime joined with `placement` on `wire`: the calls waiting go out. False for
   * a stale placement (one it has left already).
   */
  join(wire: Transport, placement: number): boolean {
    if (this.#endedWith !== undefined || placement <= this.#current.placement) return false;
    if (this.#current.wire.attached) this.#leave();
    this.#current.placement = placement;
    this.#current.wire.attach(wire);
    return true;
  }

  /**
   * The current runtime is being ended (its Worker goes): calls sent to it wait for the verdict
   * ({@linkcode restarted}, {@linkcode end}); later calls wait for the next runtime to join.
   */
  detach(): void {
    if (this.#current.wire.attached) this.#leave();
  }

  /**
   * The module left the runtime of placement `placement` (and every one before): the calls
   * sent there that are still unanswered never will be, and fail with `error`.
   */
  restarted(placement: number, error: ToolCallError): void {
    for (const [at, peer] of this.#earlier) {
      if (at > placement) continue;
      this.#earlier.delete(at);
      peer.failPending(error);
      peer.close("the module moved");
    }
    const current = this.#current;
    if (current.wire.attached && current.placement <= placement) {
      this.#current = this.#placement(current.placement);
      current.peer.failPending(error);
      current.peer.close("the module moved");
    }
  }

  /** Fails every waiting and later call with `NamespaceUnavailable` and `message`. */
  retire(message: string): void {
    this.#retiredWith ??= new ToolCallError("NamespaceUnavailable", message);
    this.failAll(this.#retiredWith);
  }

  /** The module is gone for good: every waiting and later call fails with `error`. */
  end(error: ToolCallError): void {
    this.#endedWith ??= error;
    this.failAll(error);
    this.#current.peer.close("the module is gone");
    for (const peer of this.#earlier.values()) peer.close("the module is gone");
    this.#earlier.clear();
  }

  /** Fails every waiting call with `error` (the retirement's, when retired). */
  failAll(error: ToolCallError): void {
    const reason = this.#retiredWith ?? error;
    this.#current.peer.failPending(reason);
    for (const peer of this.#earlier.values()) peer.failPending(reason);
  }

  /** Resolves when no call waits any more, `gone()` says the runtime ended, or after `maxMs`. */
  async drained(maxMs: number, gone: () => boolean): Promise<void> {
    const clock = this.#options.clock ?? systemClock;
    const end = clock.now() + maxMs;
    while (this.size > 0 && !gone() && clock.now() < end) {
      const peers = [this.#current.peer, ...this.#earlier.values()];
      await settlesWithin(Promise.all(peers.map((peer) => peer.idle())), end - clock.now());
    }
  }

  /** The current placement's runtime went: its calls wait for the verdict. */
  #leave(): void {
    const left = this.#current;
    this.#earlier.set(left.placement, left.peer);
    this.#current = this.#placement(left.placement);
  }

  #placement(after = 0): Placement {
    const wire = new DeferredTransport();
    const peer: MessagePeer<PendingCall> = new MessagePeer<PendingCall>(wire, {
      remoteError: toolError,
      // Calls sent to a runtime that went wait for the verdict (how it ended, or `restarted`).
      holdPendingOnGone: true,
    });
    const placement: Placement = { peer, wire, placement: after };
    peer.onClose(() => {
      // Its link closed without the module being moved or ended yet: later calls wait for the
      // next runtime, these for the verdict.
      if (this.#current === placement && wire.attached) this.#leave();
    });
    const onNotice = this.#options.onNotice;
    if (onNotice !== undefined) peer.onNotification(onNotice);
    return placement;
  }
}

/** A tool's failure as the gateway reports it: a `ToolError` keeping the tool's own stack. */
function toolError(error: WireError): ToolCallError {
  const data = (error.data ?? {}) as ThrownData;
  const remote = new Error(error.message);
  remote.name = typeof data.name === "string" ? data.name : "Error";
  if (typeof data.stack === "string") remote.stack = data.stack;
  return new ToolCallError("ToolError", error.message, { cause: remote });
}

/**
 * One `tools/call` as the gateway serves it: the sink its gateway call streams into (progress
 * notifications, log messages for a 2025 client that set a level), and the calls an `ask`
 * policy holds meanwhile. A 2025 client is asked about a held call by elicitation while the
 * call goes on (or told the `gateway approve` command in a log message); a 2026-07-28 client
 * that can elicit gets the held calls back as an input-required result, and one that cannot is
 * told the command in a progress message. Cancelling the request cancels the call until the
 * turn lets go of it (`release`), which an input-required answer does: the run goes on.
 * @module
 */

import type { InputResponses, ServerContext } from "@modelcontextprotocol/server";
import type { PendingApproval } from "../protocol/wire_views.ts";
import type { GatewayCall, NotificationSink } from "./gateway_call.ts";
import type { McpSession } from "./mcp_session.ts";
import { isLogLevel, LOG_LEVELS, type LogLevel } from "../protocol/mcp_log_levels.ts";
import {
  declaredCapabilities,
  hostRoundOf,
  type HostRoundParams,
  requestLogLevel,
} from "./host_round.ts";

/** How long after a call's last notification its answer may follow (see `settle`). */
const NOTIFICATION_LEAD_MS = 5;
/** Progress messages are cut to this many characters. */
const MESSAGE_LIMIT = 500;

/** The sentence a held call is announced with. */
export function heldCallText(pending: PendingApproval): string {
  return `${pending.namespace}.${pending.tool}(${pending.args}) is held by policy ${pending.rule}`;
}

/** The command that answers a held call outside MCP. */
function approveCommand(pending: PendingApproval): string {
  const command = `gateway approve ${pending.runId}`;
  return `answer with ${command} (or ${command} --deny)`;
}

/** The sink and held-call bookkeeping of one `tools/call`. */
export class CallTurn implements NotificationSink {
  /** The tool called. */
  readonly toolName: string;
  /** A retry's answers to the input requests of the previous round (2026-07-28). */
  readonly inputResponses: InputResponses | undefined;
  /** A retry's verified `requestState` payload (2026-07-28), undefined on a first call. */
  readonly requestState: unknown;
  readonly #session: McpSession;
  readonly #ctx: ServerContext;
  readonly #call: GatewayCall;
  readonly #onError: (message: string) => void;
  readonly #progressToken: string | number | undefined;
  readonly #abort = new AbortController();
  readonly #unlink: () => void;
  #progress = 0;
  /** How many progress notifications this call sent. */
  #sentProgress = 0;
  /** When this call last sent a notification (performance.now()). */
  #lastSent = -Infinity;
  #released = false;
  /** Held calls waiting to be put to a 2026-07-28 client, and who waits for them. */
  readonly #held: PendingApproval[] = [];
  #wake: (() => void) | null = null;

  constructor(
    session: McpSession,
    ctx: ServerContext,
    toolName: string,
    call: GatewayCall,
    onError: (message: string) => void,
  ) {
    this.toolName = toolName;
    this.inputResponses = ctx.mcpReq.inputResponses as InputResponses | undefined;
    this.requestState = ctx.mcpReq.requestState();
    this.#session = session;
    this.#ctx = ctx;
    this.#call = call;
    this.#onError = onError;
    const token = ctx.mcpReq._meta?.progressToken;
    this.#progressToken = typeof token === "string" || typeof token === "number"
      ? token
      : undefined;
    const abort = () => this.#abort.abort(ctx.mcpReq.signal.reason);
    if (ctx.mcpReq.signal.aborted) abort();
    ctx.mcpReq.signal.addEventListener("abort", abort, { once: true });
    this.#unlink = () => ctx.mcpReq.signal.removeEventListener("abort", abort);
  }

  /** Aborted when the client cancels the request, until the turn is released. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Whether a 2026-07-28 client can be asked about held calls in an input-required result. */
  get asksInBand(): boolean {
    return this.#session.era === "modern" && "elicitation" in declaredCapabilities(this.#ctx);
  }

  /** True when the client asked for progress or log messages, so output is worth sending. */
  wantsOutput(): boolean {
    return this.#progressToken !== undefined ||
      (this.#session.era === "legacy" && this.#session.wantsLogs());
  }

  /** Receives the gateway's notifications for this call. */
  notify(method: string, params: unknown): void {
    if (this.#released) return;
    const p = params as Record<string, unknown>;
    if (method === "run.approval") {
      this.#onHeld(params as PendingApproval);
    } else if (method === "run.output") {
      const stream = String(p.stream);
      this.#log(stream === "stderr" ? "warning" : "info", `run.${stream}`, String(p.text));
      this.#advance(`${stream}: ${String(p.text).trimEnd()}`);
    } else if (method === "upstream.log") {
      this.#relayLog(p);
    } else if (method === "upstream.progress") {
      this.#relayProgress(p);
    } else if (method === "run.progress" || method === "run.call") {
      const where = p.namespace ? `${String(p.namespace)}.${String(p.tool)}` : String(p.tool);
      const message = `${where}: ${p.message ?? `${p.progress}${p.total ? `/${p.total}` : ""}`}`;
      this.#log("debug", "run.progress", message);
      this.#advance(message);
    }
  }

  /** What the host declared on this request, for an upstream that asks it questions. */
  host(): HostRoundParams {
    return hostRoundOf(this.#session, this.#ctx);
  }

  /**
   * An upstream's log message during the call, sent with it to a host that asked for that
   * level (a 2025 session's `logging/setLevel`, a 2026-07-28 request's envelope).
   */
  #relayLog(p: Record<string, unknown>): void {
    const level = p.level;
    const wanted = requestLogLevel(this.#session, this.#ctx);
    if (!isLogLevel(level) || wanted === undefined) return;
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(wanted)) return;
    this.#send("notifications/message", {
      level,
      ...(typeof p.logger === "string" ? { logger: p.logger } : {}),
      data: p.data,
    });
  }

  /**
   * An upstream's progress during the call: its own values when they go forward (the host sees
   * the server's progress as the server reported it), else the next step of the call's count.
   */
  #relayProgress(p: Record<string, unknown>): void {
    const where = p.namespace ? `${String(p.namespace)}.${String(p.tool)}` : String(p.tool);
    const count = `${where}: ${p.progress}${p.total ? `/${p.total}` : ""}`;
    // The upstream's own words when it sent some, else where the call stands.
    const message = typeof p.message === "string" ? p.message : count;
    this.#log(
      "debug",
      "run.progress",
      typeof p.message === "string" ? `${where}: ${message}` : count,
    );
    const value = typeof p.progress === "number" ? p.progress : undefined;
    const forward = value !== undefined &&
      (value > this.#progress || (this.#sentProgress === 0 && value >= this.#progress));
    this.#advance(
      message,
      forward && typeof p.total === "number" ? p.total : undefined,
      forward ? value : undefined,
    );
  }

  /**
   * Waits for held calls to put to the client in band; never resolves for a client that
   * cannot be asked that way (the race against the call decides).
   */
  async nextHeld(): Promise<PendingApproval[]> {
    while (this.#held.length === 0) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    // Calls held together (Promise.all in a script) go out in one answer.
    await new Promise((resolve) => setTimeout(resolve, 0));
    return this.#held.splice(0);
  }

  /** Held calls already put to the client in an earlier round are not asked again. */
  skipAsks(ids: readonly string[]): void {
    for (const id of ids) this.#session.firstAsk(id);
  }

  /**
   * Lets go of the call: it goes on without this request (an input-required answer), so
   * cancelling or ending the request no longer cancels it, and its notifications stop.
   */
  release(): void {
    this.#released = true;
    this.#unlink();
  }

  /** Ends the turn: the request was answered. */
  end(): void {
    this.#unlink();
  }

  /**
   * The MCP SDK's 2025 client runs a notification's handler a microtask after reading it, a
   * response's at once: a progress notification read in the same chunk as its call's response
   * is dropped as late. A call answers a moment after its last notification.
   */
  settle(): Promise<void> {
    const wait = this.#lastSent + NOTIFICATION_LEAD_MS - performance.now();
    return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
  }

  #send(method: string, params: Record<string, unknown>): void {
    this.#lastSent = performance.now();
    this.#ctx.mcpReq.notify({ method, params }).catch(() => undefined);
  }

  /** Log messages are 2025-era only (logging is deprecated from 2026-07-28). */
  #log(level: LogLevel, logger: string, data: unknown): void {
    if (this.#session.era !== "legacy" || !this.#session.logs(level)) return;
    this.#send("notifications/message", { level, logger, data });
  }

  #advance(message: string, total?: number, value?: number): void {
    if (this.#progressToken === undefined) return;
    this.#progress = value ?? this.#progress + 1;
    this.#sentProgress += 1;
    this.#send("notifications/progress", {
      progressToken: this.#progressToken,
      progress: this.#progress,
      ...(total !== undefined ? { total } : {}),
      message: message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT)}…` : message,
    });
  }

  #onHeld(pending: PendingApproval): void {
    if (!this.#session.firstAsk(pending.id)) return;
    if (this.asksInBand) {
      this.#held.push(pending);
      this.#wake?.();
      this.#wake = null;
      return;
    }
    if (this.#session.era === "legacy") {
      this.#askByElicitation(pending).catch((error) =>
        // The host went away or refused: the call stays held until answered another way
        // (gateway approve, the dashboard) or its time runs out.
        this.#onError(`cannot ask the MCP host about ${pending.id}: ${String(error)}`)
      );
      return;
    }
    this.#advance(`waiting for approval: ${heldCallText(pending)}: ${approveCommand(pending)}`);
  }

  /**
   * Asks a 2025 host about a held call through elicitation when it supports it (accept with
   * allow=true allows, decline denies, cancel leaves it held), otherwise with a log message
   * naming the `gateway approve` command.
   */
  async #askByElicitation(pending: PendingApproval): Promise<void> {
    if (this.#session.server.getClientCapabilities()?.elicitation) {
      const answer = await this.#ctx.mcpReq.elicitInput({
        message: `${heldCallText(pending)}. Allow it?`,
        requestedSchema: approvalSchema(pending),
      });
      if (answer.action !== "cancel") {
        await this.#call("approval.respond", {
          runId: pending.id,
          allow: answer.action === "accept" && answer.content?.allow === true,
          by: "mcp:elicitation",
        });
        return;
      }
    }
    const text = `waiting for approval: ${heldCallText(pending)}: ${approveCommand(pending)}`;
    if (this.#session.admits("warning")) {
      this.#send("notifications/message", { level: "warning", logger: "gateway", data: text });
    }
    this.#advance(text);
  }
}

/** The form a host answers a held call with: one `allow` checkbox. */
export function approvalSchema(pending: PendingApproval): {
  type: "object";
  properties: Record<string, { type: "boolean"; title: string; description: string }>;
  required: string[];
} {
  return {
    type: "object",
    properties: {
      allow: {
        type: "boolean",
        title: "Allow",
        description: `Allow ${pending.namespace}.${pending.tool}`,
      },
    },
    required: ["allow"],
  };
}

/**
 * Calls an `ask` policy holds, put to a 2026-07-28 client in band: each held call becomes one
 * `elicitation/create` input request (an `allow` checkbox) keyed by the held call's id, and the
 * client's answers go back as `approval.respond`. A run whose call is held answers its
 * `tools/call` with an input-required result while it goes on; the retry carries the answers and
 * a signed state naming the run, answers them and follows the run with `wait` — which any
 * instance on the same database can do, so the retry may land on another instance.
 * @module
 */

import {
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  type InputResponses,
} from "@modelcontextprotocol/server";
import type { PendingApproval } from "../protocol/wire_views.ts";
import { approvalSchema, CallTurn, heldCallText } from "./call_turn.ts";
import { ArgumentError } from "./code_mode_tools.ts";
import type { GatewayCall } from "./gateway_call.ts";

/** What the signed `requestState` of a held run carries. */
export interface HeldRunState {
  /** The run whose calls are held. */
  runId: string;
  /** The code-mode tool that started it, so the state cannot resume another tool's call. */
  tool: string;
  /** The held calls this round asked about (their ids, the input request keys). */
  held: string[];
}

/**
 * The held-run state a retry carries (already verified by the server's codec), or undefined
 * for a first call. A state minted for another tool is the caller's mistake.
 */
export function heldRunState(state: unknown, tool: string): HeldRunState | undefined {
  if (state === undefined) return undefined;
  const s = state as Partial<HeldRunState> | null;
  if (
    typeof s !== "object" || s === null || typeof s.runId !== "string" ||
    typeof s.tool !== "string" || !Array.isArray(s.held)
  ) {
    throw new ArgumentError("requestState does not name a held run: call the tool afresh");
  }
  if (s.tool !== tool) {
    throw new ArgumentError(
      `requestState belongs to a call of "${s.tool}", not "${tool}": retry that tool with it`,
    );
  }
  return { runId: s.runId, tool: s.tool, held: s.held.filter((h) => typeof h === "string") };
}

/** Signs a state into the opaque `requestState` string. */
export type MintState = (state: HeldRunState) => Promise<string>;

/** The gateway methods that start or follow a run, whose held calls are asked about. */
const RUN_METHODS = new Set(["exec", "run", "wait"]);

/** An input-required answer a tool handler gives instead of a result. */
export class NeedsInput extends Error {
  /** What the client gets. */
  readonly result: InputRequiredResult;
  constructor(result: InputRequiredResult) {
    super("the call waits for the client's input");
    this.name = "NeedsInput";
    this.result = result;
  }
}

/** The input requests that ask about `held`, keyed by each held call's id. */
export function heldInputRequests(
  held: readonly PendingApproval[],
): Record<string, ReturnType<typeof inputRequired.elicit>> {
  return Object.fromEntries(
    held.map((pending) => [
      pending.id,
      inputRequired.elicit({
        message: `${heldCallText(pending)}. Allow it?`,
        requestedSchema: approvalSchema(pending),
      }),
    ]),
  );
}

/**
 * Answers the held calls `keys` from the client's `responses`: accept with allow=true allows,
 * accept with allow=false or decline denies, cancel or no answer leaves the call held (it is
 * answered another way or runs out of time). Returns the ids left held.
 */
export async function answerHeld(
  call: GatewayCall,
  keys: readonly string[],
  responses: InputResponses | undefined,
): Promise<string[]> {
  const left: string[] = [];
  for (const id of keys) {
    const view = inputResponse(responses, id);
    if (view.kind !== "elicit" || view.action === "cancel") {
      left.push(id);
      continue;
    }
    const content = view.content as Record<string, unknown> | undefined;
    await call("approval.respond", {
      runId: id,
      allow: view.action === "accept" && content?.allow === true,
      by: "mcp:input-required",
    }).catch((error: unknown) => {
      // Answered meanwhile elsewhere (gateway approve, the dashboard): nothing left to answer.
      if (!(error instanceof Error) || !/is waiting for approval/.test(error.message)) throw error;
    });
  }
  return left;
}

/**
 * Wraps `call` so a run started (or resumed) for a 2026-07-28 client that can elicit races its
 * held calls: the first held call ends the request with {@linkcode NeedsInput}, and the run
 * goes on. A turn resumed from a signed state answers the held calls and follows the run with
 * `wait` instead of starting another.
 */
export function withHeldCallRounds(call: GatewayCall, mint: MintState): GatewayCall {
  return async (method, params, sink) => {
    if (!(sink instanceof CallTurn) || !RUN_METHODS.has(method) || !sink.asksInBand) {
      return await call(method, params, sink);
    }
    const turn = sink;
    const state = heldRunState(turn.requestState, turn.toolName);
    let running: Promise<unknown>;
    if (state) {
      const left = await answerHeld(call, state.held, turn.inputResponses);
      turn.skipAsks(left);
      running = call("wait", { runId: state.runId }, turn);
    } else {
      running = call(method, params, turn);
    }
    const first = await Promise.race([
      running.then((value) => ({ done: value })),
      turn.nextHeld().then((held) => ({ held })),
    ]);
    if ("done" in first) return first.done;
    // The run goes on without this request; its answer is in history and `wait`.
    turn.release();
    running.catch(() => undefined);
    const held = first.held;
    throw new NeedsInput(inputRequired({
      inputRequests: heldInputRequests(held),
      requestState: await mint({
        runId: held[0]!.runId,
        tool: turn.toolName,
        held: held.map((p) => p.id),
      }),
    }));
  };
}

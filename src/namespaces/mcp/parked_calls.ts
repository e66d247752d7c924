/**
 * The calls of a 2025 upstream that wait for a host's answer. A 2025 server asks its questions
 * (`elicitation/create`) as requests of its own in the middle of a call, and waits; a host the
 * namespace is served to as itself answers in rounds instead (an input-required answer, then
 * the call again with the answers). So the upstream call is parked: the round that started it
 * answers the host with the server's question and a `requestState` naming the parked call, the
 * call goes on upstream, and the host's next round (the same tool, the answers, that state)
 * answers the server's question and waits for what the call does next — its result or another
 * question. The state is an unguessable id held in this process: a round that reaches another
 * gateway instance, or comes after the call ended, is refused as an invalid or expired state.
 * @module
 */

import {
  INPUT_REQUIRED,
  type InputRequiredAnswer,
  ToolCallError,
  type ToolCallResult,
} from "../namespace.ts";
import type { AnswerInput } from "./upstream_question.ts";

/** The prefix of a parked call's `requestState`. */
const STATE_PREFIX = "gateway-parked:";

/** How long the outcome of a call that ended while nobody waited is kept for the next round. */
const UNCLAIMED_MS = 60_000;

/** One question of the server waiting for the host's answer. */
interface Question {
  request: { method: string; params?: unknown };
  resolve(response: unknown): void;
}

/** A call under way upstream whose questions go to a host in rounds. */
class ParkedCall {
  readonly id = crypto.randomUUID();
  readonly tool: string;
  /** The upstream call's own signal: rounds come and go, the call goes on. */
  readonly controller = new AbortController();
  readonly #questions = new Map<string, Question>();
  /** Keys of questions not yet put to the host, oldest first. */
  #unasked: string[] = [];
  #outcome: { result: ToolCallResult } | { error: unknown } | null = null;
  #wake: (() => void) | null = null;
  #next = 1;

  constructor(tool: string) {
    this.tool = tool;
  }

  /** Whether the upstream call has ended. */
  get ended(): boolean {
    return this.#outcome !== null;
  }

  /** The answerer the upstream call asks with: its questions wait for the host. */
  readonly ask: AnswerInput = (requests) => {
    const keys = Object.keys(requests);
    return Promise.all(keys.map((key) =>
      new Promise<unknown>((resolve) => {
        const request = requests[key] as { method?: unknown; params?: unknown };
        const own = `q${this.#next++}`;
        this.#questions.set(own, {
          request: {
            method: String(request?.method),
            ...(request?.params === undefined ? {} : { params: request.params }),
          },
          resolve,
        });
        this.#unasked.push(own);
        this.#signal();
      })
    )).then((answers) => Object.fromEntries(keys.map((key, i) => [key, answers[i]])));
  };

  /** The upstream call settled. */
  settle(outcome: { result: ToolCallResult } | { error: unknown }): void {
    this.#outcome = outcome;
    this.#signal();
  }

  /** Gives the host's answers to the questions they name; unanswered ones are asked again. */
  answer(responses: Record<string, unknown> | undefined): void {
    for (const [key, question] of this.#questions) {
      if (this.#unasked.includes(key)) continue;
      if (responses !== undefined && key in responses) {
        this.#questions.delete(key);
        question.resolve(responses[key]);
      } else {
        this.#unasked.push(key);
      }
    }
  }

  /**
   * Waits for the call's next turn: its result, its failure, or questions for the host (an
   * input-required answer naming this call). Aborting `signal` (the host cancelled the round)
   * cancels the call.
   */
  async next(signal: AbortSignal): Promise<ToolCallResult> {
    const cancel = () => this.controller.abort(signal.reason);
    if (signal.aborted) cancel();
    signal.addEventListener("abort", cancel, { once: true });
    try {
      while (true) {
        const outcome = this.#outcome;
        if (outcome !== null) {
          if ("error" in outcome) throw outcome.error;
          return outcome.result;
        }
        if (this.#unasked.length > 0) return this.#asking();
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  }

  #asking(): ToolCallResult {
    const inputRequests: Record<string, unknown> = {};
    for (const key of this.#unasked.splice(0)) {
      inputRequests[key] = this.#questions.get(key)?.request;
    }
    const raw: InputRequiredAnswer = {
      content: [],
      resultType: INPUT_REQUIRED,
      inputRequests,
      requestState: `${STATE_PREFIX}${this.id}`,
    };
    return { value: raw, raw };
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}

/** The parked calls of one namespace. */
export class ParkedCalls {
  readonly #calls = new Map<string, ParkedCall>();

  /** How many calls are parked (for tests: nothing is left behind). */
  get size(): number {
    return this.#calls.size;
  }

  /** Whether `requestState` names a parked call (rather than being an upstream's own state). */
  static names(requestState: string | undefined): boolean {
    return requestState?.startsWith(STATE_PREFIX) === true;
  }

  /**
   * One host round of a call of `tool`: a first round starts the call with `send` (given the
   * answerer its questions go to, and the call's own signal); a round whose `requestState`
   * names a parked call answers its questions with `responses`. Either way, resolves with the
   * call's result or with its next questions (an input-required answer), and rejects with its
   * failure; a state that names no parked call of `tool` is refused as the SDK's server
   * refuses a bad state (`-32602`, "Invalid or expired requestState").
   */
  round(
    tool: string,
    round: { requestState?: string; inputResponses?: Record<string, unknown> },
    signal: AbortSignal,
    send: (answer: AnswerInput, signal: AbortSignal) => Promise<ToolCallResult>,
  ): Promise<ToolCallResult> {
    let call: ParkedCall;
    if (round.requestState !== undefined) {
      const found = this.#calls.get(round.requestState.slice(STATE_PREFIX.length));
      if (found === undefined || found.tool !== tool || !ParkedCalls.names(round.requestState)) {
        return Promise.reject(expiredState(tool));
      }
      call = found;
      call.answer(round.inputResponses);
    } else {
      call = new ParkedCall(tool);
      this.#calls.set(call.id, call);
      send(call.ask, call.controller.signal).then(
        (result) => call.settle({ result }),
        (error) => call.settle({ error }),
      ).finally(() => {
        // The outcome waits a while for a round that has not come yet.
        const timer = setTimeout(() => this.#calls.delete(call.id), UNCLAIMED_MS);
        Deno.unrefTimer(timer);
      });
    }
    return call.next(signal).finally(() => {
      if (call.ended) this.#calls.delete(call.id);
    });
  }
}

function expiredState(tool: string): ToolCallError {
  const message = "Invalid or expired requestState";
  return new ToolCallError(
    "ToolError",
    `${message}: no call of "${tool}" waits for an answer with it (it ended, or another ` +
      "gateway instance holds it): call the tool again without it",
    { upstreamError: { code: -32602, message, data: { reason: "invalid_request_state" } } },
  );
}

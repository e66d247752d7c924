/**
 * Which call an upstream's question belongs to. A question arrives apart from the call that
 * caused it: a 2026 `input_required` result is fulfilled inside the SDK's `callTool`, and a
 * 2025 server sends `elicitation/create` as a request of its own. Calls through the SDK run in
 * an async context carrying their {@linkcode AnswerInput}, so a question the SDK hands over in
 * that context finds its call; otherwise (a 2025 stdio server's request arrives from the pipe,
 * outside any call) the question goes to the one call in flight, and is declined when several
 * calls are, since nobody can tell which of them asked.
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { AnswerInput } from "./upstream_question.ts";

/** One call's answerer (undefined: nobody can be asked for it). */
interface Entry {
  answer: AnswerInput | undefined;
}

/** The calls in flight on one connection and their answerers. */
export class CallQuestions {
  readonly #context = new AsyncLocalStorage<Entry>();
  readonly #inFlight = new Set<Entry>();
  readonly #direct: () => readonly (AnswerInput | undefined)[];

  /** `direct` lists the answerers of the calls in flight outside the SDK (the stdio fast path). */
  constructor(direct: () => readonly (AnswerInput | undefined)[] = () => []) {
    this.#direct = direct;
  }

  /** Runs `call` (an SDK call) with `answer` answering the questions it causes. */
  run<T>(answer: AnswerInput | undefined, call: () => Promise<T>): Promise<T> {
    const entry = { answer };
    this.#inFlight.add(entry);
    return this.#context.run(entry, call).finally(() => this.#inFlight.delete(entry));
  }

  /**
   * The answerer for a question arriving now: the calling context's, else the one call in
   * flight's; `ambiguous` when several calls are in flight outside any context, `none` when
   * no call is.
   */
  current(): Entry | "ambiguous" | "none" {
    const inContext = this.#context.getStore();
    if (inContext !== undefined) return inContext;
    const direct = this.#direct();
    const count = this.#inFlight.size + direct.length;
    if (count === 0) return "none";
    if (count > 1) return "ambiguous";
    return this.#inFlight.size === 1 ? [...this.#inFlight][0]! : { answer: direct[0] };
  }
}

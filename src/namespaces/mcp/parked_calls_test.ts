import assert from "node:assert/strict";
import { ParkedCalls } from "./parked_calls.ts";
import { isInputRequiredAnswer, ToolCallError, type ToolCallResult } from "../namespace.ts";
import type { AnswerInput } from "./upstream_question.ts";

const QUESTION = { method: "elicitation/create", params: { message: "Name?" } };

function result(text: string): ToolCallResult {
  const raw = { content: [{ type: "text", text }] };
  return { value: text, raw };
}

/** An upstream call that asks once, then answers with the name it was told. */
function askingCall(seen: { signal?: AbortSignal }) {
  return async (answer: AnswerInput, signal: AbortSignal): Promise<ToolCallResult> => {
    seen.signal = signal;
    const responses = await answer({ question: QUESTION });
    const reply = responses.question as { content: { name: string } };
    return result(`hello ${reply.content.name}`);
  };
}

Deno.test("ParkedCalls.round() answers a first round with the server's question and the next with the call's result", async () => {
  const parked = new ParkedCalls();
  const seen: { signal?: AbortSignal } = {};
  const first = await parked.round("greet", {}, new AbortController().signal, askingCall(seen));
  assert.ok(isInputRequiredAnswer(first.raw));
  const keys = Object.keys(first.raw.inputRequests ?? {});
  assert.equal(keys.length, 1);
  assert.deepEqual(first.raw.inputRequests?.[keys[0]!], QUESTION);
  assert.ok(ParkedCalls.names(first.raw.requestState));
  assert.equal(parked.size, 1);
  const second = await parked.round(
    "greet",
    {
      requestState: first.raw.requestState!,
      inputResponses: { [keys[0]!]: { action: "accept", content: { name: "Ada" } } },
    },
    new AbortController().signal,
    () => Promise.reject(new Error("a resumed call is not sent again")),
  );
  assert.equal(second.value, "hello Ada");
  assert.equal(parked.size, 0);
});

Deno.test("ParkedCalls.round() asks again a question the host left unanswered", async () => {
  const parked = new ParkedCalls();
  const first = await parked.round("greet", {}, new AbortController().signal, askingCall({}));
  assert.ok(isInputRequiredAnswer(first.raw));
  const again = await parked.round(
    "greet",
    { requestState: first.raw.requestState!, inputResponses: {} },
    new AbortController().signal,
    () => Promise.reject(new Error("not sent again")),
  );
  assert.ok(isInputRequiredAnswer(again.raw));
  assert.deepEqual(again.raw.inputRequests, first.raw.inputRequests);
});

Deno.test("ParkedCalls.round() refuses a state that names no parked call of the tool as the SDK refuses a bad state", async () => {
  const parked = new ParkedCalls();
  const first = await parked.round("greet", {}, new AbortController().signal, askingCall({}));
  assert.ok(isInputRequiredAnswer(first.raw));
  for (const [tool, state] of [["other", first.raw.requestState!], ["greet", "made-up"]]) {
    const error = await parked.round(
      tool!,
      { requestState: state! },
      new AbortController().signal,
      () => Promise.reject(new Error("not sent")),
    ).then(() => null, (e) => e);
    assert.ok(error instanceof ToolCallError, String(error));
    assert.equal(error.upstreamError?.code, -32602);
    assert.equal(error.upstreamError?.message, "Invalid or expired requestState");
  }
});

Deno.test("ParkedCalls.round() cancels the upstream call when the host cancels a round", async () => {
  const parked = new ParkedCalls();
  const seen: { signal?: AbortSignal } = {};
  const first = await parked.round("greet", {}, new AbortController().signal, askingCall(seen));
  assert.ok(isInputRequiredAnswer(first.raw));
  assert.equal(seen.signal?.aborted, false);
  const host = new AbortController();
  const waiting = parked.round(
    "greet",
    { requestState: first.raw.requestState!, inputResponses: {} },
    host.signal,
    () => Promise.reject(new Error("not sent")),
  );
  // The question is asked again at once; the next round is the one the host cancels.
  assert.ok(isInputRequiredAnswer((await waiting).raw));
  const cancelled = new AbortController();
  cancelled.abort(new Error("host went away"));
  await parked.round(
    "greet",
    { requestState: first.raw.requestState!, inputResponses: {} },
    cancelled.signal,
    () => Promise.reject(new Error("not sent")),
  );
  assert.equal(seen.signal?.aborted, true);
});

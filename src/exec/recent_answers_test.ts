import assert from "node:assert/strict";
import { rememberRecentAnswers } from "./recent_answers.ts";

function counting() {
  const calls: string[] = [];
  const answer = (text: string, flag: boolean): Promise<string> => {
    calls.push(`${flag}:${text}`);
    if (text === "crash") return Promise.reject(new Error("worker crashed"));
    return Promise.resolve(text.toUpperCase());
  };
  return { calls, answer };
}

const key = (text: string, flag: boolean) => text === "huge" ? null : `${flag}:${text}`;

Deno.test("rememberRecentAnswers: the same key is answered once; another key is another answer", async () => {
  const { calls, answer } = counting();
  const remembered = rememberRecentAnswers(answer, key);
  assert.equal(await remembered("a", true), "A");
  assert.equal(await remembered("a", true), "A");
  await remembered("a", false);
  await remembered("huge", true);
  await remembered("huge", true);
  assert.deepEqual(calls, ["true:a", "false:a", "true:huge", "true:huge"]);
});

Deno.test("rememberRecentAnswers: the least recently used answer goes first, and a failure is not kept", async () => {
  const { calls, answer } = counting();
  const remembered = rememberRecentAnswers(answer, key, 2);
  await remembered("a", true);
  await remembered("b", true);
  await remembered("a", true); // a is now the most recent
  await remembered("c", true); // b goes
  await remembered("a", true);
  await remembered("b", true);
  assert.deepEqual(calls, ["true:a", "true:b", "true:c", "true:b"]);
  await assert.rejects(remembered("crash", true), /worker crashed/);
  await assert.rejects(remembered("crash", true), /worker crashed/);
  assert.equal(calls.filter((c) => c === "true:crash").length, 2);
});

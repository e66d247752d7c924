import assert from "node:assert/strict";
import { RunReturns } from "./run_returns.ts";

const limits = { maxResultBytes: 100, maxAttachments: 2, maxAttachmentBytes: 1000, maxWarnings: 3 };

Deno.test("RunReturns keeps a small result as it is", () => {
  const returns = new RunReturns(limits);
  returns.setResult({ a: 1 });
  assert.deepEqual(returns.bounded("r1", { includeResult: true }).result, { a: 1 });
  assert.equal(returns.bounded("r1", { includeResult: false }).result, undefined);
});

Deno.test("RunReturns cuts a large result to a notice and its head, keeping the full value", () => {
  const returns = new RunReturns(limits);
  const value = "é".repeat(500);
  returns.setResult(value);
  const bounded = returns.bounded("r1", { includeResult: true });
  assert.equal(bounded.resultTruncated, true);
  assert.match(
    String(bounded.result),
    /^\[gateway: result truncated: \d+ of 1002 bytes .*history show r1\]\n"é/,
  );
  assert.equal(returns.fullResult, value);
});

Deno.test("RunReturns drops attachments past the count or byte budget and says so", () => {
  const returns = new RunReturns(limits);
  const image = (n: number) => ({
    type: "image" as const,
    data: "A".repeat(n),
    mimeType: "image/png",
  });
  returns.addAttachment(image(10));
  returns.addAttachment(image(2000));
  returns.addAttachment(image(10));
  returns.addAttachment(image(10));
  const bounded = returns.bounded("r1", { includeResult: true });
  assert.equal(bounded.attachments.length, 2);
  assert.match(bounded.warnings.at(-1) ?? "", /^\[gateway: 2 attachment\(s\) of \d+ bytes dropped/);
});

Deno.test("RunReturns keeps maxWarnings warnings, shortens long ones and counts the rest", () => {
  const returns = new RunReturns({ ...limits, maxWarningChars: 5 });
  for (const w of ["one", "two", "a long warning", "four", "five"]) returns.addWarning(w);
  assert.deepEqual(returns.bounded("r1", { includeResult: true }).warnings, [
    "one",
    "two",
    "a lon… [9 more characters]",
    "[gateway: 2 more warning(s) dropped: over exec.maxWarnings (3)]",
  ]);
});

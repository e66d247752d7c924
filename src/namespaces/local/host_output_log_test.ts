import assert from "node:assert/strict";
import { captureLogger } from "../../../test/support/capture_logger.ts";
import { HostOutputLog, printable } from "./host_output_log.ts";

Deno.test("printable() escapes control characters and drops colour codes", () => {
  assert.equal(printable("\u001b[31mred\u001b[0m"), "red");
  assert.equal(printable("a\rb\u001b]0;title\u0007"), "a\\u000db\\u001b]0;title\\u0007");
  assert.equal(printable("tab\tkept"), "tab\tkept");
  assert.match(printable("x".repeat(5_000)), /… \[3000 more characters\]$/);
});

Deno.test("HostOutputLog logs a flood of lines up to its window's share, then counts them", () => {
  const logger = captureLogger();
  const output = new HostOutputLog("tools/noisy.ts stdout", logger);
  for (let i = 0; i < 1_000; i++) output.line(`line ${i}`);
  const logged = logger.lines.filter((l) => l.includes("[tools/noisy.ts stdout] line"));
  assert.equal(logged.length, 200);
  assert.equal(output.tail.at(-1), "line 999");
  assert.equal(output.tail.length, 20);
});

import * as assert from "node:assert/strict";
import { join } from "node:path";
import { retryWhileDescriptorsExhausted } from "./descriptor_wait.ts";

const FIXTURE = new URL("./testdata/open_database_out_of_descriptors.ts", import.meta.url).pathname;

Deno.test("a failure while descriptors are plentiful is thrown at once, unretried", async () => {
  let attempts = 0;
  const logged: string[] = [];
  await assert.rejects(
    retryWhileDescriptorsExhausted(() => {
      attempts++;
      throw new Error("schema version 9 is newer than this gateway knows");
    }, { what: "the history database", log: (m) => logged.push(m), exhausted: () => false }),
    /schema version 9/,
  );
  assert.equal(attempts, 1);
  assert.deepEqual(logged, []);
});

Deno.test("a failure while descriptors are short is retried until the open works", async () => {
  let attempts = 0;
  const logged: Record<string, unknown>[] = [];
  const value = await retryWhileDescriptorsExhausted(() => {
    if (++attempts < 3) throw new Error("unable to open database file");
    return "open";
  }, {
    what: "the history database",
    log: (message, fields) => logged.push({ message, ...fields }),
    exhausted: () => true,
  });
  assert.equal(value, "open");
  assert.equal(attempts, 3);
  assert.deepEqual(logged.map((l) => [l.message, l.error, l.retryInMs]), [
    [
      "out of file descriptors while opening the history database; trying again",
      "unable to open database file",
      50,
    ],
    [
      "out of file descriptors while opening the history database; trying again",
      "unable to open database file",
      100,
    ],
  ]);
});

Deno.test("a shortage that outlasts maxWaitMs ends with the open's own error", async () => {
  let attempts = 0;
  await assert.rejects(
    retryWhileDescriptorsExhausted(() => {
      attempts++;
      throw new Error("unable to open database file");
    }, { what: "the history database", log: () => {}, exhausted: () => true, maxWaitMs: 120 }),
    /unable to open database file/,
  );
  // 50 ms, then 100 ms would pass 120 ms: two attempts.
  assert.equal(attempts, 2);
});

Deno.test("the real database open waits out a real EMFILE and succeeds once descriptors return", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command("sh", {
      args: [
        "-c",
        `ulimit -n 128 && exec "$0" run --allow-all --no-prompt --quiet "$1" "$2"`,
        Deno.execPath(),
        FIXTURE,
        join(dir, "gateway.db"),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.deepEqual(report, { sawShortage: true, retries: 1, opened: true });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

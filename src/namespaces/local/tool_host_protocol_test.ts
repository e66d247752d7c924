import assert from "node:assert/strict";
import {
  encodeMessage,
  parseRequest,
  parseResponse,
  readLines,
  readLinesFrom,
  SerialWriter,
  toWireError,
} from "./tool_host_protocol.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";
import { concatBytes } from "../../protocol/bytes.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((c) => encoder.encode(c)));
}

Deno.test("readLines() splits lines across chunks and skips blank ones", async () => {
  const lines: string[] = [];
  await readLines(streamOf("a\n\nb", "c\r\n", "\n", "last"), (l) => lines.push(l), {
    maxLineLength: 100,
  });
  assert.deepEqual(lines, ["a", "bc", "last"]);
});

Deno.test("readLines() drops an over-long line and keeps reading", async () => {
  const lines: string[] = [];
  const dropped: number[] = [];
  await readLines(
    streamOf("ok\n", "x".repeat(30), "x".repeat(30), "\nafter\n"),
    (l) => lines.push(l),
    { maxLineLength: 40, onOversized: (n) => dropped.push(n) },
  );
  assert.deepEqual(lines, ["ok", "after"]);
  assert.deepEqual(dropped, [60]);
});

Deno.test("readLines() decodes UTF-8 split between chunks", async () => {
  const bytes = new TextEncoder().encode("héllo\n");
  const lines: string[] = [];
  await readLines(
    ReadableStream.from([bytes.subarray(0, 2), bytes.subarray(2)]),
    (l) => lines.push(l),
    { maxLineLength: 100 },
  );
  assert.deepEqual(lines, ["héllo"]);
});

Deno.test("encodeMessage() frames a message between newlines so prior noise stays apart", () => {
  assert.equal(encodeMessage({ type: "cancel", id: 3 }), `\n{"type":"cancel","id":3}\n`);
});

Deno.test("parseResponse() accepts known messages and rejects noise", () => {
  assert.deepEqual(parseResponse(`{"type":"result","id":1,"ok":true,"value":2}`), {
    type: "result",
    id: 1,
    ok: true,
    value: 2,
  });
  assert.deepEqual(parseResponse(`{"type":"ready","exports":["a"]}`), {
    type: "ready",
    exports: ["a"],
  });
  for (
    const noise of ["hello", "{", `{"type":"result","id":"1","ok":true}`, `{"type":"x"}`, "[]"]
  ) {
    assert.equal(parseResponse(noise), undefined, noise);
  }
  assert.equal(parseResponse(`{"type":"result","id":1,"ok":false,"error":{}}`), undefined);
});

Deno.test("parseRequest() accepts calls and cancels only", () => {
  assert.deepEqual(parseRequest(`{"type":"call","id":1,"tool":"get","args":{"k":1}}`), {
    type: "call",
    id: 1,
    tool: "get",
    args: { k: 1 },
  });
  assert.deepEqual(parseRequest(`{"type":"cancel","id":1}`), { type: "cancel", id: 1 });
  assert.equal(parseRequest(`{"type":"call","id":1}`), undefined);
  assert.equal(parseRequest(`not json`), undefined);
});

Deno.test("toWireError() keeps name, message and stack, and stringifies non-errors", () => {
  const error = toWireError(new RangeError("too big"));
  assert.equal(error.name, "RangeError");
  assert.equal(error.message, "too big");
  assert.match(error.stack ?? "", /RangeError: too big/);
  assert.deepEqual(toWireError("plain"), { message: "plain" });
});

Deno.test("readLinesFrom() reads lines straight from a reader, across reads", async () => {
  const chunks = ["a\nb", "c\r\n\n", "x".repeat(50), "\nlast"].map((c) =>
    new TextEncoder().encode(c)
  );
  const reader = {
    read(buffer: Uint8Array): Promise<number | null> {
      const chunk = chunks.shift();
      if (chunk === undefined) return Promise.resolve(null);
      buffer.set(chunk);
      return Promise.resolve(chunk.length);
    },
  };
  const lines: string[] = [];
  const dropped: number[] = [];
  await readLinesFrom(reader, (l) => lines.push(l), {
    maxLineLength: 40,
    onOversized: (n) => dropped.push(n),
  });
  assert.deepEqual(lines, ["a", "bc", "last"]);
  assert.deepEqual(dropped, [50]);
});

/** A connection that takes at most `take` bytes per write, after a turn. */
function slowConnection(take: number) {
  const written: Uint8Array[] = [];
  let fail: Error | null = null;
  return {
    written,
    text: () => new TextDecoder().decode(concatBytes(written)),
    failNext: (error: Error) => (fail = error),
    write: async (bytes: Uint8Array): Promise<number> => {
      await Promise.resolve();
      if (fail !== null) throw fail;
      const part = bytes.slice(0, take);
      written.push(part);
      return part.length;
    },
  };
}

Deno.test("SerialWriter.write() writes lines whole and in order when the socket takes parts", async () => {
  const conn = slowConnection(5);
  const errors: unknown[] = [];
  const writer = new SerialWriter(conn, (error) => errors.push(error));
  const lines = Array.from({ length: 20 }, (_, i) => `{"id":${i},"v":"${"x".repeat(i)}"}\n`);
  for (const line of lines) writer.write(line);
  await pollUntil(
    "every line to be written",
    () => conn.text().length === lines.join("").length ? true : undefined,
  );
  assert.equal(conn.text(), lines.join(""));
  assert.deepEqual(errors, []);
});

Deno.test("SerialWriter.write() writes an idle line with one write and tells a failure", async () => {
  const conn = slowConnection(1024);
  const errors: unknown[] = [];
  const writer = new SerialWriter(conn, (error) => errors.push(error));
  writer.write("one\n");
  await pollUntil("the line to be written", () => conn.written.length === 1 ? true : undefined);
  assert.equal(conn.text(), "one\n");
  const broken = new Error("peer gone");
  conn.failNext(broken);
  writer.write("two\n");
  await pollUntil("the failure to be told", () => errors.length === 1 ? true : undefined);
  assert.equal(errors[0], broken);
});

import assert from "node:assert/strict";
import { RunChannelServer } from "./run_channel_server.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

async function connect(path: string): Promise<Deno.UnixConn> {
  return await Deno.connect({ transport: "unix", path });
}

async function readAll(conn: Deno.Conn): Promise<string> {
  const chunks: string[] = [];
  const buf = new Uint8Array(1024);
  const decoder = new TextDecoder();
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return chunks.join("");
    chunks.push(decoder.decode(buf.subarray(0, n)));
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("RunChannelServer.listen() hands over the runner with the token, then removes the socket", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-channel-" });
  const path = `${dir}/c.sock`;
  const channel = new RunChannelServer();
  const expectation = channel.listen(path, "right-token");
  try {
    assert.equal((Deno.statSync(path).mode ?? 0) & 0o777, 0o600);
    const wrong = await connect(path);
    await wrong.write(new TextEncoder().encode('{"t":"hello","token":"wrong"}\n'));
    assert.match(await readAll(wrong), /"t":"refused"/);
    wrong.close();
    const runner = await connect(path);
    await runner.write(new TextEncoder().encode('{"t":"hello","token":"right-token"}\n'));
    const connection = await expectation.connection;
    assert.equal(exists(path), false, "the socket file outlived the handshake");
    const got = new Promise((resolve) => connection.onMessage(resolve));
    await runner.write(new TextEncoder().encode('{"t":"warning","message":"hi"}\n'));
    assert.deepEqual(await got, { t: "warning", message: "hi" });
    connection.close();
    runner.close();
  } finally {
    expectation.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RunChannelServer bounds unidentified connections in number, bytes and time", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-channel-" });
  const path = `${dir}/c.sock`;
  const channel = new RunChannelServer({
    limits: { maxPending: 2, maxHelloBytes: 64, helloTimeoutMs: 200 },
  });
  const expectation = channel.listen(path, "token");
  const held: Deno.UnixConn[] = [];
  try {
    // Two silent connections are held; a third is closed at once.
    held.push(await connect(path), await connect(path));
    const third = await connect(path);
    assert.equal(await readAll(third), "");
    third.close();
    // A hello longer than the cap is refused, not buffered.
    const flood = await connect(path);
    await flood.write(new TextEncoder().encode("x".repeat(10_000))).catch(() => 0);
    assert.doesNotMatch(await readAll(flood), /"t":"run"/);
    flood.close();
    // Silent connections are closed at the hello deadline.
    for (const conn of held) assert.match(await readAll(conn), /refused|^$/);
    const runner = await connect(path);
    await runner.write(new TextEncoder().encode('{"t":"hello","token":"token"}\n'));
    (await expectation.connection).close();
    runner.close();
  } finally {
    for (const conn of held) {
      try {
        conn.close();
      } catch {
        // closed by the server
      }
    }
    expectation.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RunChannelServer connection writes lines whole and in order, a large one among them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-channel-" });
  const path = `${dir}/c.sock`;
  const expectation = new RunChannelServer().listen(path, "token");
  try {
    const runner = await connect(path);
    await runner.write(new TextEncoder().encode('{"t":"hello","token":"token"}\n'));
    const connection = await expectation.connection;
    // The 1 MB reply takes many socket writes; the replies sent after it wait their turn.
    const big = "x".repeat(1024 * 1024);
    connection.send({ t: "reply", id: 1, ok: true, value: "first" });
    connection.send({ t: "reply", id: 2, ok: true, value: big });
    for (let id = 3; id <= 50; id++) connection.send({ t: "reply", id, ok: true, value: id });
    const lines: { id: number; value: unknown }[] = [];
    let text = "";
    const buf = new Uint8Array(64 * 1024);
    while (lines.length < 50) {
      const n = await runner.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
      let at = text.indexOf("\n");
      while (at >= 0) {
        lines.push(JSON.parse(text.slice(0, at)));
        text = text.slice(at + 1);
        at = text.indexOf("\n");
      }
    }
    assert.deepEqual(lines.map((l) => l.id), Array.from({ length: 50 }, (_, i) => i + 1));
    assert.equal(lines[0]?.value, "first");
    assert.equal(lines[1]?.value, big);
    connection.close();
    runner.close();
  } finally {
    expectation.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RunChannelServer connection hands on every line of a chunk and lines split across writes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-channel-" });
  const path = `${dir}/c.sock`;
  const expectation = new RunChannelServer().listen(path, "token");
  try {
    const runner = await connect(path);
    const encoder = new TextEncoder();
    // The hello and the first messages in one write; a message split over two writes after.
    await runner.write(
      encoder.encode(
        '{"t":"hello","token":"token"}\n{"t":"warning","message":"a"}\n\n{"t":"warning","message":"b"}\n{"t":"warn',
      ),
    );
    const connection = await expectation.connection;
    const seen: string[] = [];
    connection.onMessage((m) => seen.push(m.t === "warning" ? m.message : m.t));
    await runner.write(encoder.encode('ing","message":"c"}\n'));
    await pollUntil("three warnings", () => seen.length === 3 ? true : undefined);
    assert.deepEqual(seen, ["a", "b", "c"]);
    runner.close();
    await connection.closed;
  } finally {
    expectation.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RunChannelServer connection is complete at the runner's end line, before the socket closes, and drops what follows", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-channel-" });
  const path = `${dir}/c.sock`;
  const expectation = new RunChannelServer().listen(path, "token");
  try {
    const runner = await connect(path);
    const encoder = new TextEncoder();
    await runner.write(encoder.encode('{"t":"hello","token":"token"}\n'));
    const connection = await expectation.connection;
    const seen: string[] = [];
    connection.onMessage((m) => seen.push(m.t === "warning" ? m.message : m.t));
    let complete = false;
    connection.closed.then(() => (complete = true));
    await runner.write(
      encoder.encode(
        '{"t":"warning","message":"in"}\n{"t":"end"}\n{"t":"warning","message":"late"}\n',
      ),
    );
    // The runner's socket is still open: only its end line can have completed the run.
    await connection.closed;
    assert.equal(complete, true);
    assert.deepEqual(seen, ["in"]);
    runner.close();
  } finally {
    expectation.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RunChannelServer connection closes on a message over the limit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-channel-" });
  const path = `${dir}/c.sock`;
  const logged: string[] = [];
  const expectation = new RunChannelServer({
    log: (m) => logged.push(m),
    limits: { maxMessageBytes: 1000 },
  }).listen(path, "token");
  try {
    const runner = await connect(path);
    await runner.write(new TextEncoder().encode('{"t":"hello","token":"token"}\n'));
    const connection = await expectation.connection;
    const seen: unknown[] = [];
    connection.onMessage((m) => seen.push(m));
    await runner.write(new TextEncoder().encode(`{"t":"warning","message":"${"x".repeat(5000)}`));
    await connection.closed;
    assert.deepEqual(seen, []);
    assert.ok(logged.some((m) => m.includes("exceeded the size limit")), logged.join("\n"));
    runner.close();
  } finally {
    expectation.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { RunChannelServer } from "./run_channel_server.ts";
import { FakeClock } from "../../test/support/fake_clock.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

const encoder = new TextEncoder();

async function connect(path: string): Promise<Deno.UnixConn> {
  return await Deno.connect({ transport: "unix", path });
}

/** Writes messages as JSON lines, as a runner would. */
function write(conn: Deno.Conn, text: string): Promise<number> {
  return conn.write(encoder.encode(text));
}

function hello(token: string): string {
  return `${JSON.stringify({ method: "hello", params: { token } })}\n`;
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

/** A channel listening in a fresh directory; removed after `body`. */
async function withChannel(
  channel: RunChannelServer,
  token: string,
  body: (path: string, expectation: ReturnType<RunChannelServer["listen"]>) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-channel-" });
  const path = `${dir}/c.sock`;
  const expectation = channel.listen(path, token);
  try {
    await body(path, expectation);
  } finally {
    expectation.cancel();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("RunChannelServer.listen() hands over the runner with the token, then removes the socket", async () => {
  await withChannel(new RunChannelServer(), "right-token", async (path, expectation) => {
    assert.equal((Deno.statSync(path).mode ?? 0) & 0o777, 0o600);
    const wrong = await connect(path);
    await write(wrong, hello("wrong"));
    assert.match(await readAll(wrong), /"method":"refused"/);
    wrong.close();
    const runner = await connect(path);
    await write(runner, hello("right-token"));
    const connection = await expectation.connection;
    assert.equal(exists(path), false, "the socket file outlived the handshake");
    const got = new Promise((resolve) => connection.peer.on("warning", resolve));
    await write(runner, '{"method":"warning","params":{"message":"hi"}}\n');
    assert.deepEqual(await got, { message: "hi" });
    connection.close();
    runner.close();
  });
});

Deno.test("RunChannelServer bounds unidentified connections in number, bytes and time", async () => {
  const clock = new FakeClock();
  const channel = new RunChannelServer({
    limits: { maxPending: 2, maxHelloBytes: 64, helloTimeoutMs: 200 },
    clock,
  });
  await withChannel(channel, "token", async (path, expectation) => {
    // Two silent connections are held; a third is closed at once.
    const held = [await connect(path), await connect(path)];
    const third = await connect(path);
    assert.equal(await readAll(third), "");
    third.close();
    // Silent connections are closed at the hello deadline, not before.
    await clock.advance(199);
    await write(held[0]!, "");
    await clock.advance(1);
    for (const conn of held) {
      assert.equal(await readAll(conn), "");
      conn.close();
    }
    // A hello longer than the cap is refused, not buffered.
    const flood = await connect(path);
    await write(flood, "x".repeat(10_000)).catch(() => 0);
    assert.doesNotMatch(await readAll(flood), /"run"/);
    flood.close();
    const runner = await connect(path);
    await write(runner, hello("token"));
    (await expectation.connection).close();
    runner.close();
  });
});

Deno.test("RunChannelServer connection writes messages whole and in order, a large one among them", async () => {
  await withChannel(new RunChannelServer(), "token", async (path, expectation) => {
    const runner = await connect(path);
    await write(runner, hello("token"));
    const { peer, close } = await expectation.connection;
    // The 1 MB message takes many socket writes; those sent after it wait their turn.
    const big = "x".repeat(1024 * 1024);
    peer.notify("n", { id: 1, value: "first" });
    peer.notify("n", { id: 2, value: big });
    for (let id = 3; id <= 50; id++) peer.notify("n", { id, value: id });
    const lines: { params: { id: number; value: unknown } }[] = [];
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
    assert.deepEqual(lines.map((l) => l.params.id), Array.from({ length: 50 }, (_, i) => i + 1));
    assert.equal(lines[0]?.params.value, "first");
    assert.equal(lines[1]?.params.value, big);
    close();
    runner.close();
  });
});

Deno.test("RunChannelServer connection hands on every message of a chunk and one split across writes", async () => {
  await withChannel(new RunChannelServer(), "token", async (path, expectation) => {
    const runner = await connect(path);
    // The hello and the first messages in one write; a message split over two writes after.
    await write(
      runner,
      `${hello("token")}{"method":"warning","params":{"message":"a"}}\n\n` +
        '{"method":"warning","params":{"message":"b"}}\n{"method":"warn',
    );
    const connection = await expectation.connection;
    const seen: string[] = [];
    connection.peer.on("warning", (params) => seen.push((params as { message: string }).message));
    await write(runner, 'ing","params":{"message":"c"}}\n');
    await pollUntil("three warnings", () => seen.length === 3 ? true : undefined);
    assert.deepEqual(seen, ["a", "b", "c"]);
    runner.close();
    await connection.closed;
  });
});

Deno.test("RunChannelServer connection is complete at the runner's $/end, before the socket closes, and drops what follows", async () => {
  await withChannel(new RunChannelServer(), "token", async (path, expectation) => {
    const runner = await connect(path);
    await write(runner, hello("token"));
    const connection = await expectation.connection;
    const seen: string[] = [];
    connection.peer.on("warning", (params) => seen.push((params as { message: string }).message));
    await write(
      runner,
      '{"method":"warning","params":{"message":"in"}}\n{"method":"$/end"}\n' +
        '{"method":"warning","params":{"message":"late"}}\n',
    );
    // The runner's socket is still open: only its end can have completed the run.
    await connection.closed;
    assert.deepEqual(seen, ["in"]);
    runner.close();
  });
});

Deno.test("RunChannelServer connection closes on a message over the limit", async () => {
  const logged: string[] = [];
  const channel = new RunChannelServer({
    log: (m) => logged.push(m),
    limits: { maxMessageBytes: 1000 },
  });
  await withChannel(channel, "token", async (path, expectation) => {
    const runner = await connect(path);
    await write(runner, hello("token"));
    const connection = await expectation.connection;
    const seen: unknown[] = [];
    connection.peer.on("warning", (m) => seen.push(m));
    await write(runner, `{"method":"warning","params":{"message":"${"x".repeat(5000)}`);
    await connection.closed;
    assert.deepEqual(seen, []);
    assert.ok(logged.some((m) => m.includes("over the size limit")), logged.join("\n"));
    runner.close();
  });
});

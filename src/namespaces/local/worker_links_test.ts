import assert from "node:assert/strict";
import { dirname } from "node:path";
import { captureLogger } from "../../../test/support/capture_logger.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";
import type { Transport } from "../../protocol/transport.ts";
import { type LinkedModule, type WorkerLink, WorkerLinks } from "./worker_links.ts";

/** A module that records what reaches it on its channel. */
function fakeModule(worker: number): LinkedModule & { received: unknown[]; link?: WorkerLink } {
  const module: LinkedModule & { received: unknown[]; link?: WorkerLink } = {
    worker,
    token: crypto.randomUUID(),
    received: [],
    joined(link, channel) {
      module.link = link;
      channel.start({ message: (message) => module.received.push(message), close: () => {} });
      return true;
    },
  };
  return module;
}

function join(module: LinkedModule | number, token: string, placement = 1) {
  const worker = typeof module === "number" ? module : module.worker;
  return { method: "join", params: { worker, token, placement } };
}

async function connect(links: WorkerLinks): Promise<{
  conn: Deno.UnixConn;
  send: (message: unknown) => Promise<void>;
}> {
  const conn = await Deno.connect({ transport: "unix", path: links.socketPath });
  const send = async (message: unknown) => {
    await conn.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  };
  return { conn, send };
}

Deno.test("WorkerLinks routes a joined module's messages; a later join for a gone module leaves the link", async () => {
  const logger = captureLogger();
  const links = new WorkerLinks(logger);
  const module = fakeModule(1);
  const gone = fakeModule(2);
  links.expect(module);
  links.expect(gone);
  links.forget(gone);
  const { conn, send } = await connect(links);
  try {
    await send(join(module, module.token));
    await send(join(gone, gone.token));
    await send({ worker: 1, id: 7, result: 3 });
    await pollUntil("the result routed", () => module.received.length === 1, { timeoutMs: 5_000 });
    assert.deepEqual(module.received, [{ worker: 1, id: 7, result: 3 }]);
    assert.equal(module.link?.closed, false);
    assert.ok(logger.lines.some((l) => /ignored a join for a module that is gone/.test(l)));
  } finally {
    conn.close();
    links.close();
  }
});

Deno.test("WorkerLinks: a Worker's first join for a module dropped meanwhile does not cut off its other modules", async () => {
  // A module that fails at import is dropped by the gateway while its Worker, which hosts
  // other modules too, is joining for it: the join must prove the connection, not close it.
  const logger = captureLogger();
  const links = new WorkerLinks(logger);
  const broken = fakeModule(1);
  const good = fakeModule(2);
  links.expect(broken);
  links.expect(good);
  links.forget(broken);
  const { conn, send } = await connect(links);
  try {
    await send(join(broken, broken.token));
    await send(join(good, good.token));
    await send({ worker: 2, id: 1, result: "pong" });
    await pollUntil("the good module's result routed", () => good.received.length === 1, {
      timeoutMs: 5_000,
    });
    assert.equal(good.link?.closed, false);
    assert.deepEqual(broken.received, []);
  } finally {
    conn.close();
    links.close();
  }
});

Deno.test("WorkerLinks refuses a first join with a token it never handed out", async () => {
  const logger = captureLogger();
  const links = new WorkerLinks(logger);
  const module = fakeModule(1);
  links.expect(module);
  const { conn, send } = await connect(links);
  try {
    await send(join(1, "forged"));
    assert.equal(await conn.read(new Uint8Array(8)), null);
    assert.ok(
      logger.lines.some((l) => /refused a connection: an unknown or used module token/.test(l)),
    );
  } finally {
    conn.close();
    links.close();
  }
});

Deno.test("WorkerLinks refuses a connection that sends anything but a valid join first", async () => {
  const logger = captureLogger();
  const links = new WorkerLinks(logger);
  const module = fakeModule(1);
  links.expect(module);
  try {
    for (const first of [{ worker: 1, id: 1, result: true }, "not json"]) {
      const { conn } = await connect(links);
      const line = typeof first === "string" ? first : JSON.stringify(first);
      await conn.write(new TextEncoder().encode(`${line}\n`));
      assert.equal(await conn.read(new Uint8Array(8)), null);
      conn.close();
    }
    assert.deepEqual(module.received, []);
    assert.ok(
      logger.lines.some((l) => /refused a connection: a message before a module token/.test(l)),
    );
    assert.ok(logger.lines.some((l) => /refused a connection: a line that is not JSON/.test(l)));
  } finally {
    links.close();
  }
});

Deno.test("WorkerLinks listens in a private directory, which close() removes", async () => {
  const links = new WorkerLinks(captureLogger());
  const dir = dirname(links.socketPath);
  assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
  assert.equal((await Deno.stat(links.socketPath)).mode! & 0o777, 0o600);
  links.close();
  await assert.rejects(() => Deno.stat(dir), Deno.errors.NotFound);
});

Deno.test("WorkerLinks takes lifecycle only from the host thread that presents the host's token, once", async () => {
  const logger = captureLogger();
  const links = new WorkerLinks(logger);
  const received: unknown[] = [];
  let hostLink: Transport | undefined;
  const token = crypto.randomUUID();
  links.expectHost({
    token,
    joined: (transport) => {
      hostLink = transport;
      transport.start({ message: (message) => received.push(message), close: () => {} });
    },
  });
  const forger = await connect(links);
  const host = await connect(links);
  const second = await connect(links);
  try {
    // A guess is refused and the connection closed; the real token is taken once.
    await forger.send({ method: "host", params: { token: "guess" } });
    await host.send({ method: "host", params: { token } });
    await host.send({ method: "ready", params: { worker: 3, exports: ["a"] } });
    await pollUntil("the host's notice", () => received.length === 1, { timeoutMs: 5_000 });
    assert.deepEqual(received, [{ method: "ready", params: { worker: 3, exports: ["a"] } }]);
    assert.ok(hostLink !== undefined);
    await second.send({ method: "host", params: { token } });
    await pollUntil(
      "both refusals logged",
      () => logger.lines.filter((l) => /unknown or used host token/.test(l)).length === 2,
      { timeoutMs: 5_000 },
    );
    // A module-shaped line from a refused connection reaches nothing.
    assert.equal(received.length, 1);
  } finally {
    for (const { conn } of [forger, host, second]) {
      try {
        conn.close();
      } catch {
        // closed by the links
      }
    }
    links.close();
  }
});

Deno.test("WorkerLinks: a module sends calls that waited for its first join at the joined link's limit", async () => {
  const links = new WorkerLinks(captureLogger());
  const module = fakeModule(1);
  const big = "x".repeat(10_000);
  const joined = module.joined;
  // As a module's calls made before its runtime joined go out: in the join's own turn.
  module.joined = (link, channel, placement) => {
    const taken = joined(link, channel, placement);
    channel.send({ id: 1, method: "call", params: { tool: "echo", args: big } });
    return taken;
  };
  links.expect(module);
  const { conn, send } = await connect(links);
  try {
    await send(join(module, module.token));
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(64 * 1024);
    let text = "";
    while (!text.includes("\n")) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
    }
    const call = JSON.parse(text.slice(0, text.indexOf("\n"))) as { params: { args: string } };
    assert.equal(call.params.args, big);
  } finally {
    conn.close();
    links.close();
  }
});

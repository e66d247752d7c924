/**
 * End-to-end over a real WebSocket: `/ws` speaks JSON-RPC 2.0 (namespaces, types, call, exec,
 * run), answers every bad frame with the right error and keeps the connection, and accepts
 * lootbox's message shapes.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";
import { RpcSocket } from "./support/rpc_socket.ts";
import { rpcRootFiles } from "./support/rpc_root.ts";
import { pollUntil } from "./support/poll_until.ts";

type Reply = Record<string, unknown> & {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { kind?: string } };
};

Deno.test("the WebSocket JSON-RPC interface answers good and bad messages on one live connection", async (t) => {
  await withHarness({ files: await rpcRootFiles() }, async (gw) => {
    const { port, token } = await gw.server();
    const ws = await RpcSocket.open(port, token);
    const ask = (message: unknown) => ws.ask(message) as Promise<Reply>;
    const request = (id: number, method: string, params?: unknown) =>
      ask({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    /** Proves the connection still serves: a fresh request gets its own answer. */
    const stillServes = async (id: number) => {
      const reply = await request(id, "namespaces", {});
      assert.equal(reply.id, id);
      assert.ok(Array.isArray(reply.result?.namespaces), JSON.stringify(reply));
    };
    try {
      await pollUntil("echo, kv and fs to be ready", async () => {
        const reply = await request(1, "namespaces", {});
        const list = reply.result?.namespaces as Array<{ name: string; status: string }>;
        return list.filter((n) => n.status === "ready").length === 3 ? true : undefined;
      });

      await t.step("namespaces lists each namespace with its status and tool count", async () => {
        const reply = await request(2, "namespaces");
        assert.equal(reply.jsonrpc, "2.0");
        const list = reply.result?.namespaces as Array<
          { name: string; kind: string; tools: number }
        >;
        assert.deepEqual(list.map((n) => n.name).sort(), ["echo", "fs", "kv"]);
        assert.equal(list.find((n) => n.name === "echo")?.tools, 2);
      });

      await t.step("types renders the declarations of the namespaces asked for", async () => {
        const reply = await request(3, "types", { namespaces: ["echo", "kv"] });
        const types = reply.result?.types as string;
        assert.match(types, /^ {2}namespace echo \{/m);
        assert.match(types, /^ {2}namespace kv \{/m);
        assert.doesNotMatch(types, /namespace fs \{/);
        const unknown = await request(4, "types", { namespaces: ["nope"] });
        assert.equal(unknown.error?.code, -32602);
        assert.match(unknown.error?.message ?? "", /Unknown namespace "nope"/);
      });

      await t.step("call invokes one tool and reports tool failures with their kind", async () => {
        const set = await request(5, "call", {
          namespace: "kv",
          tool: "set",
          args: { key: "k", value: { n: 1 } },
        });
        assert.equal(set.error, undefined, JSON.stringify(set));
        const get = await request(6, "call", { namespace: "kv", tool: "get", args: { key: "k" } });
        assert.deepEqual(get.result, { value: { n: 1 } });
        const failed = await request(7, "call", {
          namespace: "echo",
          tool: "fail",
          args: { message: "no such order" },
        });
        assert.equal(failed.error?.data?.kind, "ToolError");
        assert.match(failed.error?.message ?? "", /no such order/);
        const unknown = await request(8, "call", { namespace: "echo", tool: "nope" });
        assert.equal(unknown.error?.data?.kind, "UnknownTool");
      });

      await t.step(
        "exec answers the run document; a failing script is data, not an RPC error",
        async () => {
          const ok = await request(9, "exec", {
            source: 'console.log("hi"); await tools.echo.echo({ value: "x" })',
          });
          assert.equal(ok.result?.ok, true, JSON.stringify(ok));
          assert.equal(ok.result?.result, "x");
          assert.equal(ok.result?.stdout, "hi\n");
          assert.equal(ok.result?.toolCalls, 1);
          const thrown = await request(10, "exec", { source: 'throw new Error("kaput")' });
          assert.equal(thrown.error, undefined);
          assert.equal(thrown.result?.ok, false);
          const error = thrown.result?.error as { kind: string; message: string };
          assert.equal(error.kind, "ScriptError");
          assert.match(error.message, /kaput/);
          const unknownTool = await request(11, "exec", {
            source: "await tools.echo.nope({})",
            check: false,
          });
          assert.equal((unknownTool.result?.error as { kind: string }).kind, "UnknownTool");
        },
      );

      await t.step("run executes a named script with its arguments", async () => {
        const reply = await request(12, "run", { name: "greet", args: ["Ada"] });
        assert.equal(reply.result?.ok, true, JSON.stringify(reply));
        assert.equal(reply.result?.stdout, "Hello, Ada!\n");
        const missing = await request(13, "run", { name: "nope" });
        assert.ok(missing.error, JSON.stringify(missing));
        assert.match(missing.error?.message ?? "", /nope/);
      });

      await t.step(
        "malformed JSON gets -32700 with id null and the connection stays open",
        async () => {
          ws.send('{"jsonrpc": "2.0", "id": 14, "method": ');
          const reply = await ws.next() as Reply;
          assert.equal(reply.id, null);
          assert.equal(reply.error?.code, -32700);
          await stillServes(15);
        },
      );

      await t.step("an unknown method gets -32601 with the request's id", async () => {
        const reply = await request(16, "nope.nothing", {});
        assert.equal(reply.id, 16);
        assert.equal(reply.error?.code, -32601);
        assert.match(reply.error?.message ?? "", /"nope\.nothing"/);
        await stillServes(17);
      });

      await t.step("missing or bad params get -32602 naming the path", async () => {
        const missing = await request(18, "call", {});
        assert.equal(missing.id, 18);
        assert.equal(missing.error?.code, -32602);
        assert.match(missing.error?.message ?? "", /"namespace"/);
        const noParams = await request(19, "exec");
        assert.equal(noParams.error?.code, -32602);
        assert.match(noParams.error?.message ?? "", /"source"/);
        const wrongType = await request(20, "exec", { source: 5 });
        assert.match(wrongType.error?.message ?? "", /"source"/);
        const nested = await request(21, "exec", { source: "1", permissions: { net: 5 } });
        assert.equal(nested.error?.code, -32602);
        assert.match(nested.error?.message ?? "", /"permissions\.net"/);
        const unknownParam = await request(22, "exec", { source: "1", sourse: "2" });
        assert.match(unknownParam.error?.message ?? "", /unknown param "sourse"/);
        await stillServes(23);
      });

      await t.step("an invalid request gets -32600 with its id", async () => {
        const version = await ask({ jsonrpc: "1.0", id: 24, method: "namespaces" });
        assert.equal(version.id, 24);
        assert.equal(version.error?.code, -32600);
        const method = await ask({ jsonrpc: "2.0", id: 25, method: 7 });
        assert.equal(method.id, 25);
        assert.equal(method.error?.code, -32600);
        for (const scalar of ["42", '"text"', "null", "true"]) {
          ws.send(scalar);
          const reply = await ws.next() as Reply;
          assert.equal(reply.error?.code, -32600, `${scalar}: ${JSON.stringify(reply)}`);
          assert.equal(reply.id, null);
        }
        await stillServes(26);
      });

      await t.step("a notification, known or unknown, gets no reply", async () => {
        ws.send(JSON.stringify({ jsonrpc: "2.0", method: "no.such.method", params: {} }));
        ws.send(JSON.stringify({ jsonrpc: "2.0", method: "namespaces", params: {} }));
        const reply = await request(27, "types", { namespaces: ["echo"] });
        assert.equal(reply.id, 27, "the first reply after two notifications answers the request");
      });

      await t.step("a binary frame gets an error reply and the connection lives", async () => {
        ws.send(
          new TextEncoder().encode(
            JSON.stringify({ jsonrpc: "2.0", id: 28, method: "namespaces" }),
          ),
        );
        const reply = await ws.next() as Reply;
        assert.equal(reply.error?.code, -32600);
        assert.match(reply.error?.message ?? "", /Binary/);
        await stillServes(29);
      });

      await t.step("a batch array is refused with -32600", async () => {
        ws.send(JSON.stringify([{ jsonrpc: "2.0", id: 30, method: "namespaces" }]));
        const reply = await ws.next() as Reply;
        assert.equal(reply.error?.code, -32600);
        assert.equal(reply.id, null);
        await stillServes(31);
      });

      await t.step("JSON nested 100,000 deep is refused and the server stays up", async () => {
        ws.send(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
        const arrays = await ws.next() as Reply;
        assert.ok(arrays.error, JSON.stringify(arrays).slice(0, 200));
        const deepParams = `{"jsonrpc":"2.0","id":32,"method":"exec","params":{"source":"1","x":${
          '{"a":'.repeat(100_000)
        }1${"}".repeat(100_000)}}}`;
        ws.send(deepParams);
        const objects = await ws.next() as Reply;
        assert.ok(objects.error, JSON.stringify(objects).slice(0, 200));
        await stillServes(33);
        const health = await fetch(`http://127.0.0.1:${port}/health`);
        assert.equal(health.status, 200);
        await health.body?.cancel();
      });

      await t.step("lootbox's {script, id} runs a script and answers its output", async () => {
        const reply = await ask({ script: 'console.log("from lootbox"); 1 + 1', id: "s1" });
        assert.equal(reply.id, "s1");
        assert.equal(reply.jsonrpc, undefined);
        assert.equal(reply.result, "from lootbox\n2\n");
        const failed = await ask({ script: 'throw new Error("bad script")', id: "s2" });
        assert.equal(failed.id, "s2");
        assert.equal(typeof failed.error, "string");
        assert.match(String(failed.error), /ScriptError: .*bad script/);
      });

      await t.step(
        'lootbox\'s {method: "ns.fn", args, id} calls a tool and answers its value',
        async () => {
          const reply = await ask({ method: "echo.echo", args: { value: "hello" }, id: "c1" });
          assert.deepEqual(reply, { id: "c1", result: "hello" });
          const failed = await ask({ method: "echo.fail", args: { message: "nope" }, id: "c2" });
          assert.deepEqual(failed, { id: "c2", error: "nope" });
          await stillServes(34);
        },
      );

      await t.step("a frame over 10 MiB closes that connection only (1009)", async () => {
        const other = await RpcSocket.open(port, token);
        try {
          ws.send("x".repeat(11 * 1024 * 1024));
          await pollUntil(
            "the oversized frame's connection to close",
            () => Promise.resolve(ws.closed ?? undefined),
          );
          assert.equal(ws.closed?.code, 1009);
          const reply = await other.ask({ jsonrpc: "2.0", id: 35, method: "namespaces" }) as Reply;
          assert.equal(reply.id, 35);
          assert.ok(reply.result);
        } finally {
          await other.close();
        }
      });
    } finally {
      await ws.close();
    }
  });
});

/**
 * The router's one error translation: domain errors become their wire errors by class, a bug
 * becomes a logged internal error, and params that fail their schema are the caller's mistake,
 * named by path. And a table built over parts hands each handler those parts with the caller.
 * @module
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { createLogger } from "../logger.ts";
import { InvalidArgumentError } from "../protocol/invalid_argument_error.ts";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { GatewayRefusal } from "./gateway_refusal.ts";
import { defineMethod, type MethodGroup, Router } from "./router.ts";

Deno.test("the router translates errors by class and logs what is a bug", async (t) => {
  const lines: string[] = [];
  const log = createLogger({ level: "warn", write: (line) => lines.push(line) });
  const router = new Router({
    bug: defineMethod(z.strictObject({}), () => {
      const found: { name: string } = JSON.parse("null"); // the bug: null is not checked
      return Promise.resolve(found.name);
    }),
    range: defineMethod(z.strictObject({}), () => Promise.reject(new RangeError("off by one"))),
    argument: defineMethod(
      z.strictObject({}),
      () => Promise.reject(new InvalidArgumentError('Cannot search: "limit" must be positive')),
    ),
    refused: defineMethod(
      z.strictObject({}),
      () =>
        Promise.reject(new GatewayRefusal("Overloaded", "Overloaded: retry", { retryAfterMs: 5 })),
    ),
    typed: defineMethod(
      z.strictObject({ page: z.strictObject({ limit: z.number() }) }),
      () => Promise.resolve("ok"),
    ),
  }, log);
  const context = { client: "test", signal: new AbortController().signal };
  const failure = async (method: string, params: unknown = {}): Promise<RpcError> => {
    try {
      await router.dispatch(method, params, context);
    } catch (error) {
      assert.ok(error instanceof RpcError, `dispatch rejected with ${String(error)}`);
      return error;
    }
    throw new Error(`${method} did not fail`);
  };
  await t.step(
    "a TypeError thrown by a bug is an internal error, logged with its stack",
    async () => {
      const error = await failure("bug");
      assert.equal(error.code, RpcCode.InternalError);
      assert.match(error.message, /^Internal error: .*name/);
      const logged = lines.map((line) => JSON.parse(line)).filter((entry) =>
        entry.message === "internal error while handling a request"
      );
      assert.equal(logged.length, 1);
      assert.equal(logged[0].level, "error");
      assert.match(logged[0].stack, /TypeError/);
    },
  );

  await t.step("a plain RangeError is a bug too, not the caller's mistake", async () => {
    assert.equal((await failure("range")).code, RpcCode.InternalError);
  });

  await t.step("an InvalidArgumentError is the caller's mistake", async () => {
    const error = await failure("argument");
    assert.equal(error.code, RpcCode.InvalidParams);
    assert.equal(error.message, 'Cannot search: "limit" must be positive');
    assert.deepEqual(error.data, { kind: "RangeError" });
  });

  await t.step("a GatewayRefusal keeps its own code and retry hint", async () => {
    const error = await failure("refused");
    assert.equal(error.code, RpcCode.Overloaded);
    assert.deepEqual(error.data, { kind: "Overloaded", retryAfterMs: 5 });
  });

  await t.step("params failing their schema are InvalidParams naming the path", async () => {
    const error = await failure("typed", { page: { limit: "ten" } });
    assert.equal(error.code, RpcCode.InvalidParams);
    assert.match(error.message, /^Invalid params for "typed": .*page\.limit/);
  });

  await t.step("none of the caller's mistakes was logged as an internal error", () => {
    const internal = lines.filter((line) => line.includes("internal error"));
    assert.equal(internal.length, 2); // the TypeError and the plain RangeError
  });
});

Deno.test("a table built over parts gives each handler the parts and the caller", async () => {
  const seen: string[] = [];
  const counter = { count: 0 };
  const group: MethodGroup<{ counter: { count: number }; label: () => string }> = {
    bump: defineMethod(z.strictObject({ by: z.number() }), (params, context) => {
      context.counter.count += params.by;
      seen.push(`${context.label()} for ${context.client}`);
      return Promise.resolve(context.counter.count);
    }),
  };
  let label = "first";
  const router = Router.over(group, { counter, label: () => label }, console);
  const caller = { client: "cli", signal: new AbortController().signal };
  assert.equal(await router.dispatch("bump", { by: 2 }, caller), 2);
  label = "second";
  assert.equal(await router.dispatch("bump", { by: 3 }, { ...caller, client: "ws" }), 5);
  assert.deepEqual(seen, ["first for cli", "second for ws"]);
  assert.equal(counter.count, 5, "the handler worked on the part itself, not a copy");
});

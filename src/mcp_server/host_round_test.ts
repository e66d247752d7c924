import assert from "node:assert/strict";
import type { ServerContext } from "@modelcontextprotocol/server";
import { declaredCapabilities, inputRequiredOf } from "./host_round.ts";

Deno.test("inputRequiredOf() keeps an upstream's requests and state as they came, and nothing else", () => {
  const requests = { ask: { method: "elicitation/create", params: { message: "Name?" } } };
  assert.deepEqual(
    inputRequiredOf({
      content: [],
      resultType: "input_required",
      inputRequests: requests,
      requestState: "opaque.state",
    }),
    { resultType: "input_required", inputRequests: requests, requestState: "opaque.state" },
  );
  assert.deepEqual(inputRequiredOf({ resultType: "input_required", requestState: "s" }), {
    resultType: "input_required",
    requestState: "s",
  });
  assert.equal(inputRequiredOf({ content: [{ type: "text", text: "done" }] }), null);
  assert.equal(inputRequiredOf({ resultType: "complete", content: [] }), null);
  assert.equal(inputRequiredOf(null), null);
});

Deno.test("declaredCapabilities() reads a 2026-07-28 request's envelope, and is empty without one", () => {
  const ctx = (envelope: unknown) => ({ mcpReq: { envelope } }) as unknown as ServerContext;
  assert.deepEqual(
    declaredCapabilities(
      ctx({ "io.modelcontextprotocol/clientCapabilities": { sampling: {} } }),
    ),
    { sampling: {} },
  );
  assert.deepEqual(declaredCapabilities(ctx(undefined)), {});
  assert.deepEqual(
    declaredCapabilities(ctx({ "io.modelcontextprotocol/clientCapabilities": "nonsense" })),
    {},
  );
});

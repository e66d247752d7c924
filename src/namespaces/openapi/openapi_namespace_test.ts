import assert from "node:assert/strict";
import { callError } from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { join } from "node:path";
import { OAS_EXAMPLES, startPrism } from "../../../test/support/prism_server.ts";
import type { ToolCallOptions } from "../namespace.ts";
import { OpenApiNamespace } from "./openapi_namespace.ts";

const PETSTORE = join(OAS_EXAMPLES, "3.0/json/petstore.json");

function callOptions(signal = new AbortController().signal): ToolCallOptions {
  return { signal, callTimeoutMs: 30_000, callMaxMs: 60_000 };
}

function petstore(baseUrl: string, headers: Record<string, string> = {}) {
  return new OpenApiNamespace("petstore", {
    openapi: PETSTORE,
    baseUrl,
    headers,
    include: [],
    exclude: [],
    writes: "ask",
    disabled: false,
  }, { baseDir: "/", cacheDir: "/nonexistent" });
}

Deno.test("OpenApiNamespace calls operations against Prism: answers, local and remote rejections, non-2xx", async (t) => {
  const prism = await startPrism(PETSTORE);
  try {
    const ns = petstore(prism.url, { api_key: "special-key", Authorization: "Bearer t0ken" });
    await ns.start();
    assert.deepEqual(ns.status(), { state: "ready" });

    await t.step("a GET with a path parameter answers the parsed JSON", async () => {
      const { value, raw } = await ns.callTool("getPetById", { petId: 7 }, callOptions());
      assert.equal(raw.status, 200);
      assert.equal(typeof (value as { name?: unknown }).name, "string");
    });

    await t.step("a JSON body and a form body are sent in their content types", async () => {
      const order = await ns.callTool(
        "placeOrder",
        { body: { petId: 7, quantity: 1, status: "placed" } },
        callOptions(),
      );
      assert.equal(order.raw.status, 200);
      assert.equal(typeof (order.value as { id?: unknown }).id, "number");
      // The document's only answer to this form post is 405; Prism gives it once the form body
      // passed its validation (a body it rejects answers 422).
      const form = await callError(ns.callTool(
        "updatePetWithForm",
        { petId: 7, body: { name: "rex", status: "sold" } },
        callOptions(),
      ));
      assert.match(form.message, /answered 405/);
    });

    await t.step("bad arguments fail before sending, naming the path and the rule", async () => {
      const error = await callError(ns.callTool("getPetById", { petId: "seven" }, callOptions()));
      assert.equal(error.kind, "InvalidToolInput");
      assert.match(error.message, /"\/petId" must be integer \(type\)/);
      const missing = await callError(ns.callTool("getPetById", {}, callOptions()));
      assert.match(missing.message, /"\/petId" is required \(required\)/);
      const extra = await callError(ns.callTool("getPetById", { petId: 1, pet: 2 }, callOptions()));
      assert.match(extra.message, /"\/pet" is not allowed \(additionalProperties\)/);
    });

    await t.step(
      "a request Prism rejects is a ToolError with the status and the operation",
      async () => {
        // Without the configured credentials the validating mock refuses the call.
        const anonymous = petstore(prism.url);
        await anonymous.start();
        const error = await callError(
          anonymous.callTool("getPetById", { petId: 1 }, callOptions()),
        );
        assert.equal(error.kind, "ToolError");
        assert.match(
          error.message,
          /^"petstore\.getPetById" \(GET \/pet\/\{petId\}\) answered 401/,
        );
        assert.equal(error.raw?.isError, true);
      },
    );

    await t.step("a non-2xx answer is a ToolError with status and body", async () => {
      const notFound = petstore(prism.url, { api_key: "special-key", Prefer: "code=404" });
      await notFound.start();
      const error = await callError(notFound.callTool("getPetById", { petId: 1 }, callOptions()));
      assert.equal(error.kind, "ToolError");
      assert.match(error.message, /answered 404/);
      assert.equal(error.raw?.status, 404);
    });

    await t.step("cancellation aborts the request", async () => {
      const controller = new AbortController();
      controller.abort(new Error("run ended"));
      const error = await callError(
        ns.callTool("getPetById", { petId: 1 }, callOptions(controller.signal)),
      );
      assert.equal(error.kind, "Cancelled");
    });
    await ns.stop();
  } finally {
    await prism.stop();
  }
});

Deno.test("OpenApiNamespace follows redirects within its host only", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/pet/1") return Response.redirect(new URL("/pet/2", url), 302);
    if (url.pathname === "/pet/2") return Response.json({ id: 2, name: "moved", photoUrls: [] });
    if (url.pathname === "/pet/3") return Response.redirect("http://example.invalid/pet/3", 302);
    return new Response("no", { status: 404 });
  });
  try {
    const ns = petstore(`http://127.0.0.1:${server.addr.port}`);
    await ns.start();
    const moved = await ns.callTool("getPetById", { petId: 1 }, callOptions());
    assert.deepEqual(moved.value, { id: 2, name: "moved", photoUrls: [] });
    const error = await callError(ns.callTool("getPetById", { petId: 3 }, callOptions()));
    assert.match(error.message, /redirected to another host, "example\.invalid": not followed/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("OpenApiNamespace fails with the reason when the document cannot be read", async () => {
  const ns = new OpenApiNamespace("broken", {
    openapi: "./missing.yaml",
    headers: {},
    include: [],
    exclude: [],
    writes: "ask",
    disabled: false,
  }, { baseDir: "/nonexistent-root", cacheDir: "/nonexistent" });
  await ns.start();
  const status = ns.status();
  assert.equal(status.state, "failed");
  assert.match(
    status.state === "failed" ? status.reason : "",
    /Cannot read API document "\/nonexistent-root\/missing\.yaml"/,
  );
});

Deno.test("OpenApiNamespace calls Swagger 2.0 and OpenAPI 3.1 documents against Prism", async (t) => {
  for (const version of ["2.0", "3.1"]) {
    await t.step(`petstore ${version}: a GET answers, a form post reaches the mock`, async () => {
      const spec = join(OAS_EXAMPLES, version, "json/petstore.json");
      const prism = await startPrism(spec);
      try {
        const ns = new OpenApiNamespace("petstore", {
          openapi: spec,
          baseUrl: prism.url,
          headers: { api_key: "special-key", Authorization: "Bearer t0ken" },
          include: [],
          exclude: [],
          writes: "ask",
          disabled: false,
        }, { baseDir: "/", cacheDir: "/nonexistent" });
        await ns.start();
        assert.deepEqual(ns.status(), { state: "ready" });
        const { value } = await ns.callTool("getPetById", { petId: 3 }, callOptions());
        assert.equal(typeof (value as { name?: unknown }).name, "string");
        const bad = await callError(ns.callTool("getPetById", { petId: 1.5 }, callOptions()));
        assert.equal(bad.kind, "InvalidToolInput");
        // The only answer the document gives is 405; a body Prism rejected would be 422.
        const form = await callError(
          ns.callTool("updatePetWithForm", { petId: 3, body: { name: "rex" } }, callOptions()),
        );
        assert.match(form.message, /answered 405/);
      } finally {
        await prism.stop();
      }
    });
  }
});

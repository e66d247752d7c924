import { namespaceContract } from "../../../test/support/namespace_contract.ts";
import { OpenApiNamespace } from "./openapi_namespace.ts";

/** A two-operation API whose `waitForever` answers only when the client gives up. */
function startThingsApi(): { url: string; stop(): Promise<void> } {
  const held: Array<(value: unknown) => void> = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/things") return Response.json(["a", "b"]);
      if (path === "/wait") {
        // Held until the fixture stops; the client gives up long before.
        await new Promise((resolve) => held.push(resolve));
        return new Response(null, { status: 503 });
      }
      return new Response("not found", { status: 404 });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    stop() {
      for (const release of held) release(undefined);
      return server.shutdown();
    },
  };
}

function thingsDocument(url: string): Record<string, unknown> {
  const answer = (schema: Record<string, unknown>) => ({
    200: { description: "ok", content: { "application/json": { schema } } },
  });
  return {
    openapi: "3.0.3",
    info: { title: "Things", version: "1.0.0" },
    servers: [{ url }],
    paths: {
      "/things": {
        get: {
          operationId: "listThings",
          responses: answer({ type: "array", items: { type: "string" } }),
        },
      },
      "/wait": { get: { operationId: "waitForever", responses: answer({ type: "string" }) } },
    },
  };
}

namespaceContract({
  name: "OpenAPI",
  async make(upstream) {
    const dir = await Deno.makeTempDir({ prefix: "gateway-openapi-contract-" });
    const api = upstream === "failing" ? undefined : startThingsApi();
    const document = `${dir}/things.json`;
    if (api !== undefined) {
      await Deno.writeTextFile(document, JSON.stringify(thingsDocument(api.url)));
    }
    // Failing: the document does not exist.
    const namespace = new OpenApiNamespace("things", {
      openapi: document,
      headers: {},
      include: [],
      exclude: [],
      writes: "ask",
      disabled: upstream === "disabled",
    }, { baseDir: dir, cacheDir: `${dir}/cache`, logger: { error() {} } });
    return {
      namespace,
      call: { tool: "listThings", args: {} },
      slowCall: { tool: "waitForever", args: {} },
      capabilities: [],
      async close() {
        await api?.stop();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
  skip: {
    "onChange fires when tools change":
      "an API's tools change only when it loads, which the start case covers",
  },
});

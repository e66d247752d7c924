import { startLibraryServer } from "../../../test/fixtures/graphql/library_graphql_server.ts";
import { namespaceContract } from "../../../test/support/namespace_contract.ts";
import { GraphqlNamespace } from "./graphql_namespace.ts";

/** The id that makes the proxy hold a `book` request until the client gives up. */
const WAIT_ID = "wait-until-aborted";

/**
 * The library fixture behind a proxy that holds any request asking for book `WAIT_ID`: the
 * slow call the abort case needs.
 */
function startSlowLibrary(): { url: string; stop(): Promise<void> } {
  const library = startLibraryServer();
  const held: Array<(value: unknown) => void> = [];
  const proxy = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.text();
      if (body.includes(WAIT_ID)) {
        // Held until the fixture stops; the client gives up long before.
        await new Promise((resolve) => held.push(resolve));
        return new Response(null, { status: 503 });
      }
      return await fetch(library.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    },
  );
  return {
    url: `http://127.0.0.1:${proxy.addr.port}/graphql`,
    async stop() {
      for (const release of held) release(undefined);
      await proxy.shutdown();
      await library.stop();
    },
  };
}

/** A loopback URL nothing listens on. */
function closedPortUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return `http://127.0.0.1:${port}/graphql`;
}

namespaceContract({
  name: "GraphQL",
  make(upstream) {
    const server = upstream === "failing" ? undefined : startSlowLibrary();
    // Failing: nothing answers the introspection.
    const namespace = new GraphqlNamespace("library", {
      graphql: server?.url ?? closedPortUrl(),
      headers: {},
      include: [],
      exclude: [],
      writes: "ask",
      disabled: upstream === "disabled",
    }, { logger: { error() {} } });
    return Promise.resolve({
      namespace,
      call: { tool: "book", args: { id: "1" } },
      slowCall: { tool: "book", args: { id: WAIT_ID } },
      capabilities: [],
      close: async () => await server?.stop(),
    });
  },
  skip: {
    "onChange fires when tools change":
      "an API's tools change only when it loads, which the start case covers",
  },
});

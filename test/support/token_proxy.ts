/**
 * A loopback HTTP proxy that adds the gateway's bearer token, so a client that cannot send
 * headers (the MCP conformance runner) can reach `/mcp`. The Host and Origin a client sends for
 * the proxy itself are rewritten to the gateway's; any other Host/Origin passes through
 * unchanged, so DNS-rebinding checks still see the foreign name.
 * @module
 */

/** A running proxy. */
export interface TokenProxy {
  port: number;
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free port forwarding to `http://127.0.0.1:PORT` with `token`. With
 * `path`, every request goes to that path and query (the conformance runner refuses URLs with
 * a query, so `/mcp?expose=tools` is reached this way).
 */
export function startTokenProxy(
  options: { port: number; token: string; path?: string },
): TokenProxy {
  const target = `127.0.0.1:${options.port}`;
  let own = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${options.token}`);
    const host = headers.get("host") ?? "";
    if (host === own || host === `localhost:${own.split(":")[1]}`) headers.set("host", target);
    const origin = headers.get("origin");
    if (origin && new URL(origin).host.endsWith(`:${own.split(":")[1]}`)) {
      headers.set("origin", `http://${target}`);
    }
    return fetch(`http://${target}${options.path ?? `${url.pathname}${url.search}`}`, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
    });
  });
  const port = (server.addr as Deno.NetAddr).port;
  own = `127.0.0.1:${port}`;
  return { port, close: () => server.shutdown() };
}

import assert from "node:assert/strict";
import { checkHostAndOrigin } from "./request_guard.ts";

function request(host: string, origin?: string): Request {
  const headers = new Headers({ host });
  if (origin !== undefined) headers.set("origin", origin);
  return new Request("http://127.0.0.1:9420/namespaces", { headers });
}

Deno.test("checkHostAndOrigin() accepts the loopback names with or without this port", () => {
  for (const host of ["localhost:9420", "127.0.0.1:9420", "[::1]:9420", "LOCALHOST", "127.0.0.1"]) {
    assert.equal(checkHostAndOrigin(request(host), { port: 9420 }), null, host);
  }
});

Deno.test("checkHostAndOrigin() refuses a Host with anything after the port", () => {
  for (
    const host of [
      "127.0.0.1:9420:evil",
      "127.0.0.1:9420/x",
      "localhost.evil.example:9420",
      "127.0.0.1:9421",
      "[::1]:9420:1",
      "",
    ]
  ) {
    assert.equal(checkHostAndOrigin(request(host), { port: 9420 })?.status, 403, host);
  }
});

Deno.test("checkHostAndOrigin() refuses a foreign Origin, accepts the server's own", () => {
  assert.equal(
    checkHostAndOrigin(request("127.0.0.1:9420", "http://evil.example"), { port: 9420 })?.status,
    403,
  );
  assert.equal(
    checkHostAndOrigin(request("127.0.0.1:9420", "http://localhost:9420"), { port: 9420 }),
    null,
  );
});

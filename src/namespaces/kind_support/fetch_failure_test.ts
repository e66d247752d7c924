import assert from "node:assert/strict";
import { fetchFailureText } from "./fetch_failure.ts";

Deno.test("fetchFailureText() names a refused connection from a real fetch", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const url = new URL(`http://127.0.0.1:${port}/pets`);
  const error = await fetch(url).then(() => null, (e: unknown) => e);
  assert.ok(error !== null);
  assert.equal(
    fetchFailureText(error, url),
    `connection refused 127.0.0.1:${port} (nothing listens there: is the API running?)`,
  );
});

Deno.test("fetchFailureText() names DNS, reset and unknown causes", () => {
  const wrap = (message: string) => new TypeError("fetch failed", { cause: new Error(message) });
  const url = new URL("https://api.example/v1");
  assert.equal(
    fetchFailureText(wrap("client error (Connect): dns error: failed to lookup address"), url),
    'cannot resolve host "api.example" (DNS)',
  );
  assert.equal(
    fetchFailureText(wrap("connection reset by peer (os error 104)"), url),
    "connection reset by api.example:443",
  );
  assert.equal(
    fetchFailureText(wrap("error sending request for url (https://api.example/v1): odd"), url),
    "odd",
  );
});

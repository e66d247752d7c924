/**
 * End-to-end: `gateway ui --print` prints a sign-in address of the dashboard (starting the server
 * when needed) that carries no token, opens the dashboard once, and is refused after; without a
 * session `/ui` says how to get in.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";
import { getRequest, rawHttp } from "./support/raw_http.ts";

Deno.test("gateway ui --print gives a one-use sign-in address that opens the dashboard; /ui without a session explains how to get in", async () => {
  await withHarness({ files: { "gateway.json": "{}" } }, async (gw) => {
    const printed = await gw.cli(["ui", "--print"]);
    assert.equal(printed.code, 0, printed.stderr);
    const { port, token } = await gw.server();
    const url = printed.stdout.trim();
    assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${port}/ui/login\\?code=[0-9a-f]{64}$`));
    assert.ok(!url.includes(token));
    const host = { Host: `127.0.0.1:${port}` };
    const path = new URL(url).pathname + new URL(url).search;
    const signIn = await rawHttp(port, getRequest(path, host));
    assert.equal(signIn.status, 303);
    assert.equal(signIn.headers.location, "/ui");
    const cookie = (signIn.headers["set-cookie"] ?? "").split(";")[0]!;
    const page = await rawHttp(port, getRequest("/ui", { ...host, Cookie: cookie }));
    assert.equal(page.status, 200);
    assert.match(page.body, /<html/i);
    const again = await rawHttp(port, getRequest(path, host));
    assert.equal(again.status, 401);
    assert.match(again.body, /used already or is over a minute old/);
    const anonymous = await fetch(`http://127.0.0.1:${port}/ui`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get("content-type") ?? "", /text\/html/);
    assert.match(await anonymous.text(), /<code>gateway ui<\/code>/);
  });
});

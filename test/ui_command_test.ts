/**
 * End-to-end: `gateway ui --print` prints the dashboard URL with its token (starting the
 * server when needed), and that URL opens the dashboard; without the token `/ui` says how to
 * get in.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";

Deno.test("gateway ui --print gives a URL that opens the dashboard; /ui without it explains how to get in", async () => {
  await withHarness({ files: { "gateway.json": "{}" } }, async (gw) => {
    const printed = await gw.cli(["ui", "--print"]);
    assert.equal(printed.code, 0, printed.stderr);
    const { port, token } = await gw.server();
    assert.equal(printed.stdout, `http://127.0.0.1:${port}/ui?token=${token}\n`);
    const page = await fetch(printed.stdout.trim());
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const anonymous = await fetch(`http://127.0.0.1:${port}/ui`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get("content-type") ?? "", /text\/html/);
    assert.match(
      await anonymous.text(),
      /needs the gateway's token[\s\S]*<code>gateway ui<\/code>/,
    );
  });
});

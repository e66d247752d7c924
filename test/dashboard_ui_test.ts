import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { withHarness } from "./support/gateway_harness.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = await Deno.stat(CHROMIUM).then(() => true, () => false);

const TOOL = `/** Adds two numbers. */
export function add(args: { a: number; b: number }): number {
  return args.a + args.b;
}

/** Subtracts; the policy makes it wait for approval. */
export function sub(args: { a: number; b: number }): number {
  return args.a - args.b;
}
`;

Deno.test({
  name:
    "the dashboard lists namespaces, runs a script and shows it in recent runs, in a real browser",
  ignore: !hasChromium,
  async fn() {
    const config = { port: 0, policy: [{ match: "math.sub", action: "ask" }] };
    await withHarness({
      files: { "tools/math.ts": TOOL, "gateway.json": JSON.stringify(config) },
    }, async (gw) => {
      const { port, token } = await gw.server();
      // Wait for the module to load so the page shows it ready.
      for (let i = 0; i < 100; i++) {
        const health = await (await fetch(`http://127.0.0.1:${port}/health`, {
          headers: { authorization: `Bearer ${token}` },
        })).json() as {
          namespaces: { name: string; status: string }[];
        };
        if (health.namespaces.some((n) => n.name === "math" && n.status === "ready")) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      try {
        const page = await browser.newPage();
        const denied = await page.goto(`http://127.0.0.1:${port}/ui`);
        assert.equal(denied?.status(), 401);
        assert.match(
          (await page.textContent("body")) ?? "",
          /needs the gateway's token[\s\S]*gateway ui/,
        );

        await page.goto(`http://127.0.0.1:${port}/ui?token=${token}`);
        await page.waitForSelector("#namespaces tbody tr");
        const row = await page.textContent("#namespaces tbody");
        assert.match(row ?? "", /math\s*local\s*ready\s*2/);

        await page.fill("#source", "await tools.math.add({ a: 2, b: 40 })");
        await page.click("#run");
        await page.locator("#output", { hasText: '"ok"' }).waitFor();
        const output = JSON.parse((await page.textContent("#output")) ?? "{}") as {
          ok: boolean;
          result: number;
          runId: string;
        };
        assert.equal(output.ok, true);
        assert.equal(output.result, 42);

        await page.locator("#runs tbody", { hasText: output.runId }).waitFor();
        const runs = await page.textContent("#runs tbody");
        assert.match(runs ?? "", new RegExp(`${output.runId}\\s*ok`));

        // A call held by an ask policy shows up with Allow/Deny; Allow lets the run finish.
        const client = await gw.client();
        try {
          const held = client.request<{ ok: boolean; result: number }>("exec", {
            source: "await tools.math.sub({ a: 50, b: 8 })",
          });
          const allow = page.locator("#approvals button", { hasText: "Allow" });
          await allow.waitFor();
          assert.match(
            (await page.textContent("#approvals tbody")) ?? "",
            /math\.sub\(\{"a":50,"b":8\}\)/,
          );
          await allow.click();
          const done = await held;
          assert.equal(done.ok, true);
          assert.equal(done.result, 42);
        } finally {
          await client.close();
        }
      } finally {
        await browser.close();
      }
    });
  },
});

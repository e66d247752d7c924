/**
 * The dashboard in headless Chromium, end to end against a real gateway: namespaces (status,
 * stderr, restart), the tool browser and its "try it" form, the editor (completions, inline type
 * errors, live stdout), run details (error line, images, tool calls, rerun, save), history
 * filters and paging, approvals pushed live, workflow sessions; keyboard-only use of the main
 * flow; no serious or critical axe-core violations; screenshots at desktop and phone widths
 * kept under test/artifacts/.
 * @module
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the product's import map
import { chromium, type Page } from "npm:playwright-core@1.65.1";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the product's import map
import axe from "npm:axe-core@4.14.1";
import { withHarness } from "./support/gateway_harness.ts";
import { realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "./support/poll_until.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = await Deno.stat(CHROMIUM).then(() => true, () => false);
const ARTIFACTS = new URL("./artifacts/dashboard/", import.meta.url).pathname;

const TOOL = `/** Adds two numbers. */
export function add(args: { a: number; b: number }): number {
  return args.a + args.b;
}

/** Subtracts; the policy makes it wait for approval. */
export function sub(args: { a: number; b: number }): number {
  return args.a - args.b;
}
`;

const WORKFLOW = `description: Ship a change
steps:
  - title: Write it
    prompt: Write the change
  - title: Test it
    prompt: Run the tests
`;

/** A 1×1 red PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

async function axeViolations(page: Page, label: string): Promise<void> {
  await page.addScriptTag({ content: axe.source });
  // Runs in the page (a string, since this file is not type-checked against the DOM).
  const result = await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then(
    (run) => run.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(" ")).slice(0, 3),
    })))`) as { id: string; impact: string; targets: string[] }[];
  const serious = result.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious, [], `${label}: ${JSON.stringify(serious, null, 2)}`);
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const [width, height, device] of [[1280, 900, "desktop"], [390, 844, "phone"]] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `${ARTIFACTS}${name}-${device}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

Deno.test({
  name: "the dashboard, end to end in headless Chromium",
  ignore: !hasChromium,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const config = {
      port: 0,
      policy: [{ match: "math.sub", action: "ask" }],
      mcpServers: {
        everything: { command: "node", args: [realServerBin("everything")] },
        broken: { command: "gateway-test-no-such-command" },
      },
    };
    await withHarness({
      files: {
        "tools/math.ts": TOOL,
        "gateway.json": JSON.stringify(config),
        "workflows/ship.yaml": WORKFLOW,
      },
    }, async (gw) => {
      const { port, token } = await gw.server();
      const client = await gw.client();
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
        await pollUntil("broken to fail and the others to be ready", async () => {
          const ns = await client.request<{ namespaces: { name: string; status: string }[] }>(
            "namespaces",
          );
          const settled = ns.namespaces.filter((n) =>
            n.name === "broken" ? n.status === "failed" : n.status === "ready"
          );
          return settled.length === 3;
        });
        // Some history to page through and filter.
        for (let i = 0; i < 22; i++) {
          await client.request("exec", { source: `${i} * 2`, check: false });
        }
        await client.request("exec", { source: "throw new Error('boom')", check: false });
        await client.request("workflow.start", { file: "ship", session: "demo" });

        // bypassCSP lets the test inject axe-core; the page itself runs under the strict CSP.
        const context = await browser.newContext({
          viewport: { width: 1280, height: 900 },
          bypassCSP: true,
        });
        await context.grantPermissions(["notifications"]);
        // Records the browser notifications the page raises (headless Chromium shows none).
        await context.addInitScript(`{
          const Real = window.Notification;
          window.shownNotifications = [];
          window.Notification = class extends Real {
            constructor(title, options) {
              super(title, options);
              window.shownNotifications.push({ title, body: options?.body ?? "" });
            }
          };
        }`);
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        const denied = await page.goto(`http://127.0.0.1:${port}/ui`);
        assert.equal(denied?.status(), 401);

        // Namespaces: status, stderr, restart (pushed back live as the namespace restarts).
        await page.goto(`http://127.0.0.1:${port}/ui?token=${token}`);
        await page.locator("#connection", { hasText: "connected" }).waitFor();
        const math = page.locator('#namespaces tr[data-namespace="math"]');
        await math.locator("text=ready").waitFor();
        assert.match((await math.textContent()) ?? "", /math\s*local\s*ready\s*2/);
        const broken = page.locator('#namespaces tr[data-namespace="broken"]');
        await broken.locator(".status.failed .reason").waitFor();
        assert.match(
          (await broken.locator(".reason").textContent()) ?? "",
          /gateway-test-no-such-command/,
        );
        const everything = page.locator('#namespaces tr[data-namespace="everything"]');
        await everything.locator("text=ready").waitFor();
        await everything.getByRole("button", { name: "Show stderr of everything" }).click();
        await page.locator("#stderr-panel:not([hidden])").waitFor();
        await everything.getByRole("button", { name: "Restart everything" }).click();
        await everything.locator("text=ready").waitFor();
        await axeViolations(page, "namespaces");
        await shoot(page, "namespaces");

        // Tool browser: search, signature, try-it form from the input schema.
        await page.click('a[href="#tools"]');
        await page.fill("#tool-search", "add");
        await page.getByRole("button", { name: "math.add" }).click();
        await page.locator("#tool-detail pre.signature", { hasText: "add" }).waitFor();
        await page.fill("#arg-a", "2");
        await page.fill("#arg-b", "40");
        await page.getByRole("button", { name: "Call" }).click();
        await page.locator("#tool-detail pre.result", { hasText: "42" }).waitFor();
        await axeViolations(page, "tools");
        await shoot(page, "tools");

        // Editor: completions from the live types, inline type errors, live stdout.
        await page.click('a[href="#run"]');
        const content = page.locator("#editor .cm-content");
        await content.click();
        await page.keyboard.press("Control+a");
        await page.keyboard.press("Delete");
        await page.keyboard.type("tools.ma");
        await page.locator(".cm-tooltip-autocomplete", { hasText: "math" }).waitFor();
        await page.keyboard.press("Escape");
        await page.keyboard.press("Control+a");
        await page.keyboard.press("Delete");
        await page.keyboard.type("const n: number = 'text';");
        await page.locator(".cm-lint-marker-error, .cm-lintRange-error").first().waitFor();
        await page.keyboard.press("Control+a");
        await page.keyboard.press("Delete");
        await page.keyboard.type(
          `console.log("live line"); attach({ data: "${PNG}", mimeType: "image/png" }); ` +
            "await tools.math.add({ a: 1, b: 2 });\nthrow new Error('second line fails');",
        );
        await page.keyboard.press("Control+Enter");
        await page.locator("#live-output", { hasText: "live line" }).waitFor();
        const run = page.locator("#run-result article.run.failed");
        await run.waitFor();
        assert.match((await run.locator(".error").textContent()) ?? "", /ScriptError.*line 2/);
        assert.match((await run.locator(".source .error-line").textContent()) ?? "", /second line/);
        await run.locator('img[alt^="Image 1"]').waitFor();
        assert.match((await run.locator("table.calls").textContent()) ?? "", /math\.add/);
        // Each call's result shows beside its duration.
        const addCall = run.locator("table.calls tbody tr", { hasText: "math.add" });
        assert.equal((await addCall.locator("td.call-result").textContent())?.trim(), "3");
        assert.ok(await addCall.locator("td.call-result").isVisible());
        await axeViolations(page, "run");
        await shoot(page, "run");

        // A run that worked: rerun and save as a named script.
        await content.click();
        await page.keyboard.press("Control+a");
        await page.keyboard.press("Delete");
        await page.keyboard.type("await tools.math.add({ a: 20, b: 22 })");
        await page.click("#run");
        const okRun = page.locator("#run-result article.run.ok");
        await okRun.locator("pre.result", { hasText: "42" }).waitFor();
        await okRun.locator("input").fill("answer");
        await okRun.getByRole("button", { name: "Save" }).click();
        await okRun.locator("text=saved as").waitFor();
        assert.match(await Deno.readTextFile(`${gw.root}/scripts/answer.ts`), /math\.add/);

        // History: filters, paging, click through to details.
        await page.click('a[href="#history"]');
        await page.locator("#page-info", { hasText: "of" }).waitFor();
        assert.match((await page.textContent("#page-info")) ?? "", /1–20 of \d+/);
        await page.click("#page-next");
        await page.locator("#page-info", { hasText: /^21–/ }).waitFor();
        await page.selectOption("#filter-status", "failed");
        await page.selectOption("#filter-kind", "ScriptError");
        await page.click("#history-filters button[type=submit]");
        await page.locator("#page-info", { hasText: "of 2" }).waitFor();
        await page.fill("#filter-text", "boom");
        await page.click("#history-filters button[type=submit]");
        await page.locator("#page-info", { hasText: "1–1 of 1" }).waitFor();
        await axeViolations(page, "history");
        await shoot(page, "history");
        await page.locator("#runs tbody a").first().click();
        await page.locator("#details .error", { hasText: "boom" }).waitFor();
        await shoot(page, "details");

        // Approvals: pushed live over the WebSocket; allow answers the held call.
        await page.click('a[href="#approvals"]');
        const held = client.request<{ ok: boolean; result: number }>("exec", {
          source: "await tools.math.sub({ a: 50, b: 8 })",
        });
        const allow = page.locator("#approvals button.allow");
        await allow.waitFor();
        assert.match(
          (await page.textContent("#approvals tbody")) ?? "",
          /math\.sub\(\{"a":50,"b":8\}\)/,
        );
        await axeViolations(page, "approvals");
        await shoot(page, "approvals");
        const shown = await page.evaluate("window.shownNotifications") as { body: string }[];
        assert.ok(shown.some((n) => n.body.includes("math.sub")), JSON.stringify(shown));
        await allow.click();
        const done = await held;
        assert.equal(done.ok, true);
        assert.equal(done.result, 42);
        await page.locator("#answered", { hasText: "allowed by dashboard" }).waitFor();

        // Workflow sessions: current step and events.
        await page.click('a[href="#workflows"]');
        await page.getByRole("button", { name: "Show session demo" }).click();
        await page.locator("#session-detail", { hasText: "Write the change" }).waitFor();
        await axeViolations(page, "workflows");
        await shoot(page, "workflows");

        // Keyboard only: reach the Run tab, type a script, run it with Ctrl+Enter.
        const keys = await context.newPage();
        await keys.goto(`http://127.0.0.1:${port}/ui?token=${token}`);
        await keys.locator("#connection", { hasText: "connected" }).waitFor();
        let onRunTab = false;
        for (let i = 0; i < 10 && !onRunTab; i++) {
          await keys.keyboard.press("Tab");
          onRunTab = await keys.evaluate(
            `document.activeElement?.getAttribute("href") === "#run"`,
          ) as boolean;
        }
        assert.ok(onRunTab, "Tab reaches the Run tab");
        await keys.keyboard.press("Enter");
        await keys.locator("#view-run:not([hidden])").waitFor();
        await keys.locator("#editor .cm-focused").waitFor();
        await keys.keyboard.press("Control+a");
        await keys.keyboard.type("6 * 7");
        await keys.keyboard.press("Control+Enter");
        await keys.locator("#run-result pre.result", { hasText: "42" }).waitFor();

        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
        await client.close();
      }
    });
  },
});

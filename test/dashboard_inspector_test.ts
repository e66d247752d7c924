/**
 * The dashboard as a person debugging an upstream MCP server uses it instead of the MCP
 * Inspector, in headless Chromium against a real gateway and the real server-everything:
 * resources and templates read, prompts with arguments (and the server's completions), the
 * live protocol log (JSON on demand, filter, pause, clear, a restart's handshake), the
 * editor's problems list, tools found by the name a script types, descriptions cut at a word,
 * approvals and history usable at a phone's width, answered approvals kept over a reload, the
 * icon served without the token. Every view passes axe-core at 1280 and 390 px; screenshots
 * are kept under test/artifacts/dashboard/.
 * @module
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the product's import map
import type { Page } from "npm:playwright-core@1.65.1";
import { withHarness } from "./support/gateway_harness.ts";
import { realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "./support/poll_until.ts";
import { checkView, hasChromium, launchChromium, onScreen } from "./support/dashboard_browser.ts";

const LONG_DESCRIPTION = "Adds two numbers together and returns their sum, for when a script " +
  "needs arithmetic that should not be done in anyone's head, such as totals across rows.";

const TOOL = `/** ${LONG_DESCRIPTION} */
export function add(args: { a: number; b: number }): number {
  return args.a + args.b;
}

/** Subtracts; the policy makes it wait for approval. */
export function sub(args: { a: number; b: number }): number {
  return args.a - args.b;
}
`;

/** The text of the editor's line the cursor is on. */
function activeLine(page: Page): Promise<string> {
  return page.evaluate(
    `document.querySelector("#editor .cm-activeLine")?.textContent ?? ""`,
  ) as Promise<string>;
}

/** Replaces the editor's text with `text`, typed as a person would. */
async function typeScript(page: Page, text: string): Promise<void> {
  await page.locator("#editor .cm-content").click();
  await page.keyboard.press("Control+a");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}

Deno.test({
  name: "the dashboard replaces the MCP Inspector for a person debugging an upstream",
  ignore: !hasChromium,
  async fn() {
    const config = {
      port: 0,
      policy: [{ match: "math.sub", action: "ask" }],
      mcpServers: { everything: { command: "node", args: [realServerBin("everything")] } },
    };
    await withHarness({
      files: { "tools/math.ts": TOOL, "gateway.json": JSON.stringify(config) },
    }, async (gw) => {
      const { port, token } = await gw.server();
      const client = await gw.client();
      const browser = await launchChromium();
      try {
        await pollUntil("math and everything to be ready", async () => {
          const ns = await client.request<{ namespaces: { status: string }[] }>("namespaces");
          return ns.namespaces.length === 2 && ns.namespaces.every((n) => n.status === "ready");
        });
        // The icon needs no token: a browser asks for it on every page of the origin.
        const icon = await fetch(`http://127.0.0.1:${port}/favicon.ico`);
        assert.equal(icon.status, 200);
        assert.equal(icon.headers.get("content-type"), "image/svg+xml");
        assert.match(await icon.text(), /<svg/);

        // bypassCSP lets the test inject axe-core; the page itself runs under the strict CSP.
        const context = await browser.newContext({
          viewport: { width: 1280, height: 900 },
          bypassCSP: true,
        });
        const page = await context.newPage();
        const errors: string[] = [];
        const refused: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        page.on("response", (r) => r.status() === 401 && refused.push(r.url()));
        const dashboard = `http://127.0.0.1:${port}/ui?token=${token}`;
        await page.goto(dashboard);
        await page.locator("#connection", { hasText: "connected" }).waitFor();
        assert.equal(
          await page.getAttribute('link[rel="icon"]', "href"),
          "/ui/favicon.svg",
          "the page names its icon",
        );
        const everything = page.locator('#namespaces tr[data-namespace="everything"]');
        await everything.locator("text=ready").waitFor();

        // Resources: the list, a text resource read, a template filled in, a binary shown.
        await everything.getByRole("link", { name: "Resources of everything" }).click();
        await page.locator("#view-resources:not([hidden])").waitFor();
        await page.locator("#h-resource-list", { hasText: /Resources \(\d+\)/ }).waitFor();
        await page.locator("#resource-list button", { hasText: "architecture.md" }).click();
        const detail = page.locator("#resource-detail");
        await detail.locator("code", { hasText: "demo://resource/static/document/architecture.md" })
          .waitFor();
        assert.match((await detail.locator("pre").textContent()) ?? "", /\w/);
        const textTemplate = page.locator("#template-list li", {
          hasText: "Dynamic Text Resource",
        });
        await textTemplate.getByLabel("resourceId (required)").fill("3");
        await textTemplate.locator("code", { hasText: "demo://resource/dynamic/text/3" }).waitFor();
        await textTemplate.getByRole("button", { name: "Read" }).click();
        await detail.locator("pre", { hasText: "Resource 3: This is a plaintext resource" })
          .waitFor();
        const blobTemplate = page.locator("#template-list li", {
          hasText: "Dynamic Blob Resource",
        });
        await blobTemplate.getByLabel("resourceId (required)").fill("2");
        await blobTemplate.getByRole("button", { name: "Read" }).click();
        // Text the server sent as base64 reads decoded.
        await detail.locator("text=Sent as base64, shown decoded:").waitFor();
        await detail.locator("pre", { hasText: "Resource 2: This is a base64 blob" }).waitFor();
        await checkView(page, "resources");

        // Prompts: the list, an arguments form with the server's completions, the messages.
        await page.click('a[href="#prompts"]');
        await page.locator("#prompt-list button", { hasText: "args-prompt" }).click();
        await page.getByLabel("city (required)").fill("Paris");
        await page.getByRole("button", { name: "Get prompt" }).click();
        const messages = page.locator("#prompt-detail .message-list");
        await messages.locator("text=What's weather in Paris?").waitFor();
        assert.match((await messages.locator(".role").first().textContent()) ?? "", /user/);
        await page.locator("#prompt-list button", { hasText: "completable-prompt" }).click();
        await page.getByLabel("department (required)").pressSequentially("Eng");
        await pollUntil(
          "completion/complete to suggest Engineering",
          async () =>
            (await page.locator("#prompt-detail datalist option").evaluateAll(
              (options) => options.map((o) => (o as unknown as { value: string }).value),
            )).includes("Engineering"),
        );
        await page.getByLabel("department (required)").fill("Engineering");
        await page.getByLabel("name (required)").pressSequentially("A");
        await pollUntil(
          "the second argument's completions to follow the first",
          async () =>
            (await page.locator("#prompt-detail datalist option").evaluateAll(
              (options) => options.map((o) => (o as unknown as { value: string }).value),
            )).includes("Alice"),
        );
        await checkView(page, "prompts");

        // Protocol log: the handshake and calls so far, then new messages live.
        await page.click('a[href="#protocol"]');
        const log = page.locator("#protocol-table tbody");
        await log.locator("tr", { hasText: "initialize" }).first().waitFor();
        await log.locator("tr", { hasText: "resources/read" }).first().waitFor();
        await client.request("exec", {
          source: "await tools.everything.echo({ message: 'live one' })",
          check: false,
        });
        const answer = log.locator("tr.received.result", { hasText: "tools/call" }).first();
        await answer.waitFor();
        assert.match(
          (await answer.textContent()) ?? "",
          /received.*tools\/call echo \(result\).*\d+ ms/s,
        );
        await answer.getByRole("button", { name: /Show JSON of message \d+/ }).click();
        const json = log.locator("tr.json pre").first();
        await json.waitFor();
        const shown = JSON.parse((await json.textContent()) ?? "{}");
        assert.equal(shown.jsonrpc, "2.0");
        assert.match(JSON.stringify(shown.result), /live one/);
        await checkView(page, "protocol");
        // Filter by text and direction.
        await page.fill("#protocol-filter", "tools/call");
        await page.selectOption("#protocol-direction", "sent");
        const sentCalls = await log.locator("tr[data-seq]").allTextContents();
        assert.ok(sentCalls.length >= 1, "a sent tools/call is listed");
        for (const row of sentCalls) assert.match(row, /sent.*tools\/call/s);
        await page.fill("#protocol-filter", "");
        await page.selectOption("#protocol-direction", "");
        // Pause holds new messages back; resume shows them.
        const before = await log.locator("tr[data-seq]").count();
        await page.getByRole("button", { name: "Pause" }).click();
        await client.request("exec", {
          source: "await tools.everything.echo({ message: 'while paused' })",
          check: false,
        });
        await page.locator("#protocol-count", { hasText: /paused, [1-9]\d* new held back/ })
          .waitFor();
        assert.equal(await log.locator("tr[data-seq]").count(), before);
        await page.getByRole("button", { name: /^Resume/ }).click();
        await pollUntil(
          "the held messages to show",
          async () => await log.locator("tr[data-seq]").count() > before,
        );
        // Clear empties the log; a restart's handshake then shows live.
        await page.getByRole("button", { name: "Clear" }).click();
        await log.locator("td.empty", { hasText: "No messages yet" }).waitFor();
        await checkView(page, "protocol-empty");
        await client.request("namespace.restart", { namespace: "everything" });
        await log.locator("tr.sent.request", { hasText: "initialize" }).waitFor();
        await log.locator("tr.received.result", { hasText: "initialize" }).waitFor();

        // Problems: type errors listed under the editor; a click goes to the line.
        await page.click('a[href="#run"]');
        await typeScript(page, "const n: number = 'text';\nconst m: string = 1;\nn");
        const problems = page.locator("#problems button.problem");
        await pollUntil("two problems listed", async () => await problems.count() === 2);
        assert.match((await problems.nth(0).textContent()) ?? "", /^Line 1:\d+ .*not assignable/);
        assert.match((await problems.nth(1).textContent()) ?? "", /^Line 2:\d+ .*not assignable/);
        await problems.nth(1).click();
        assert.match(await activeLine(page), /const m: string = 1/);
        await page.locator("#editor .cm-focused").waitFor();
        await checkView(page, "problems");
        // A run's tool calls are named as the script typed them, the upstream name beside.
        await typeScript(page, "await tools.everything.get_sum({ a: 1, b: 2 })");
        await page.keyboard.press("Control+Enter");
        const call = page.locator("#run-result table.calls tbody tr").first();
        await call.waitFor();
        assert.match(
          (await call.locator("td").first().textContent()) ?? "",
          /^everything\.get_sum \(upstream name get-sum\)$/,
        );
        await pollUntil(
          "no problems for a script that checks",
          async () =>
            await page.locator("#problems li.empty", { hasText: "No problems" }).count() === 1,
        );

        // Tools: found by the name a script types, the server's name, or words.
        await page.click('a[href="#tools"]');
        const found = page.locator("#tool-list li[data-path]");
        for (
          const query of ["everything.get_sum", "tools.everything.get_sum", "get-sum", "get_sum"]
        ) {
          await page.fill("#tool-search", query);
          await pollUntil(
            `"${query}" to find everything.get_sum first`,
            async () => await found.first().getAttribute("data-path") === "everything.get_sum",
          );
        }
        assert.match((await found.first().textContent()) ?? "", /\(upstream name get-sum\)/);
        await page.fill("#tool-search", "math.add");
        await pollUntil(
          "math.add alone",
          async () =>
            (await found.evaluateAll((items) =>
              items.map((i) => (i as unknown as { dataset: { path: string } }).dataset.path)
            )).join() === "math.add",
        );
        // A long description is cut at a word, with the whole a click away.
        const summary = found.first().locator("details.desc summary");
        const cut = ((await summary.textContent()) ?? "").replace(/… more$/, "");
        assert.ok(LONG_DESCRIPTION.startsWith(cut), `"${cut}" begins the description`);
        assert.ok(cut.length < LONG_DESCRIPTION.length);
        assert.match(LONG_DESCRIPTION.slice(cut.length), /^[\s,]/, `"${cut}" ends at a word`);
        await summary.click();
        assert.equal(
          await found.first().locator("details.desc .full").textContent(),
          LONG_DESCRIPTION,
        );
        await page.fill("#tool-search", "xyzzy");
        await page.locator("#tool-list li.empty", { hasText: "No tool matches" }).waitFor();
        await page.fill("#tool-search", "get_sum");
        await found.first().waitFor();
        await checkView(page, "tools");

        // Approvals at a phone's width: Allow and Deny are on screen; the answer stays listed.
        await page.click('a[href="#approvals"]');
        const held = client.request<{ ok: boolean; result: number }>("exec", {
          source: "await tools.math.sub({ a: 50, b: 8 })",
        });
        await page.locator("#approvals button.allow").waitFor();
        await checkView(page, "approvals-held");
        await page.setViewportSize({ width: 390, height: 844 });
        assert.ok(await onScreen(page, "#approvals button.allow"), "Allow is on screen at 390 px");
        assert.ok(await onScreen(page, "#approvals button.deny"), "Deny is on screen at 390 px");
        await page.locator("#approvals button.allow").click();
        assert.equal((await held).result, 42);
        await page.locator("#answered", { hasText: "allowed by dashboard" }).waitFor();
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.reload();
        await page.locator("#connection", { hasText: "connected" }).waitFor();
        await page.click('a[href="#approvals"]');
        const kept = page.locator("#answered li", { hasText: "math.sub" });
        await kept.waitFor();
        assert.match((await kept.textContent()) ?? "", /math\.sub allowed by dashboard/);
        await checkView(page, "approvals-answered");

        // History at a phone's width: every column of a run is on screen.
        await page.click('a[href="#history"]');
        await page.locator("#runs tbody tr[class]").first().waitFor();
        await checkView(page, "history-phone-check");
        await page.setViewportSize({ width: 390, height: 844 });
        const cells = await page.locator("#runs tbody tr").first().locator("td").count();
        assert.equal(cells, 6);
        for (let i = 1; i <= cells; i++) {
          assert.ok(
            await onScreen(page, `#runs tbody tr:first-child td:nth-child(${i})`),
            `history column ${i} is on screen at 390 px`,
          );
        }
        await page.setViewportSize({ width: 1280, height: 900 });

        assert.deepEqual(refused, [], "no request of the page was refused");
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
        await client.close();
      }
    });
  },
});

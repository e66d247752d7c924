/**
 * Every table and list of the dashboard says what would appear there and how when it is empty
 * (never bare headers), in headless Chromium against a real gateway whose root starts with
 * nothing: no namespaces, tools, runs, approvals or workflows; then with an MCP server that
 * offers no resources or prompts (the real server-filesystem) and a cleared protocol log. Each
 * view passes axe-core at 1280 and 390 px; screenshots are kept under test/artifacts/dashboard/.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { realServerBin } from "./fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "./support/poll_until.ts";
import { checkView, hasChromium, launchChromium } from "./support/dashboard_browser.ts";

Deno.test({
  name: "every empty table and list of the dashboard says what would appear and how",
  ignore: !hasChromium,
  async fn() {
    await withHarness({ files: { "gateway.json": JSON.stringify({ port: 0 }) } }, async (gw) => {
      const { port, token } = await gw.server();
      const client = await gw.client();
      const browser = await launchChromium();
      try {
        const context = await browser.newContext({
          viewport: { width: 1280, height: 900 },
          bypassCSP: true,
        });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        await page.goto(`http://127.0.0.1:${port}/ui?token=${token}`);
        await page.locator("#connection", { hasText: "connected" }).waitFor();

        const expectations: [tab: string, selector: string, text: string][] = [
          ["namespaces", "#namespaces td.empty", "No namespaces yet — add a tool module"],
          ["tools", "#tool-list li.empty", "No tools yet"],
          ["resources", "#resource-list li.empty", "No MCP servers configured"],
          ["prompts", "#prompt-list li.empty", "No MCP servers configured"],
          ["protocol", "#protocol-table td.empty", "No MCP servers configured"],
          ["run", "#problems li.empty", "No problems — type errors in the script are listed"],
          ["history", "#runs td.empty", "No runs yet — run gateway exec '1+1'"],
          ["approvals", "#approvals td.empty", "Nothing is waiting — a call that an ask rule"],
          ["approvals", "#answered li.empty", "No answered approvals yet"],
          ["workflows", "#sessions td.empty", "No workflow sessions — start one with"],
          ["workflows", "#workflow-files li.empty", "No workflows — add a file as workflows/"],
        ];
        for (const [tab, selector, text] of expectations) {
          await page.click(`a[href="#${tab}"]`);
          await page.locator(selector, { hasText: text }).waitFor();
          await checkView(page, `empty-${tab}`);
        }
        // A table shows its headers' labels, not a bare header row, even on a phone.
        assert.equal(await page.locator("#sessions tbody tr").count(), 1);

        // Filters that match nothing say so, not "no runs yet".
        await client.request("exec", { source: "1 + 1", check: false });
        await page.click('a[href="#history"]');
        await page.selectOption("#filter-status", "failed");
        await page.click("#history-filters button[type=submit]");
        await page.locator("#runs td.empty", { hasText: "No runs match these filters" }).waitFor();
        await checkView(page, "empty-history-filtered");

        // An MCP server with no resources or prompts, and a cleared protocol log.
        const config = {
          port: 0,
          mcpServers: {
            files: { command: "node", args: [realServerBin("filesystem"), gw.root] },
          },
        };
        await Deno.writeTextFile(join(gw.root, "gateway.json"), JSON.stringify(config));
        await page.click('a[href="#namespaces"]');
        await page.locator('#namespaces tr[data-namespace="files"] .status.ready').waitFor({
          timeout: 20_000,
        });
        await page.click('a[href="#resources"]');
        await page.locator("#resource-list li.empty", { hasText: 'No resources — "files"' })
          .waitFor();
        await page.locator("#template-list li.empty", { hasText: "No resource templates" })
          .waitFor();
        await checkView(page, "empty-resources-of-a-server");
        await page.click('a[href="#prompts"]');
        await page.locator("#prompt-list li.empty", {
          hasText: 'No prompts — "files" offers none (its server has no prompts capability)',
        }).waitFor();
        await checkView(page, "empty-prompts-of-a-server");
        await page.click('a[href="#protocol"]');
        await page.locator("#protocol-table tr", { hasText: "initialize" }).first().waitFor();
        await page.getByRole("button", { name: "Clear" }).click();
        await page.locator("#protocol-table td.empty", { hasText: "No messages yet — every" })
          .waitFor();
        await checkView(page, "empty-protocol-of-a-server");
        await pollUntil(
          "the cleared log to stay empty on the server",
          async () =>
            (await client.request<{ entries: unknown[] }>("protocol.log", { namespace: "files" }))
              .entries.length === 0,
        );

        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
        await client.close();
      }
    });
  },
});

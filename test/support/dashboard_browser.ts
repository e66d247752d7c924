/**
 * Headless Chromium for the dashboard tests: launching it, opening the page signed in, and the
 * checks every view gets at desktop (1280 px) and phone (390 px) widths — no serious or
 * critical axe-core violation, nothing wider than the screen, a screenshot kept under
 * `test/artifacts/dashboard/` to look at.
 * @module
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the product's import map
import { type Browser, chromium, type Page } from "npm:playwright-core@1.65.1";
// deno-lint-ignore no-import-prefix -- as above
import axe from "npm:axe-core@4.14.1";

/** Where Chromium is installed on the machines that run these tests. */
export const CHROMIUM = "/usr/bin/chromium";
/** Whether the dashboard tests can run here. */
export const hasChromium: boolean = await Deno.stat(CHROMIUM).then(() => true, () => false);
/** Screenshots of the dashboard tests (gitignored). */
export const ARTIFACTS: string = new URL("../artifacts/dashboard/", import.meta.url).pathname;

/** The widths every view is checked at. */
export const WIDTHS = [[1280, 900, "desktop"], [390, 844, "phone"]] as const;

/** Starts headless Chromium with nothing running in the background. */
export async function launchChromium(): Promise<Browser> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  return await chromium.launch({
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
}

/** Fails naming every serious or critical axe-core violation on the page as it is now. */
export async function axeViolations(page: Page, label: string): Promise<void> {
  if (!await page.evaluate("typeof axe !== 'undefined'")) {
    await page.addScriptTag({ content: axe.source });
  }
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

/** Fails when the page scrolls sideways: at a phone's width every control must be on screen. */
export async function fitsWidth(page: Page, label: string): Promise<void> {
  const widths = await page.evaluate(
    "({ page: document.documentElement.scrollWidth, screen: window.innerWidth })",
  ) as { page: number; screen: number };
  assert.ok(
    widths.page <= widths.screen,
    `${label}: the page is ${widths.page} px wide on a ${widths.screen} px screen`,
  );
}

/**
 * Checks the view shown at both widths (axe, no sideways scrolling) and keeps a full-page
 * screenshot of each as `NAME-desktop.png` / `NAME-phone.png`; leaves the page at 1280 px.
 */
export async function checkView(page: Page, name: string): Promise<void> {
  for (const [width, height, device] of WIDTHS) {
    await page.setViewportSize({ width, height });
    await axeViolations(page, `${name} at ${width} px`);
    await fitsWidth(page, `${name} at ${width} px`);
    await page.screenshot({ path: `${ARTIFACTS}${name}-${device}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Whether the element is wholly inside the viewport's width (reachable without scrolling sideways). */
export async function onScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).first().boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  return box !== null && box.x >= 0 && box.x + box.width <= width;
}

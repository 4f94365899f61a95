// Debian's Chromium driven by playwright-core, with a fresh profile per launch. Screenshots go to
// test/artifacts/ (not committed).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, type Page, chromium } from "playwright-core";
import { buildCheckoutUi } from "../../checkout-ui/build.ts";
import { CHROMIUM_PATH } from "./prerequisites.ts";
import { SCRATCH_DIR } from "./scratch-dir.ts";

export const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<Browser> {
  await buildCheckoutUi({ ifStale: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(join(SCRATCH_DIR, "stellar-pay-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-quic",
      "--disable-sync",
    ],
    viewport: options.viewport ?? { width: 1024, height: 800 },
  });
  // Below the test timeout, so that a wait that fails names its step.
  context.setDefaultTimeout(20_000);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const screenshotPath = (name: string) => join(ARTIFACTS, `${name}-${process.env.TEST_DIALECT ?? "sqlite"}.png`);

const AXE_SOURCE = new URL("../../node_modules/axe-core/axe.min.js", import.meta.url).pathname;

/**
 * The accessibility violations axe-core finds on the page as it is now (WCAG 2.1 A and AA rules),
 * each as "rule: the first offending element", so that a failing test names what to fix.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the pages' Content-Security-Policy allows no inline script.
  await page.evaluate(readFileSync(AXE_SOURCE, "utf8"));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(" ")}`);
  });
  return violations;
}

/** A new tab of `browser` at `viewport` where `who` has just signed in to the dashboard at `baseUrl` (no code asked), on Home. */
export async function signedInTab(browser: Browser, baseUrl: string, who: { email: string; password: string }, viewport = { width: 1280, height: 900 }): Promise<Page> {
  await browser.context.clearCookies(); // a fresh sign-in, not the session of the test before
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Home", level: 1 }).waitFor();
  return page;
}

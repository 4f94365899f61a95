// Debian's Chromium driven by playwright-core, with a fresh profile per launch. Screenshots go to
// test/artifacts/ (not committed).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { buildCheckoutUi } from "../../checkout-ui/build.ts";
import { CHROMIUM_PATH } from "./prerequisites.ts";

export const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<Browser> {
  await buildCheckoutUi({ ifStale: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), "stellar-pay-chromium-"));
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

// A merchant's first hour on Home (#27 items 3 and 4), in a real Chromium on the simulated network:
// the checklist names the four steps, funds the sandbox wallet with friendbot's test XLM, ticks the
// steps done on their own screens as soon as Home is shown again (never an old count first) and goes
// once a test payment completes (live, no reload); Settings shows the wallet's balance and renames the
// organization everywhere at once; Home gives the volume in the pricing currency where a rate is set.
import { Keypair, Networks } from "@stellar/stellar-sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setExchangeRate } from "../src/modules/organizations/organizations.service.ts";
import { listApiKeys, revokeApiKey } from "../src/modules/api-keys/api-keys.service.ts";
import { createUser } from "../src/modules/users/users.service.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath, signedInTab } from "./support/browser.ts";
import { postGraphQL } from "./support/dashboard.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;
const owner = { email: "owner@first-run.test", password: "correct-horse-battery" };

beforeAll(async () => {
  browser = await launchBrowser();
  t = await startTestApp({ workers: true, env: { LEDGER: "simulated", SIM_LEDGER_CLOSE_MS: "100", WEBHOOK_ALLOW_PRIVATE: "true" } });
  merchant = await t.createMerchant({ wallet: false });
  await createUser(t.deps, { organizationId: merchant.organizationId, role: "owner", ...owner });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});


const checklist = (page: Page) => page.getByRole("region", { name: "Get started" });

describe("Home on a first run", () => {
  it("walks the checklist to a first paid test payment, each step done on its own screen; it ticks itself without a reload and goes when done", async () => {
    // A merchant with no API key yet (the organization's own are revoked): nothing is done.
    for (const key of (await listApiKeys(t.deps, merchant.organizationId)).filter((k) => !k.revoked_at)) await revokeApiKey(t.deps, { prefix: key.prefix });
    const page = await signedInTab(browser, t.url, owner);
    await checklist(page).getByText("0 of 4 steps done.").waitFor();
    await checklist(page).getByRole("link", { name: "Open Settings" }).waitFor();
    expect(await checklist(page).getByText("Payments are paid to this Stellar account").count()).toBe(1);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-home-checklist-${width}`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    // Every count the checklist shows, and when it is not on the screen (null): Home must never show
    // a count from before a step was done elsewhere, not even while it reads the new one.
    await page.evaluate(() => {
      const shown: (string | null)[] = [];
      (window as unknown as { checklistShown: typeof shown }).checklistShown = shown;
      new MutationObserver(() => {
        const text = document.querySelector("#checklist-heading + p")?.textContent ?? null;
        if (shown[shown.length - 1] !== text) shown.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    let loads = 0;
    page.on("load", () => loads++);
    const main = page.getByRole("navigation", { name: "Main" });
    const toHome = async (done: number) => {
      await main.getByRole("link", { name: "Home" }).click();
      await checklist(page).getByText(`${done} of 4 steps done.`).waitFor();
    };

    // The settlement wallet, set in Settings: on a test network where it does not exist yet, the step offers friendbot's test XLM.
    await main.getByRole("link", { name: "Settings" }).click();
    const wallet = Keypair.random().publicKey();
    await page.getByLabel("New settlement wallet").fill(wallet);
    await page.getByLabel("Your password").fill(owner.password);
    await page.getByRole("button", { name: "Change wallet" }).click();
    await page.getByText(wallet).waitFor();
    // Settings offers the test XLM too, its button clear of the field under it (not touching its label).
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const fund = (await page.getByRole("button", { name: "Fund with test XLM" }).boundingBox())!;
      const label = (await page.getByText("New settlement wallet", { exact: true }).boundingBox())!;
      expect(label.y - (fund.y + fund.height)).toBeGreaterThanOrEqual(8);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await toHome(0);
    await checklist(page).getByText("does not exist on the test network yet").waitFor();
    await checklist(page).getByRole("button", { name: "Fund with test XLM" }).click();
    await checklist(page).getByText("1 of 4 steps done.").waitFor();
    expect(await t.app.ledger.sourceFor(Networks.TESTNET).loadAccount(wallet)).toMatchObject({ balances: [{ balance: 10_000n * 10_000_000n }] });

    // Settings shows what the wallet holds; renamed there, the organization is renamed in the header and the tab's title at once.
    await main.getByRole("link", { name: "Settings" }).click();
    await page.getByText("Balance: 10,000 XLM").or(page.getByText("Balance: 10000 XLM")).waitFor();
    expect(await page.getByRole("button", { name: "Fund with test XLM" }).count()).toBe(0);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-settings-balance-${width}`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByLabel("Organization name").fill("First Run Coffee");
    await page.getByRole("button", { name: "Save names" }).click();
    await page.locator("header.top .org", { hasText: "First Run Coffee" }).waitFor();
    expect(await page.title()).toBe("Settings · First Run Coffee · Dashboard");

    // An API key made on its screen, then a webhook endpoint on its: each ticks when Home is shown again.
    await main.getByRole("link", { name: "Developers" }).click();
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("Checkout server");
    await page.getByRole("button", { name: "Create API key" }).click();
    const key = (await page.getByRole("region", { name: "API key", exact: true }).locator("code").first().textContent())!;
    expect(key).toMatch(/^pk_test_/);
    await toHome(2);
    await main.getByRole("link", { name: "Developers" }).click();
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByLabel("Endpoint URL").fill("http://127.0.0.1:9/hook");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("link", { name: "http://127.0.0.1:9/hook" }).waitFor();
    await toHome(3);
    const shown = await page.evaluate(() => (window as unknown as { checklistShown: (string | null)[] }).checklistShown);
    const countsOnReturn = shown.filter((text, i) => text !== null && shown[i - 1] === null);
    expect(countsOnReturn).toEqual(["0 of 4 steps done.", "2 of 4 steps done.", "3 of 4 steps done."]);

    // The first test payment, made with the new key and paid on the simulated network: the list goes as it completes, without a reload.
    const payment = await t.api("POST", "/payments", { key, body: { amount: "5" } });
    expect(payment.status).toBe(201);
    const paid = await postGraphQL(t, { query: `mutation($id: ID!) { payWithTestWallet(paymentId: $id) { successful } }`, variables: { id: payment.body.id } });
    expect(paid.body.data.payWithTestWallet.successful).toBe(true);
    await checklist(page).waitFor({ state: "detached" });
    expect(loads).toBe(0);
    await page.close();
  }, 180_000);

  it("gives the volume in the pricing currency at today's rate, to the cent", async () => {
    await setExchangeRate(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", currency: "USD", assetCode: "XLM", price: "0.1234567" });
    const page = await signedInTab(browser, t.url, owner);
    const volume = page.getByRole("region", { name: "Completed volume per asset" });
    await volume.getByRole("columnheader", { name: "In USD" }).waitFor();
    // 5 XLM at 0.1234567 USD: 0.6172835 USD, shown to the cent.
    await volume.getByRole("row", { name: /XLM/ }).getByText("0.62 USD").waitFor();
    await page.getByText("In all, at today's USD rates: 0.62 USD").waitFor();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-home-currency-${width}`), fullPage: true });
    }
    await page.close();
  }, 120_000);
});

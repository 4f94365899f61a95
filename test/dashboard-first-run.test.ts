// A merchant's first hour on Home (#27 items 3 and 4), in a real Chromium on the simulated network:
// the checklist names the four steps, funds the sandbox wallet with friendbot's test XLM, ticks its
// steps as they are done and goes once a test payment completes (live, no reload); Settings shows
// the wallet's balance; Home gives the volume in the pricing currency where a rate is set.
import { Keypair, Networks } from "@stellar/stellar-sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setExchangeRate, setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
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
  it("walks the checklist to a first paid test payment, funding the wallet with test XLM; it ticks itself and goes when done", async () => {
    const page = await signedInTab(browser, t.url, owner);
    // The organization came with its API keys; nothing else is done.
    await checklist(page).getByText("1 of 4 steps done.").waitFor();
    await checklist(page).getByRole("link", { name: "Open Settings" }).waitFor();
    expect(await checklist(page).getByText("Payments are paid to this Stellar account").count()).toBe(1);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-home-checklist-${width}`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // A wallet that does not exist on the test network yet: the step offers friendbot's test XLM.
    const wallet = Keypair.random().publicKey();
    await setSettlementWallet(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", address: wallet });
    await page.reload();
    await checklist(page).getByText("does not exist on the test network yet").waitFor();
    await checklist(page).getByRole("button", { name: "Fund with test XLM" }).click();
    await checklist(page).getByText("2 of 4 steps done.").waitFor();
    expect(await t.app.ledger.sourceFor(Networks.TESTNET).loadAccount(wallet)).toMatchObject({ balances: [{ balance: 10_000n * 10_000_000n }] });

    // Settings shows what the wallet holds.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.getByText("Balance: 10,000 XLM").or(page.getByText("Balance: 10000 XLM")).waitFor();
    expect(await page.getByRole("button", { name: "Fund with test XLM" }).count()).toBe(0);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-settings-balance-${width}`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // A webhook endpoint added on its screen counts when Home is shown again.
    const endpoint = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body: { url: "http://127.0.0.1:9/hook", enabled_events: ["payment.completed"] } });
    expect(endpoint.status).toBe(201);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Home" }).click();
    await checklist(page).getByText("3 of 4 steps done.").waitFor();

    // The first test payment, paid on the simulated network: the list goes as it completes, without a reload.
    const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "5" } });
    const paid = await postGraphQL(t, { query: `mutation($id: ID!) { payWithTestWallet(paymentId: $id) { successful } }`, variables: { id: payment.body.id } });
    expect(paid.body.data.payWithTestWallet.successful).toBe(true);
    await checklist(page).waitFor({ state: "detached" });
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

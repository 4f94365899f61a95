// Dashboard screens show the result of their own action at once, without a reload (#27), in Chromium.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Browser, launchBrowser } from "./support/browser.ts";
import { type TestApp, startTestApp } from "./support/test-app.ts";
import { signedInUser } from "./support/dashboard.ts";

let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
  t = await startTestApp({ env: { LEDGER: "simulated", WEBHOOK_ALLOW_PRIVATE: "true" } });
});
afterAll(async () => { await browser?.close(); await t?.close(); });

it("Rotate secret turns the endpoint's masked secret to the new one at once", async () => {
  const merchant = await t.createMerchant();
  const owner = await signedInUser(t, merchant.organizationId, "owner");
  const made = await owner.graphql(`mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/hook", enabledEvents: ["payment.completed"] }) { webhookEndpoint { id } } }`);
  expect(made.body.errors).toBeUndefined();
  const id = made.body.data.createWebhookEndpoint.webhookEndpoint.id;
  const page = await browser.context.newPage();
  await browser.context.addCookies([{ name: "sp_session", value: owner.cookie.split("=")[1]!, url: t.url }]);
  await page.goto(`${t.url}/dashboard/developers/webhooks/${id}`);
  const before = await page.locator("dl.facts code").first().textContent();
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await page.getByText("New signing secret").waitFor();
  await page.waitForFunction((old) => document.querySelector("dl.facts code")?.textContent !== old, before);
  const after = await page.locator("dl.facts code").first().textContent();
  expect(before).toMatch(/^whsec_/);
  expect(after).toMatch(/^whsec_/);
  expect(after).not.toBe(before);
  await page.close();
});

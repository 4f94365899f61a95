// Dashboard screens show the result of their own action at once, without a reload (#27), in Chromium.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";
import { type TestApp, startTestApp } from "./support/test-app.ts";
import { signedInUser } from "./support/dashboard.ts";

let t: TestApp;
let browser: Browser;
let receiver: WebhookReceiver;
beforeAll(async () => {
  browser = await launchBrowser();
  receiver = await startWebhookReceiver();
  t = await startTestApp({ env: { LEDGER: "simulated", WEBHOOK_ALLOW_PRIVATE: "true" } });
});
afterAll(async () => { await browser?.close(); await t?.close(); await receiver?.close(); });

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

/** The dashboard's answer to its mutation `field` (the worker is run by hand after it). */
const answered = (page: Page, field: string) =>
  page.waitForResponse(async (response) => response.url().endsWith("/graphql") && (await response.text()).includes(`"${field}"`));

it("the delivery log shows a test event's and a Retry now's outcome live; the Events screen resends, at 1280 and 390 px, axe-clean", async () => {
  const merchant = await t.createMerchant();
  const owner = await signedInUser(t, merchant.organizationId, "owner");
  receiver.respond("/live-log", { status: 500, body: "" });
  const made = await owner.graphql(
    `mutation($url: String!) { createWebhookEndpoint(input: { url: $url, enabledEvents: ["*"] }) { webhookEndpoint { id } } }`,
    { url: `${receiver.url}/live-log` },
  );
  expect(made.body.errors).toBeUndefined();
  const id = made.body.data.createWebhookEndpoint.webhookEndpoint.id;
  const page = await browser.context.newPage();
  await browser.context.addCookies([{ name: "sp_session", value: owner.cookie.split("=")[1]!, url: t.url }]);
  await page.goto(`${t.url}/dashboard/developers/webhooks/${id}`);
  await page.getByText("No deliveries yet.").waitFor();
  let loads = 0;
  page.on("load", () => loads++);

  // Send test event: the worker's failed attempt reaches the open log without a reload.
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.locator("li.delivery").first().waitFor();
  await t.app.webhooks.runOnce();
  const summary = page.locator("li.delivery summary").first();
  await expect.poll(() => summary.textContent(), { timeout: 10_000 }).toMatch(/webhook\.test.*Retrying.*500.*1 attempt$/i);

  // Retry now, long before the schedule's next attempt: its outcome shows at once, marked as by hand.
  receiver.respond("/live-log", 204);
  await Promise.all([answered(page, "retryWebhookDelivery"), page.getByRole("button", { name: /^Retry now delivery whd_/ }).click()]);
  await t.app.webhooks.runOnce();
  await expect.poll(() => summary.textContent(), { timeout: 10_000 }).toMatch(/Succeeded.*204.*2 attempts$/i);
  await summary.click();
  await page.getByText("(by hand)").waitFor();
  expect(receiver.at("/live-log")).toHaveLength(2);
  for (const [name, width] of [["desktop", 1280], ["phone", 390]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: screenshotPath(`dashboard-delivery-log-live-${name}`), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    // the opened delivery takes the card's width, its button under it (not a third of a phone beside it)
    const [card, opened] = [await page.locator("li.delivery").first().boundingBox(), await page.locator("li.delivery details").first().boundingBox()];
    expect(opened!.width, name).toBeGreaterThan(card!.width * 0.9);
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  // The Events screen: the event with its delivery; Resend sends it again, and the list follows.
  await page.goto(`${t.url}/dashboard/developers/events`);
  const event = page.locator("li.delivery").first();
  await expect.poll(() => event.textContent(), { timeout: 10_000 }).toMatch(/webhook\.test.*live-log.*Succeeded.*2 attempts/i);
  loads = 0;
  await Promise.all([answered(page, "resendWebhookEvent"), page.getByRole("button", { name: /^Resend evt_/ }).first().click()]);
  await t.app.webhooks.runOnce();
  await expect.poll(() => event.textContent(), { timeout: 10_000 }).toMatch(/Succeeded.*204.*3 attempts/i);
  expect(receiver.at("/live-log")).toHaveLength(3);
  expect(loads).toBe(0);

  await page.getByLabel("Event kind").selectOption("payment.completed");
  await page.getByText("No events yet.").waitFor();
  await page.getByLabel("Event kind").selectOption("");
  await event.waitFor();
  for (const [name, width] of [["desktop", 1280], ["phone", 390]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: screenshotPath(`dashboard-events-${name}`), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
  await page.close();
}, 60_000);

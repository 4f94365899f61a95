// The dashboard's mail screens in Chromium, at 1280 and 390 px: Your account → Email notices saves
// each box as it is ticked and the server keeps it; an invoice sent from its detail shows its mail
// "Pending" and then "Sent" on the open page once the mail worker has sent it (a real SMTP server
// here receives it), and "Paid" once its payment completes, with no reload. axe-core finds nothing on either screen.
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { accessibilityViolations, launchBrowser, screenshotPath, signedInTab } from "./support/browser.ts";
import { startSmtpServer } from "./support/smtp.ts";
import { startTestApp } from "./support/test-app.ts";

const LAPTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

const smtp = await startSmtpServer();
const browser = await launchBrowser();
const t = await startTestApp({ env: { SMTP_URL: `smtp://user:secret@127.0.0.1:${smtp.port}` } });
afterAll(async () => {
  await browser.close();
  await t.close();
  await smtp.close();
});
const merchant = await t.createMerchant();
const owner = { email: "owner@mail-screens.test", password: "a-long-enough-password" };
const { user } = await createUser(t.deps, { organizationId: merchant.organizationId, email: owner.email, role: "owner", password: owner.password });

const signedInPage = (viewport: { width: number; height: number }): Promise<Page> => signedInTab(browser, t.url, owner, viewport);

const stored = async () => (await t.database.db.user.findUnique({ where: { id: user.id } }))!;

describe("dashboard mail", () => {
  it("Email notices: each box saves as it is ticked, says so, and the server keeps it", async () => {
    for (const viewport of [LAPTOP, PHONE]) {
      const page = await signedInPage(viewport);
      await page.goto(`${t.url}/dashboard/account`);
      const notices = page.getByRole("region", { name: "Email notices" });
      const paymentReceived = notices.getByRole("checkbox", { name: /Payment received/ });
      await paymentReceived.waitFor();
      const before = (await stored()).notifyPaymentReceived;
      expect(await paymentReceived.isChecked()).toBe(before);
      await paymentReceived.click();
      await notices.getByText("Saved.").waitFor();
      expect(await paymentReceived.isChecked()).toBe(!before);
      expect((await stored()).notifyPaymentReceived).toBe(!before);
      await notices.getByRole("checkbox", { name: /Webhook endpoint failing/ }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: screenshotPath(`dashboard-email-notices-${viewport.width}`), fullPage: true });
      await page.close();
    }
  });

  it("an invoice's mail turns from Pending to Sent, and the invoice to Paid, on its open detail, without a reload", async () => {
    const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Ada", email: "ada@mail-screens.test" } });
    for (const viewport of [LAPTOP, PHONE]) {
      const invoice = await t.api("POST", "/invoices", { key: merchant.sandboxKey, body: { customer_id: customer.body.id, amount: "12" } });
      expect((await t.api("POST", `/invoices/${invoice.body.id}/finalize`, { key: merchant.sandboxKey })).status).toBe(200);
      const page = await signedInPage(viewport);
      await page.goto(`${t.url}/dashboard/invoices/${invoice.body.id}`);
      await page.getByRole("button", { name: "Send invoice" }).click();
      const mails = page.getByRole("table", { name: "Emails about this invoice" });
      await mails.getByText("ada@mail-screens.test").waitFor();
      // At phone width a cell's name starts with its column's (the stacked rows' labels).
      await mails.getByRole("cell", { name: /^(\w+ )?pending$/ }).waitFor();
      const received = smtp.received.length;
      // The worker sends it now; the page was not reloaded.
      expect(await t.app.mail.runOnce()).toBe(1);
      expect(smtp.received.length).toBe(received + 1);
      await mails.getByRole("cell", { name: /^(\w+ )?sent$/ }).waitFor();
      // Its payment completes elsewhere (here: marked by hand through the API): the open page turns Paid.
      const payment = (await t.api("GET", `/invoices/${invoice.body.id}`, { key: merchant.sandboxKey })).body.payment_intent_id;
      const marked = await t.graphql(`mutation($id: ID!) { markPaymentCompleted(id: $id, reason: "paid by wire") { status } }`, { id: payment }, merchant.sandboxKey);
      expect(marked.body.errors).toBeUndefined();
      await page.locator("dl.facts .status", { hasText: "Paid" }).waitFor();
      await t.app.mail.runOnce(); // the owner's "payment received" and "invoice paid" notices, out of the next round's count
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-invoice-mail-sent-${viewport.width}`), fullPage: true });
      await page.close();
    }
    // Two widths, each a send, a mail run and a payment: more than 30 s on a loaded machine.
  }, 60_000);

  it("an invoice's mail on a service with no mail server (npm run demo's way) says it was not sent, in words", async () => {
    const bare = await startTestApp();
    try {
      const shop = await bare.createMerchant();
      const who = { email: "owner@no-smtp.test", password: "a-long-enough-password" };
      await createUser(bare.deps, { organizationId: shop.organizationId, role: "owner", ...who });
      const customer = await bare.api("POST", "/customers", { key: shop.sandboxKey, body: { name: "Ada", email: "ada@no-smtp.test" } });
      const invoice = await bare.api("POST", "/invoices", { key: shop.sandboxKey, body: { customer_id: customer.body.id, amount: "12" } });
      expect((await bare.api("POST", `/invoices/${invoice.body.id}/finalize`, { key: shop.sandboxKey })).status).toBe(200);
      const page = await signedInTab(browser, bare.url, who, PHONE);
      await page.goto(`${bare.url}/dashboard/invoices/${invoice.body.id}`);
      await page.getByRole("button", { name: "Send invoice" }).click();
      const mails = page.getByRole("table", { name: "Emails about this invoice" });
      await mails.getByText("ada@no-smtp.test").waitFor();
      expect(await bare.app.mail.runOnce()).toBe(1);
      // Written to the log, not sent: the row says so without a reload, and never the bare word "logged".
      await mails.getByText("not sent: no mail server is set up, so it was written to the server's log").waitFor();
      expect(await mails.getByRole("cell", { name: /^(\w+ )?logged$/ }).count()).toBe(0);
      // Nor a time under Sent (at phone width the cell's name starts with its column's).
      expect(await mails.getByRole("cell", { name: /^(Sent )?—$/ }).count()).toBe(1);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: screenshotPath("dashboard-invoice-mail-logged-390"), fullPage: true });
      await page.close();
    } finally {
      await bare.close();
    }
  }, 60_000);
});

// The hosted checkout in a real Chromium: live status without reload, the final states, invoices,
// a phone-sized screen. Screenshots are written to test/artifacts/.
import { StrKey } from "@stellar/stellar-sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completePayment } from "../src/modules/payments/payment-completion.ts";
import { failPayment } from "../src/modules/payments/payment-failure.ts";
import { recordPaymentEvent } from "../src/modules/payments/payments.service.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  merchant = await t.createMerchant();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The page at its checkout_url's path, on the test server. */
async function open(checkoutUrl: string): Promise<{ page: Page; status: number | undefined }> {
  const page = await browser.context.newPage();
  const response = await page.goto(`${t.url}${new URL(checkoutUrl).pathname}`);
  return { page, status: response?.status() };
}

const QR_NAME = "QR code of the payment request for a mobile wallet";
/** Any element screen readers announce on change. */
const LIVE = "[aria-live], [role=status], [role=alert], [role=log], [role=timer], [role=marquee]";

/** The payment's SEP-7 URI, as the public checkout query gives it. */
async function sep7Uri(id: string): Promise<string> {
  const res = await t.graphql("query ($id: ID!) { checkout(id: $id) { instructions { sep7Uri } } }", { id });
  return res.body.data.checkout.instructions.sep7Uri;
}

async function createPayment(body: Record<string, unknown> = {}) {
  const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "12.5", description: "Two coffees", ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; checkout_url: string };
}

describe("checkout page", () => {
  it("shows the payment and turns to Paid live, without a reload, with no private field on the page", async () => {
    const payment = await createPayment({ metadata: { order_ref: "private-order-5521" } });
    const { page, status } = await open(payment.checkout_url);
    expect(status).toBe(200);
    await page.getByText("Two coffees").waitFor();
    expect(await page.getByTestId("amount").textContent()).toBe("12.5 XLM");
    expect(await page.getByTestId("countdown").textContent()).toMatch(/^Expires in 59:\d\d$/);
    await page.getByRole("button", { name: "Pay with a test wallet" }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));

    // At laptop width: the QR code and each detail with its Copy button, nothing to unfold, and the
    // wallet link beside the QR code.
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.locator("details").count()).toBe(0);
    await page.getByRole("img", { name: QR_NAME }).waitFor();
    for (const name of ["Copy destination", "Copy memo ID", "Copy amount", "Copy address with the memo built in"]) {
      expect(await page.getByRole("button", { name, exact: true }).isVisible()).toBe(true);
    }
    expect(await page.locator(".qr-box").getByRole("link", { name: "Open in wallet" }).getAttribute("href")).toBe(await sep7Uri(payment.id));
    // The ticking countdown is no live region (it would be read out every second); the status says nothing an hour ahead.
    expect(await page.getByTestId("countdown").evaluate((el, live) => el.closest(live) === null, LIVE)).toBe(true);
    expect(await page.locator("main[aria-live]").count()).toBe(0);
    expect(await page.getByTestId("announcer").textContent()).toBe("");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("checkout-1280px"), fullPage: true });

    const hash = "c".repeat(64);
    // Paid from a contract account (a smart wallet, C...): the receipt names it as it names an account.
    const payer = StrKey.encodeContract(Buffer.alloc(32, 7));
    await completePayment(t.deps, { id: payment.id }, { txHash: hash, payerAddress: payer });

    await page.getByRole("heading", { name: "Paid" }).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId("announcer").textContent()).toBe("Paid");
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    const link = page.getByRole("link", { name: hash });
    expect(await link.getAttribute("href")).toBe(`https://stellar.expert/explorer/testnet/tx/${hash}`);
    expect(await page.getByTestId("payer").locator("dt").textContent()).toBe("Paid from");
    expect(await page.getByTestId("payer").locator("code").textContent()).toBe(`${payer.slice(0, 6)}…${payer.slice(-6)}`);
    await page.getByRole("button", { name: "Copy payer address" }).click();
    await page.getByRole("button", { name: "Copied payer address" }).waitFor();
    expect(await page.content()).not.toContain("private-order-5521");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("checkout-paid"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("checkout-paid-390px"), fullPage: true });
    await page.close();
  });

  it("redirects to the session's success_url once paid", async () => {
    const successUrl = `${t.url}/health?paid=1`;
    const session = await t.api("POST", "/checkout-sessions", { key: merchant.sandboxKey, body: { amount: "2", success_url: successUrl } });
    expect(session.status).toBe(201);
    const { page } = await open(session.body.checkout_url);
    await page.getByRole("button", { name: "Pay with a test wallet" }).waitFor();
    await completePayment(t.deps, { id: session.body.payment_intent_id }, { txHash: "d".repeat(64) });
    await page.getByRole("heading", { name: "Paid" }).waitFor({ timeout: 15_000 });
    await page.waitForURL(successUrl, { timeout: 15_000 });
    await page.close();
  });

  it("gives a failed payment's reason in words", async () => {
    const payment = await createPayment();
    const { page } = await open(payment.checkout_url);
    await page.getByRole("button", { name: "Pay with a test wallet" }).waitFor();
    // The ledger's failure move, as the ledger worker commits it: status, reason and event together.
    await t.database.db.$transaction(async (tx) => {
      const failed = await tx.payment.update({
        where: { id: payment.id },
        data: { status: "failed", failureReason: "op_underfunded", updatedAt: t.clock.now() },
      });
      await recordPaymentEvent(tx, t.deps, failed, "payment.failed");
    });
    await page.getByRole("heading", { name: "Payment failed" }).waitFor({ timeout: 15_000 });
    await page.getByText("The paying account does not hold enough of the asset.").waitFor();
    await page.close();
  });

  it("finding 2: after a failed attempt the page says why and offers paying again, until the payment completes", async () => {
    const payment = await createPayment();
    const { page } = await open(payment.checkout_url);
    await page.getByRole("button", { name: "Pay with a test wallet" }).waitFor();
    await t.database.db.$transaction((tx) => failPayment(tx, t.deps, payment, "tx_failed, op_underfunded"));

    await page.getByRole("heading", { name: "Payment failed" }).waitFor({ timeout: 15_000 });
    await page.getByText("The paying account does not hold enough of the asset.").waitFor();
    await page.getByText("You can try again.").waitFor();
    expect(await page.getByTestId("announcer").textContent()).toBe("Payment failed. It may be paid again until it expires.");
    for (const name of ["Pay with Freighter", "Pay with a test wallet"]) expect(await page.getByRole("button", { name }).isEnabled()).toBe(true);
    expect(await page.getByTestId("countdown").textContent()).toMatch(/^Expires in \d\d:\d\d$/);
    await page.getByText("Pay from a mobile wallet").waitFor();
    await page.screenshot({ path: screenshotPath("checkout-failed-retry"), fullPage: true });

    // A later payment that the ledger shows completes the failed payment: the page turns to Paid.
    await completePayment(t.deps, { id: payment.id }, { from: "failed", txHash: "e".repeat(64) });
    await page.getByRole("heading", { name: "Paid" }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("button", { name: "Pay with a test wallet" }).count()).toBe(0);
    await page.close();
  });

  it("tells screen readers once when 5 minutes are left, not every second", async () => {
    const payment = await createPayment({ expires_in_minutes: 5 });
    const { page } = await open(payment.checkout_url);
    await page.getByTestId("countdown").waitFor();
    const announcer = page.getByTestId("announcer");
    expect(await announcer.getAttribute("role")).toBe("status");
    expect(await announcer.textContent()).toBe("5 minutes left to pay.");
    // The status text stays the same while the countdown ticks: nothing new to announce.
    const before = await page.getByTestId("countdown").textContent();
    await page.waitForFunction((text) => document.querySelector('[data-testid="countdown"]')?.textContent !== text, before);
    expect(await announcer.textContent()).toBe("5 minutes left to pay.");
    await page.close();
  });

  it("shows an expired payment as expired", async () => {
    const payment = await createPayment({ expires_in_minutes: 5 });
    t.clock.advance(6 * 60_000);
    const { page } = await open(payment.checkout_url);
    await page.getByRole("heading", { name: "Payment expired" }).waitFor();
    expect(await page.getByRole("button", { name: "Pay with a test wallet" }).count()).toBe(0);
    await page.screenshot({ path: screenshotPath("checkout-expired"), fullPage: true });
    await page.close();
  });

  it("says an inactive payment link is inactive", async () => {
    const link = await t.api("POST", "/payment-links", { key: merchant.sandboxKey, body: { amount: "5", allowed_assets: [{ asset_code: "XLM", issuer_address: null }] } });
    expect(link.status).toBe(201);
    expect((await t.api("POST", `/payment-links/${link.body.id}/deactivate`, { key: merchant.sandboxKey })).status).toBe(200);
    const { page, status } = await open(link.body.url);
    expect(status).toBe(410);
    await page.getByText("This payment link is inactive").waitFor();
    await page.screenshot({ path: screenshotPath("checkout-link-inactive"), fullPage: true });
    await page.close();
  });

  it("shows an invoice with its line items, and a voided one as void", async () => {
    const created = await t.api("POST", "/invoices", {
      key: merchant.sandboxKey,
      body: { description: "Website work", items: [{ description: "Design hours", quantity: "2", unit_amount: "30" }, { description: "Hosting", quantity: "1", unit_amount: "15" }] },
    });
    expect(created.status).toBe(201);
    expect((await t.api("POST", `/invoices/${created.body.id}/finalize`, { key: merchant.sandboxKey })).status).toBe(200);
    const { page } = await open(created.body.hosted_invoice_url);
    await page.getByText(created.body.invoice_number).waitFor();
    const rows = await page.locator("table.lines tbody tr").allTextContents();
    expect(rows).toEqual(["Design hours260 XLM", "Hosting115 XLM"]);
    expect(await page.getByTestId("amount").textContent()).toBe("75 XLM");
    // Its payment is open for days: the page gives the date, not a count of days and hours.
    const expiry = page.getByTestId("countdown");
    expect(await expiry.textContent()).toMatch(/^Expires on \S/);
    const expiresAt = Date.parse((await expiry.locator("time").getAttribute("datetime"))!);
    expect(expiresAt - Date.now()).toBeGreaterThan(24 * 3600_000);
    await page.screenshot({ path: screenshotPath("checkout-invoice"), fullPage: true });

    expect((await t.api("POST", `/invoices/${created.body.id}/void`, { key: merchant.sandboxKey })).status).toBe(200);
    await page.getByRole("heading", { name: "Invoice void" }).waitFor({ timeout: 15_000 });
    await page.close();
  });

  it("answers an unknown id with 404 and says so", async () => {
    const { page, status } = await open(`${t.url}/c/pay_0000000000000000`);
    expect(status).toBe(404);
    await page.getByRole("heading", { name: "Checkout not found" }).waitFor();
    await page.close();
  });

  it("fits a 390 px wide phone screen and is usable by keyboard", async () => {
    const session = await t.api("POST", "/checkout-sessions", {
      key: merchant.sandboxKey,
      body: { amount: "42.1234567", description: "Concert ticket", cancel_url: "https://shop.example/cart" },
    });
    expect(session.status).toBe(201);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    // Hold the live stream back until the payer has moved the focus: its first view re-renders the
    // page, which must keep the focus where it was.
    let releaseStream!: () => void;
    const streamHeld = new Promise<void>((resolve) => (releaseStream = resolve));
    await page.route("**/graphql/stream", async (route) => {
      await streamHeld;
      await route.continue();
    });
    await page.goto(`${t.url}${new URL(session.body.checkout_url).pathname}`);
    await page.getByText("Concert ticket").waitFor();

    // Nothing to unfold: the QR code is there, and the wallet app link comes first, with the SEP-7 URI.
    await page.getByRole("img", { name: QR_NAME }).waitFor();
    const walletLink = page.getByRole("link", { name: "Open in wallet" });
    expect(await walletLink.count()).toBe(1);
    expect(await walletLink.getAttribute("href")).toBe(await sep7Uri(session.body.id));

    // Keyboard only: Tab through the controls, in the order they are seen, on to the memo's copy
    // button (the copy buttons differ by their labels only).
    const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? "");
    const focused: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      focused.push(await focusedName());
    }
    expect(focused).toEqual(["Open in wallet", "Pay with Freighter", "Pay with a test wallet", "Copy destination", "Copy memo ID"]);

    // The live stream's first view must keep the focus where it was.
    const streamAnswered = page.waitForResponse("**/graphql/stream");
    releaseStream();
    await streamAnswered;
    await page.waitForTimeout(500);
    expect(await focusedName()).toBe("Copy memo ID");
    expect(await accessibilityViolations(page)).toEqual([]);

    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.getByRole("link", { name: "Cancel and return to the merchant" }).getAttribute("href")).toBe("https://shop.example/cart");
    await page.screenshot({ path: screenshotPath("checkout-390px"), fullPage: true });
    await page.close();
  });
});

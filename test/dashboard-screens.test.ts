// Every dashboard screen, the checkout and the claim page, each with data in it, at laptop (1280 px)
// and phone (390 px) width in a real Chromium (#27 item 7): no screen scrolls sideways, axe-core
// finds nothing, no button's label breaks over two lines, a short id never wraps; at phone width the
// header is one row (the navigation behind Menu) and a list's filters fold behind one Filters button,
// so the first payment shows on the first screen. Screenshots go to test/artifacts/screens-*.
import { Memo, Operation } from "@stellar/stellar-sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardClient, signedInUser } from "./support/dashboard.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { type LedgerWorld, fundedPayer, payOp, signedTransaction, startLedgerWorld, submit, waitFor } from "./support/ledger.ts";

const WIDTHS = [1280, 390] as const;
let world: LedgerWorld;
let browser: Browser;
let owner: DashboardClient;
/** Each seeded record's id, for the detail screens' addresses. */
const ids: Record<string, string> = {};
let claimPath = "";

const api = async (method: string, path: string, body?: unknown) => {
  const answer = await world.t.api(method, path, { key: world.merchant.sandboxKey, ...(body !== undefined && { body }) });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.raw}`);
  return answer.body;
};
const gql = async (query: string) => {
  const answer = await owner.graphql(query, {}, { environment: "sandbox" });
  if (answer.body.errors) throw new Error(`${query}: ${JSON.stringify(answer.body.errors)}`);
  return answer.body.data;
};

/** A payment of `amount` paid in full by `payer`, once the service has counted it. */
async function paidPayment(amount: string, payer = undefined as Awaited<ReturnType<typeof fundedPayer>> | undefined, extra: Record<string, unknown> = {}) {
  const from = payer ?? (await fundedPayer(world.wallet));
  const created = await api("POST", "/payments", { amount, ...extra });
  const { destination, memo } = created.payment_instructions;
  await submit(world.wallet, await signedTransaction(world.wallet, from, [payOp(destination, amount)], { memo: Memo.id(memo) }));
  return waitFor(() => api("GET", `/payments/${created.id}`), (p) => p.status === "completed");
}

/** What a merchant's first weeks leave on every screen: long names, emails, descriptions and URLs included. */
async function seed() {
  const customer = await api("POST", "/customers", { name: "Ada Lovelace-Byron", email: "ada.lovelace-byron@analytical-engines.example" });
  ids.customer = customer.id;
  const paid = await paidPayment("12.5", undefined, { customer_id: customer.id, description: "Order 1001: two tickets for the Saturday concert, row F" });
  ids.payment = paid.id;
  await api("POST", "/payments", { amount: "42.1234567", description: "Order 1002", metadata: { order: "1002", channel: "web-shop" }, customer_id: customer.id });
  ids.refund = (await api("POST", "/refunds", { payment_id: paid.id, amount: "2.5", reason: "One ticket returned" })).id;

  // A payer whose exchange account asks for a memo: the refund waits for the payer's claim page.
  const exchange = await fundedPayer(world.wallet);
  const toClaim = await paidPayment("7", exchange);
  await submit(world.wallet, await signedTransaction(world.wallet, exchange, [Operation.manageData({ name: "config.memo_required", value: "1" })]));
  claimPath = new URL((await api("POST", "/refunds", { payment_id: toClaim.id })).claim_url).pathname;

  const invoice = await api("POST", "/invoices", {
    customer_id: customer.id,
    description: "Website redesign, phase one",
    items: [
      { description: "Design workshop with the whole team (half a day)", quantity: "2", unit_amount: "300" },
      { description: "Hosting", quantity: "12", unit_amount: "15.5" },
    ],
  });
  ids.invoice = invoice.id;
  ids.invoicePage = new URL((await api("POST", `/invoices/${invoice.id}/finalize`)).invoice.hosted_invoice_url).pathname;
  await api("POST", "/invoices", { customer_id: customer.id, items: [{ description: "Retainer", quantity: "1", unit_amount: "100" }] });
  await api("POST", "/payment-links", { amount: "5", description: "Donation to the community garden" });
  ids.checkout = new URL((await api("POST", "/checkout-sessions", { amount: "2", customer_id: customer.id, success_url: "https://shop.example/thanks?order=1003" })).checkout_url).pathname;

  // Money with a memo no payment has: the unmatched desk.
  const stranger = await fundedPayer(world.wallet);
  const sent = await submit(world.wallet, await signedTransaction(world.wallet, stranger, [payOp(world.merchant.wallet.publicKey(), "3")], { memo: Memo.text("my order") }));
  await waitFor(() => world.t.database.db.ledgerPayment.findFirst({ where: { txHash: sent.hash! } }), (row) => row !== null);

  await gql(`mutation { createApiKey(environment: sandbox, name: "Shop server (checkout and refunds)") { apiKey { id } } }`);
  const endpoint = await api("POST", "/webhook-endpoints", { url: "https://hooks.shop.example/stellar/webhooks/payments?source=dashboard", enabled_events: ["*"], description: "Order system" });
  ids.endpoint = endpoint.id;
  await api("POST", `/webhook-endpoints/${endpoint.id}/test`);
  await gql(`mutation { inviteUser(email: "new.developer@analytical-engines.example", role: developer) { id } }`);
  await signedInUser(world.t, world.merchant.organizationId, "developer");
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startLedgerWorld("5"), launchBrowser()]);
  owner = await signedInUser(world.t, world.merchant.organizationId, "owner");
  await seed();
  // Paying on the simulated network a few times over: long on a loaded machine.
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await world?.t.close();
});

/** What is wrong with the layout as it is now: sideways scrolling, a button's label on two lines, a short code broken. */
function layoutFaults(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const faults: string[] = [];
    const scroller = document.scrollingElement!;
    if (scroller.scrollWidth > innerWidth) {
      // Name the widest element that sticks out, so the failure says what to fix.
      const culprits = [...document.querySelectorAll<HTMLElement>("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && e.getClientRects().length > 0);
      const leaf = culprits.filter((e) => !culprits.some((c) => c !== e && e.contains(c)))[0];
      faults.push(`scrolls sideways: ${scroller.scrollWidth} px > ${innerWidth} px (${leaf?.tagName.toLowerCase()}.${leaf?.className} "${leaf?.textContent?.slice(0, 40)}")`);
    }
    const lines = (element: Element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom))).size;
    };
    for (const button of document.querySelectorAll("button, .button")) {
      if (button.getClientRects().length && lines(button) > 1) faults.push(`button "${button.textContent}" wraps`);
    }
    for (const code of document.querySelectorAll("code")) {
      if ((code.textContent ?? "").length <= 24 && code.getClientRects().length && lines(code) > 1) faults.push(`"${code.textContent}" wraps`);
    }
    return faults;
  });
}

/** Whether the header's visible controls share one row (each overlaps every other vertically). */
const headerIsOneRow = (page: Page) =>
  page.evaluate(() => {
    const boxes = [...document.querySelectorAll("header.top > *")].filter((e) => e.getClientRects().length).map((e) => e.getBoundingClientRect());
    return Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom));
  });

/** Checks the screen at both widths; `faults` collects what is wrong, named by screen and width. */
async function checkBothWidths(page: Page, name: string, faults: string[], dashboard = true) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 844 });
    const where = `${name} at ${width} px`;
    faults.push(...(await layoutFaults(page)).map((f) => `${where}: ${f}`));
    faults.push(...(await accessibilityViolations(page)).map((v) => `${where}: ${v}`));
    if (dashboard && !(await headerIsOneRow(page))) faults.push(`${where}: the header takes more than one row`);
    await page.screenshot({ path: screenshotPath(`screens-${name.replace(/[^a-z0-9]+/gi, "-").replace(/-$/, "")}-${width}`), fullPage: true });
  }
}

describe("every screen at 1280 and 390 px", () => {
  it("the dashboard's screens fit, read and work at both widths", async () => {
    // Each screen with the selector of something its data shows (Playwright's text= or css).
    const screens: [path: string, heading: RegExp, shows: string][] = [
      ["/", /^Home$/, "text=Completed volume per day"],
      ["/payments", /^Payments$/, `text=${ids.payment}`],
      [`/payments/${ids.payment}`, /^Payment /, "text=Order 1001"],
      ["/refunds", /^Refunds$/, `text=${ids.refund}`],
      [`/refunds/${ids.refund}`, /^Refund /, "text=One ticket returned"],
      ["/invoices", /^Invoices$/, "text=INV-"],
      [`/invoices/${ids.invoice}`, /^Invoice /, "text=Design workshop"],
      ["/payment-links", /^Payment links$/, "text=plink_"],
      ["/checkout-sessions", /^Checkout sessions$/, "text=cs_"],
      ["/customers", /^Customers$/, "text=Ada Lovelace-Byron"],
      [`/customers/${ids.customer}`, /Ada Lovelace-Byron/, "text=INV-"],
      ["/unmatched", /^Unmatched payments$/, "text=my order"],
      ["/developers", /^Developers$/, "text=API keys"],
      ["/developers/api-keys", /^API keys$/, "text=Shop server"],
      ["/developers/webhooks", /^Webhooks$/, "text=hooks.shop.example"],
      [`/developers/webhooks/${ids.endpoint}`, /./, "css=.delivery"],
      ["/developers/events", /^Events$/, "css=.event-card"],
      ["/settings", /^Settings$/, `text=${world.merchant.wallet.publicKey()}`],
      ["/team", /^Team$/, "text=new.developer@analytical-engines.example"],
      ["/activity", /^Activity$/, "css=main tbody tr >> nth=1"],
      ["/account", /^Your account$/, `text=${owner.email}`],
    ];
    const page = await browser.context.newPage();
    await browser.context.addCookies([{ name: "sp_session", value: owner.cookie.split("=")[1]!, url: world.t.url }]);
    const faults: string[] = [];
    for (const [path, heading, shows] of screens) {
      await page.setViewportSize({ width: 1280, height: 844 });
      await page.goto(`${world.t.url}/dashboard${path}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      await page.locator(shows).first().waitFor();
      await checkBothWidths(page, `dashboard${path.replace(/\/[a-z]+_\w+$/, "/detail")}`, faults);
    }
    expect(faults).toEqual([]);
    await page.close();
  }, 180_000);

  it("at phone width the navigation opens from Menu (Escape closes it) and a list's filters fold behind Filters, the first payment on the first screen", async () => {
    const page = await browser.context.newPage();
    await browser.context.addCookies([{ name: "sp_session", value: owner.cookie.split("=")[1]!, url: world.t.url }]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${world.t.url}/dashboard/payments`);
    await page.getByRole("heading", { level: 1, name: "Payments" }).waitFor();
    const firstRow = page.locator("main tbody tr").first();
    await firstRow.getByRole("link", { name: /^pay_/ }).waitFor();
    expect((await firstRow.boundingBox())!.y + 20).toBeLessThan(844);

    const filters = page.getByRole("button", { name: /^Filters/ });
    expect(await filters.getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByLabel("Status").isVisible()).toBe(false);
    await filters.click();
    await page.getByLabel("Status").selectOption("completed");
    expect(await page.getByRole("button", { name: "Filters (1)" }).getAttribute("aria-expanded")).toBe("true");
    await page.getByText("Order 1002").waitFor({ state: "detached" });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("screens-payments-filters-open-390"), fullPage: true });

    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out" }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("screens-menu-open-390") });
    // Escape closes it, the focus back on Menu; Menu opens it again.
    await page.keyboard.press("Escape");
    await page.getByRole("navigation", { name: "Main" }).waitFor({ state: "hidden" });
    expect(await page.getByRole("button", { name: "Menu" }).evaluate((menu) => menu === document.activeElement && menu.getAttribute("aria-expanded"))).toBe("false");
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Customers", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Customers" }).waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    // At laptop width there is nothing to unfold: the filters are shown and the button is gone.
    await page.setViewportSize({ width: 1280, height: 844 });
    await page.goto(`${world.t.url}/dashboard/payments`);
    await page.getByLabel("Status").waitFor();
    expect(await page.getByRole("button", { name: /^Filters/ }).isVisible()).toBe(false);
    await page.close();
  }, 60_000);

  it("the checkout, the invoice page and the refund claim page fit at both widths", async () => {
    const page = await browser.context.newPage();
    const faults: string[] = [];
    for (const [path, shows] of [
      [ids.checkout!, "2 XLM"],
      [ids.invoicePage!, "Design workshop"],
      [claimPath, "Where should the money go?"],
    ] as const) {
      await page.setViewportSize({ width: 1280, height: 844 });
      await page.goto(`${world.t.url}${path}`);
      await page.getByText(shows).first().waitFor();
      // Each page's tab says what it is: the invoice's names the invoice, not only "Pay <merchant>".
      if (path === ids.invoicePage) await expect.poll(() => page.title()).toMatch(/^Pay invoice INV-\d+ · \S/);
      if (path === ids.checkout) await expect.poll(() => page.title()).toMatch(/^Pay (?!invoice)\S/);
      await checkBothWidths(page, path.split("/")[1] === "r" ? "claim" : `checkout ${path.split("/")[2]!.split("_")[0]}`, faults, false);
    }
    expect(faults).toEqual([]);
    await page.close();
  }, 60_000);
});

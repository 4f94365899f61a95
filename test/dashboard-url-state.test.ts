// The address keeps what a list screen shows (#27 item 8), in a real Chromium: filters and search
// are in the URL, so a reload or a shared link shows the same list and Back returns to the filters
// before; each screen names itself in the tab's title.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath, signedInTab } from "./support/browser.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;
const owner = { email: "owner@url-state.test", password: "correct-horse-battery" };

beforeAll(async () => {
  browser = await launchBrowser();
  t = await startTestApp();
  merchant = await t.createMerchant();
  await createUser(t.deps, { organizationId: merchant.organizationId, role: "owner", ...owner });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});


/** On a phone a list's filters fold behind one Filters button: unfolds them (nothing to do on a laptop). */
async function unfoldFilters(page: Page) {
  const toggle = page.getByRole("button", { name: /^Filters/ });
  if ((await toggle.isVisible()) && (await toggle.getAttribute("aria-expanded")) === "false") await toggle.click();
}

const paymentsTable = (page: Page) => page.getByRole("region", { name: "Payments" });
const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

describe("filters in the address", () => {
  it("finds a payment by a part of its description typed in Payments' search, which the address and a reload keep (#27 item 8)", async () => {
    const soap = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "6", description: "Lavender soap bars" } });
    const other = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "7", description: "Olive oil" } });
    const page = await signedInTab(browser, t.url, owner, { width: 1280, height: 900 });
    await page.goto(`${t.url}/dashboard/payments`);
    await paymentsTable(page).getByRole("link", { name: other.body.id }).waitFor();
    await unfoldFilters(page);
    const search = page.getByLabel("Search");
    // the words under the box say what it finds
    expect(await search.getAttribute("aria-describedby")).toBeTruthy();
    await page.getByText("Finds the start of an id, a description word").waitFor();
    await search.fill("lavend");
    await paymentsTable(page).getByRole("link", { name: soap.body.id }).waitFor();
    await paymentsTable(page).getByRole("link", { name: other.body.id }).waitFor({ state: "detached" });
    expect(query(page)).toEqual({ search: "lavend" });
    await page.reload();
    await paymentsTable(page).getByRole("link", { name: soap.body.id }).waitFor();
    expect(await paymentsTable(page).getByRole("row").count()).toBe(2); // the head and the one payment
    await unfoldFilters(page);
    expect(await page.getByLabel("Search").inputValue()).toBe("lavend");
    await page.close();
  });

  it("finds an invoice by its customer's name and a customer by a part of the email, typed in their screens' search, which the address keeps", async () => {
    const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Marisol Quintana", email: "mq@seaside.example" } });
    const hers = await t.api("POST", "/invoices", { key: merchant.sandboxKey, body: { customer_id: customer.body.id, amount: "40", description: "Sea view" } });
    const other = await t.api("POST", "/invoices", { key: merchant.sandboxKey, body: { amount: "41", description: "Other invoice" } });
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 900 },
    ]) {
      const page = await signedInTab(browser, t.url, owner, viewport);
      await page.goto(`${t.url}/dashboard/invoices`);
      const invoices = page.getByRole("region", { name: "Invoices" });
      await invoices.getByRole("link", { name: other.body.invoice_number }).waitFor();
      await unfoldFilters(page);
      await page.getByLabel("Search").fill("quintana");
      await invoices.getByRole("link", { name: hers.body.invoice_number }).waitFor();
      await invoices.getByRole("link", { name: other.body.invoice_number }).waitFor({ state: "detached" });
      expect(query(page)).toEqual({ search: "quintana" });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-invoices-search-${viewport.width}`), fullPage: true });

      await page.goto(`${t.url}/dashboard/customers?search=seaside`);
      const customers = page.getByRole("region", { name: "Customers" });
      await customers.getByRole("link", { name: "Marisol Quintana" }).waitFor();
      expect(await customers.getByRole("row").count()).toBe(2); // the head and the one customer
      await unfoldFilters(page);
      expect(await page.getByLabel("Search").inputValue()).toBe("seaside");
      await page.getByLabel("Search").fill("nobody-at-all");
      await customers.getByText("No customers match.").waitFor();
      expect(query(page)).toEqual({ search: "nobody-at-all" });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-customers-search-${viewport.width}`), fullPage: true });
      await page.close();
    }
  }, 120_000);

  it("keeps the Payments filters and search across a reload and a shared link, and Back returns to the filters before", async () => {
    const kept = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "4", description: "Kept by the link" } });
    const other = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "5", description: "Another one" } });
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const page = await signedInTab(browser, t.url, owner, viewport);
      expect(await page.title()).toBe("Home · Test Merchant · Dashboard");
      await page.goto(`${t.url}/dashboard/payments`);
      await paymentsTable(page).getByRole("link", { name: other.body.id }).waitFor();
      expect(await page.title()).toBe("Payments · Test Merchant · Dashboard");

      await unfoldFilters(page);
      await page.getByLabel("Status").selectOption("completed");
      await paymentsTable(page).getByText("No payments match.").waitFor();
      expect(query(page)).toEqual({ status: "completed" });
      await page.reload();
      await paymentsTable(page).getByText("No payments match.").waitFor();
      expect(await page.getByLabel("Status").inputValue()).toBe("completed");

      await unfoldFilters(page);
      await page.getByLabel("Status").selectOption("pending");
      await page.getByLabel("Search").fill(kept.body.id);
      await paymentsTable(page).getByRole("link", { name: kept.body.id }).waitFor();
      await paymentsTable(page).getByRole("link", { name: other.body.id }).waitFor({ state: "detached" });
      // Typing is one step of history, not one per key.
      expect(query(page)).toEqual({ status: "pending", search: kept.body.id });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-payments-url-filters-${viewport.width}`), fullPage: true });

      // A shared link opens on the same list, in another tab.
      const shared = await browser.context.newPage();
      await shared.setViewportSize(viewport);
      await shared.goto(page.url());
      await paymentsTable(shared).getByRole("link", { name: kept.body.id }).waitFor();
      expect(await paymentsTable(shared).getByRole("row").count()).toBe(2); // the head and the one payment
      expect(await shared.getByLabel("Search").inputValue()).toBe(kept.body.id);
      await shared.close();

      await page.goBack();
      await page.waitForURL((url) => !url.searchParams.has("search"));
      expect(query(page)).toEqual({ status: "pending" });
      await paymentsTable(page).getByRole("link", { name: other.body.id }).waitFor();
      expect(await page.getByLabel("Search").inputValue()).toBe("");
      await page.goBack();
      await page.waitForURL((url) => url.searchParams.get("status") === "completed");
      await paymentsTable(page).getByText("No payments match.").waitFor();
      expect(await page.getByLabel("Status").inputValue()).toBe("completed");
      await page.close();
    }
  }, 120_000);

  it("keeps the page's cursor with the filters: a reload and Back return to the same page, a changed filter to the first", async () => {
    const paged: string[] = [];
    for (let i = 0; i < 23; i++) {
      const made = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1", description: `Paged ${i}` } });
      paged.push(made.body.id);
    }
    const newest = paged.at(-1)!;
    const page = await signedInTab(browser, t.url, owner, { width: 1280, height: 900 });
    await page.goto(`${t.url}/dashboard/payments?status=pending`);
    await paymentsTable(page).getByRole("link", { name: newest }).waitFor();
    await page.getByRole("button", { name: "Next page" }).click();
    await page.waitForURL((url) => url.searchParams.has("after"));
    await paymentsTable(page).getByRole("link", { name: newest }).waitFor({ state: "detached" });
    expect(query(page)).toMatchObject({ status: "pending" });
    const secondPage = await paymentsTable(page).getByRole("link", { name: /^pay_/ }).allTextContents();
    expect(secondPage.length).toBeGreaterThan(0);
    expect(secondPage).not.toContain(newest);

    // A reload shows the same page.
    await page.reload();
    await paymentsTable(page).getByRole("link", { name: secondPage[0]! }).waitFor();
    expect(await paymentsTable(page).getByRole("link", { name: /^pay_/ }).allTextContents()).toEqual(secondPage);
    // Back: the first page; Forward: the second again.
    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has("after"));
    await paymentsTable(page).getByRole("link", { name: newest }).waitFor();
    await page.goForward();
    await page.waitForURL((url) => url.searchParams.has("after"));
    await paymentsTable(page).getByRole("link", { name: secondPage[0]! }).waitFor();
    // At phone width, the same page resized: the cursor's rows, its pager on screen, nothing sideways, and a reload keeps it there too.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await paymentsTable(page).getByRole("link", { name: /^pay_/ }).allTextContents()).toEqual(secondPage);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const pagerBox = (await page.getByRole("navigation", { name: "Pages" }).boundingBox())!;
    expect(pagerBox.x + pagerBox.width).toBeLessThanOrEqual(390);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("dashboard-payments-second-page-390"), fullPage: true });
    await page.reload();
    await paymentsTable(page).getByRole("link", { name: secondPage[0]! }).waitFor();
    expect(query(page)).toMatchObject({ status: "pending", after: expect.any(String) });
    await page.setViewportSize({ width: 1280, height: 900 });
    // A changed filter starts at the first page: the cursor leaves the address.
    await page.getByLabel("Status").selectOption("");
    await page.waitForURL((url) => !url.searchParams.has("after") && !url.searchParams.has("status"));
    await paymentsTable(page).getByRole("link", { name: newest }).waitFor();

    // A list with no filters keeps its page too.
    for (let i = 0; i < 21; i++) await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: `Paged customer ${i}` } });
    await page.goto(`${t.url}/dashboard/customers`);
    await page.getByText("Paged customer 20").waitFor();
    await page.getByRole("button", { name: "Next page" }).click();
    await page.waitForURL((url) => url.searchParams.has("after"));
    await page.getByText("Paged customer 0", { exact: true }).waitFor();
    await page.reload();
    await page.getByText("Paged customer 0", { exact: true }).waitFor();
    expect(await page.getByText("Paged customer 20").count()).toBe(0);
    await page.close();
  }, 120_000);

  it("keeps Home's range and the other lists' filters in the address; each screen titles its tab", async () => {
    const page = await signedInTab(browser, t.url, owner, { width: 1280, height: 900 });
    await page.getByLabel("Range").selectOption("7");
    expect(query(page)).toEqual({ range: "7" });
    await page.reload();
    await page.getByRole("heading", { name: "Home", level: 1 }).waitFor();
    expect(await page.getByLabel("Range").inputValue()).toBe("7");

    for (const [path, title, filter, value] of [
      ["refunds", "Refunds", "Status", "succeeded"],
      ["invoices", "Invoices", "Status", "open"],
      ["checkout-sessions", "Checkout sessions", "Status", "expired"],
      ["developers/events", "Events", "Event kind", "payment.completed"],
    ] as const) {
      await page.goto(`${t.url}/dashboard/${path}`);
      await page.getByRole("heading", { name: title, level: 1 }).waitFor();
      expect(await page.title()).toBe(`${title} · Test Merchant · Dashboard`);
      await page.getByLabel(filter, { exact: true }).selectOption(value);
      await page.waitForURL((url) => url.search !== "");
      await page.reload();
      await page.getByRole("heading", { name: title, level: 1 }).waitFor();
      expect(await page.getByLabel(filter, { exact: true }).inputValue(), path).toBe(value);
    }
    for (const [path, title] of [
      ["settings", "Settings"],
      ["team", "Team"],
      ["developers/api-keys", "API keys"],
      ["account", "Your account"],
    ]) {
      await page.goto(`${t.url}/dashboard/${path}`);
      await page.getByRole("heading", { name: title, level: 1 }).waitFor();
      expect(await page.title()).toBe(`${title} · Test Merchant · Dashboard`);
    }
    await page.close();
  }, 120_000);
});

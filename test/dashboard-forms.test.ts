// #27 items 5 and 6 in a real Chromium: forms that say what is wrong beside the field in plain
// words, two-factor sign-in as a step of its own, the invoice form's customer picker (search, or add
// one inline), line totals and subtotal with their asset, the description on the detail, customers by
// name and email in the lists, and "New payment" giving its checkout link and QR code at once.
// Each screen at 1280 and 390 px: screenshots in test/artifacts/, axe-core finds nothing.
import { Secret, TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { signedInUser } from "./support/dashboard.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;
const owner = { email: "owner@forms.test", password: "correct-horse-battery" };
const WIDTHS = [
  [1280, "laptop"],
  [390, "phone"],
] as const;

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

async function signIn(width: number): Promise<Page> {
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${t.url}/dashboard`);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Home" }).waitFor();
  return page;
}

async function go(page: Page, link: string) {
  const menu = page.getByRole("button", { name: "Menu" });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link, exact: true }).click();
  await page.getByRole("heading", { name: link, level: 1 }).waitFor();
}

/** Nothing wider than the screen: the page does not scroll sideways. */
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

/** The error shown beside a field: the text of the element its input names in aria-describedby, and aria-invalid. */
async function errorBeside(page: Page, label: string): Promise<string | null> {
  const input = page.getByLabel(label, { exact: true });
  if ((await input.getAttribute("aria-invalid")) !== "true") return null;
  const ids = ((await input.getAttribute("aria-describedby")) ?? "").split(" ").filter((id) => id.endsWith("-error"));
  return ids.length ? page.locator(`[id="${ids[0]}"]`).textContent() : null;
}

describe("words for people", { timeout: 120_000 }, () => {
  it("asks for the two-factor code as a step, says a wrong code beside the field, then signs in", async () => {
    const user = await signedInUser(t, merchant.organizationId, "admin");
    const setup = (await user.graphql(`mutation { beginTwoFactorSetup { secret } }`)).body.data.beginTwoFactorSetup;
    const codeNow = () => new TOTP({ secret: Secret.fromBase32(setup.secret) }).generate({ timestamp: t.clock.now().getTime() });
    await user.graphql(`mutation($code: String!) { confirmTwoFactor(code: $code) }`, { code: codeNow() });
    for (const [width, name] of WIDTHS) {
      await browser.context.clearCookies();
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}/dashboard`);
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(user.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Two-step verification" }).waitFor();
      await page.getByText("Enter the 6-digit code from your authenticator app").waitFor();
      // A step, not an error: nothing is announced as one.
      expect(await page.getByRole("alert").count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-forms-two-factor-step-${name}`), fullPage: true });
      t.clock.advance(30_000);
      const right = codeNow();
      await page.getByLabel("Authentication code").fill(right === "000000" ? "111111" : "000000");
      await page.getByRole("button", { name: "Verify and sign in" }).click();
      await expect.poll(() => errorBeside(page, "Authentication code"), { timeout: 15_000 }).toBe(
        "Authentication code: this is not the code your app shows now, nor an unused recovery code",
      );
      await page.screenshot({ path: screenshotPath(`dashboard-forms-two-factor-wrong-${name}`), fullPage: true });
      await page.getByLabel("Authentication code").fill(right);
      await page.getByRole("button", { name: "Verify and sign in" }).click();
      await page.getByRole("heading", { name: "Home" }).waitFor();
      await page.close();
    }
  });

  it("says a wrong current password and a short new one beside their fields", async () => {
    const page = await signIn(1280);
    await go(page, "Your account");
    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password").fill("long-enough-new-password");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => errorBeside(page, "Current password"), { timeout: 15_000 }).toBe("Current password: this is not your current password");
    await page.getByLabel("Current password").fill(owner.password);
    await page.getByLabel("New password").fill("short");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => errorBeside(page, "New password"), { timeout: 15_000 }).toBe("New password: must be at least 10 characters");
    expect(await errorBeside(page, "Current password")).toBeNull();
    await page.close();
  });
});

/** Fills `values` (label: text), submits with `button`, and waits for `words` beside `field`, whose input is kept. */
async function refusedBeside(page: Page, values: Record<string, string>, button: string, field: string, words: string) {
  for (const [label, value] of Object.entries(values)) await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByRole("button", { name: button, exact: true }).click();
  await expect.poll(() => errorBeside(page, field), { timeout: 15_000 }).toBe(words);
  expect(await page.getByLabel(field, { exact: true }).inputValue()).toBe(values[field]);
}

/** The dashboard at `path` (the session cookie is kept), once its heading shows. */
async function open(page: Page, path: string, heading: string) {
  await page.goto(`${t.url}/dashboard${path}`);
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
}

describe("every form says a refused field beside it, in words, keeping what was typed", () => {
  for (const [width, name] of WIDTHS) {
    it(`payment link, webhook endpoint, API key, settings, invitation, two-factor set-up, on a ${name} (${width} px)`, { timeout: 240_000 }, async () => {
      const page = await signIn(width);
      const long = "k".repeat(101);

      await open(page, "/payment-links", "Payment links");
      await page.getByRole("button", { name: "Create payment link" }).click();
      await refusedBeside(page, { Amount: "1.5.0" }, "Create link", "Amount", "Amount: a number with up to 7 decimals");

      await open(page, "/developers/webhooks", "Webhooks");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await refusedBeside(page, { "Endpoint URL": "ftp://example.com/hook" }, "Add endpoint", "Endpoint URL", "URL: a web address starting with https://");
      // No event chosen: said under the group of boxes, which names it as its description.
      await page.getByLabel("Endpoint URL").fill("https://example.com/hook");
      await page.getByLabel("Every event").uncheck();
      await page.getByRole("button", { name: "Add endpoint", exact: true }).click();
      const events = page.getByRole("group", { name: "Events to send" });
      await events.getByText("Enabled events: choose at least one").waitFor();
      const describedBy = (await events.getAttribute("aria-describedby"))!;
      expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe("Enabled events: choose at least one");
      expect(await errorBeside(page, "Endpoint URL")).toBeNull();
      expect(await scrollsSideways(page)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-forms-webhook-refused-${name}`), fullPage: true });
      expect(await t.database.db.webhookEndpoint.count({ where: { organizationId: merchant.organizationId } })).toBe(0);

      await open(page, "/developers/api-keys", "API keys");
      await refusedBeside(page, { "Key name": long }, "Create API key", "Key name", "Name: must be at most 100 characters");

      await open(page, "/settings", "Settings");
      await refusedBeside(page, { "Organization name": long }, "Save names", "Organization name", "Name: must be at most 100 characters");
      await refusedBeside(page, { "New settlement wallet": "GNOTAKEY", "Your password": owner.password }, "Change wallet", "New settlement wallet", "Address: a Stellar account address: 56 characters starting with G");
      await refusedBeside(
        page,
        { "Asset code": "NOT-A-CODE", Issuer: "GDUKMGUGDZQK6YHYA5Z6AY2G4XDSZPSZ3SW5UN3ARVMO6QSRDWP5YLEX", "Password to enable the asset": owner.password },
        "Enable asset",
        "Asset code",
        "Asset code: 1 to 12 letters or digits, such as USDC (XLM is always enabled)",
      );
      await refusedBeside(page, { Currency: "eur", Price: "0.3", "Password to set the rate": owner.password }, "Set rate", "Currency", "Currency: a currency's 3-letter code in capitals, such as EUR");
      await refusedBeside(page, { Currency: "EUR", Price: "0" }, "Set rate", "Price", "Price: a number above 0 with up to 7 decimals, such as 0.25");
      // Each form's refusal stays beside its own field.
      expect(await errorBeside(page, "New settlement wallet")).toBe("Address: a Stellar account address: 56 characters starting with G");
      expect(await errorBeside(page, "Currency")).toBeNull();
      expect(await scrollsSideways(page)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-forms-settings-refused-${name}`), fullPage: true });
      const settings = await t.database.db.environmentSettings.findMany({ where: { organizationId: merchant.organizationId } });
      expect(settings.map((row) => row.settlementAddress)).not.toContain("GNOTAKEY");

      await open(page, "/team", "Team");
      await refusedBeside(page, { Email: "ada@nowhere" }, "Send invitation", "Email", "Email: an email address, such as name@example.com");
      expect(await t.database.db.invitation.count({ where: { organizationId: merchant.organizationId } })).toBe(0);

      await open(page, "/account", "Your account");
      await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
      await refusedBeside(page, { "Code from the app": "000000" }, "Turn on two-factor sign-in", "Code from the app", "Authentication code: this is not the code your app shows now");
      expect(await scrollsSideways(page)).toBe(false);
      await page.close();
    });

    it(`asks for a reset link and sets a new password, saying a refused field beside it, on a ${name} (${width} px)`, async () => {
      await browser.context.clearCookies();
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}/dashboard`);
      await page.getByRole("button", { name: "Forgot password?" }).click();
      await refusedBeside(page, { Email: "someone@nowhere" }, "Send reset link", "Email", "Email: an email address, such as name@example.com");
      await page.goto(`${t.url}/dashboard/reset-password?token=not-a-token`);
      await refusedBeside(page, { "New password": "p".repeat(201) }, "Set new password", "New password", "New password: must be at most 200 characters");
      // The link itself is no field: said above the button, in words.
      await page.getByLabel("New password").fill("a-good-new-password");
      await page.getByRole("button", { name: "Set new password" }).click();
      await page.getByRole("alert").getByText("This is not a password reset link: copy the whole link from the mail, or ask for a new one").waitFor();
      expect(await errorBeside(page, "New password")).toBeNull();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.close();
    });
  }
});

describe("invoices and customers", { timeout: 120_000 }, () => {
  it("refuses a blank customer beside its fields and creates nothing", async () => {
    const page = await signIn(1280);
    await go(page, "Customers");
    await page.getByRole("button", { name: "Add customer" }).click();
    const before = await t.database.db.customer.count();
    await page.getByRole("button", { name: "Save customer" }).click();
    await expect.poll(() => errorBeside(page, "Name"), { timeout: 15_000 }).toBe("Name or email: give the customer at least one");
    expect(await t.database.db.customer.count()).toBe(before);
    await page.getByLabel("Customer email").fill("solo@customer.test");
    await page.getByRole("button", { name: "Save customer" }).click();
    // The list shows a customer without a name by its email.
    await page.getByRole("link", { name: "solo@customer.test" }).waitFor();
    await page.close();
  });

  for (const [width, name] of WIDTHS) {
    it(`drafts an invoice with a customer picked or added inline, line totals and a subtotal, on a ${name} (${width} px)`, async () => {
      const tag = `${name}-${Date.now()}`;
      await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: `Grace ${tag}`, email: `grace-${tag}@navy.test` } });
      const page = await signIn(width);
      await go(page, "Invoices");
      await page.getByRole("button", { name: "Create invoice" }).click();
      // Search by part of the email; then change the mind and add a new customer on the spot.
      await page.getByLabel("Customer (optional)").fill(`grace-${tag}@NAVY`);
      await page.getByRole("list", { name: "Matching customers" }).getByRole("button", { name: `Grace ${tag} · grace-${tag}@navy.test` }).waitFor();
      await page.getByLabel("Customer (optional)").fill(`Linus ${tag}`);
      await page.getByText(`No customer matches “Linus ${tag}”.`).waitFor();
      await page.getByRole("button", { name: "New customer" }).click();
      // What was searched for is the new customer's name already.
      expect(await page.getByLabel("New customer's name").inputValue()).toBe(`Linus ${tag}`);
      await page.getByLabel("New customer's email").fill(`linus-${tag}@kernel.test`);
      await page.getByRole("button", { name: "Add customer" }).click();
      await page.getByRole("group", { name: "Customer" }).getByText(`Linus ${tag}`).waitFor();

      await page.getByLabel("Description", { exact: true }).fill(`Kernel review ${tag}`);
      await page.getByLabel("Item 1 description").fill("Review hours");
      await page.getByLabel("Item 1 quantity").fill("3");
      await page.getByLabel("Item 1 unit amount").fill("12.5");
      await page.getByRole("button", { name: "Add item" }).click();
      await page.getByLabel("Item 2 description").fill("Travel");
      await page.getByLabel("Item 2 quantity").fill("1");
      await page.getByLabel("Item 2 unit amount").fill("0.12345678");
      // A line total waits for a valid amount; the subtotal for every line.
      await page.getByText("Item 1 total37.5 XLM").waitFor();
      await page.getByText("Enter each item's quantity and unit amount").waitFor();
      await page.getByRole("button", { name: "Create draft" }).click();
      await expect.poll(() => errorBeside(page, "Item 2 unit amount (XLM)"), { timeout: 15_000 }).toBe("Item 2 unit amount: a number with up to 7 decimals");
      expect(await t.database.db.invoice.count({ where: { description: `Kernel review ${tag}` } })).toBe(0);
      expect(await scrollsSideways(page)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-forms-invoice-draft-${name}`), fullPage: true });

      await page.getByLabel("Item 2 unit amount").fill("0.1234567");
      await page.getByText("Subtotal37.6234567 XLM").waitFor();
      await page.getByRole("button", { name: "Create draft" }).click();
      await page.getByRole("heading", { name: /^Invoice / }).waitFor();
      // The detail: its description, its customer by name and email, every amount with its asset (a draft's too), each line's total.
      const facts = page.locator("dl.facts");
      await facts.getByText(`Kernel review ${tag}`).waitFor();
      await facts.getByRole("link", { name: `Linus ${tag} · linus-${tag}@kernel.test` }).waitFor();
      await facts.getByText("37.6234567 XLM").waitFor();
      const items = page.getByRole("table", { name: "Items" });
      await items.getByRole("row", { name: /Review hours.*3.*12\.5 XLM.*37\.5 XLM/ }).waitFor();
      await items.getByRole("row", { name: /Subtotal.*37\.6234567 XLM/ }).waitFor();
      await page.screenshot({ path: screenshotPath(`dashboard-forms-invoice-detail-${name}`), fullPage: true });
      expect(await scrollsSideways(page)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      const invoice = await t.database.db.invoice.findFirstOrThrow({ where: { description: `Kernel review ${tag}` } });
      const customer = await t.database.db.customer.findUniqueOrThrow({ where: { id: invoice.customerId! } });
      expect(customer).toMatchObject({ name: `Linus ${tag}`, email: `linus-${tag}@kernel.test` });

      // The list names the customer too.
      await go(page, "Invoices");
      await page.getByRole("row", { name: new RegExp(`${invoice.invoiceNumber}.*Linus ${tag}`) }).waitFor();
      await page.close();
    });

    it(`creates a payment from the Payments screen, shows its link and QR code at once and then that it is paid, on a ${name} (${width} px)`, async () => {
      const tag = `${name}-${Date.now()}`;
      await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: `Ada ${tag}`, email: `ada-${tag}@engine.test` } });
      const page = await signIn(width);
      await go(page, "Payments");
      await page.getByRole("button", { name: "New payment" }).click();
      await page.getByLabel("Amount (XLM)").fill("1.5.0");
      await page.getByRole("button", { name: "Create payment" }).click();
      await expect.poll(() => errorBeside(page, "Amount (XLM)"), { timeout: 15_000 }).toBe("Amount: a number with up to 7 decimals");
      await page.getByLabel("Amount (XLM)").fill("42.25");
      await page.getByLabel("Payment description").fill(`Order ${tag}`);
      await page.getByLabel("Customer (optional)").fill(`Ada ${tag}`);
      await page.getByRole("button", { name: `Ada ${tag} · ada-${tag}@engine.test` }).click();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-forms-new-payment-${name}`), fullPage: true });
      await page.getByRole("button", { name: "Create payment" }).click();
      await page.getByRole("heading", { name: "Payment created" }).waitFor();
      const payment = await t.database.db.payment.findFirstOrThrow({ where: { description: `Order ${tag}` } });
      expect(payment).toMatchObject({ amount: 422_500_000n, organizationId: merchant.organizationId, environment: "sandbox" });
      const link = page.getByRole("link", { name: new RegExp(`/c/${payment.id}$`) });
      const href = (await link.getAttribute("href"))!;
      expect(new URL(href).pathname).toBe(`/c/${payment.id}`);
      await page.getByRole("img", { name: `QR code of the checkout link ${href}` }).waitFor();
      // The link opens the payer's checkout.
      expect((await fetch(`${t.url}${new URL(href).pathname}`)).status).toBe(200);
      // The list below has the payment with its customer by name, without a reload.
      await page.getByRole("row", { name: new RegExp(`${payment.id}.*42\\.25 XLM.*Ada ${tag}`) }).waitFor();
      expect(await scrollsSideways(page)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-forms-payment-created-${name}`), fullPage: true });
      // Paid elsewhere (here: marked by hand through the API), the panel says so at once: no "ready to be paid" ever after.
      let loads = 0;
      page.on("load", () => loads++);
      const marked = await t.graphql(`mutation($id: ID!) { markPaymentCompleted(id: $id, reason: "paid by wire") { status } }`, { id: payment.id }, merchant.sandboxKey);
      expect(marked.body.errors).toBeUndefined();
      const panel = page.getByRole("region", { name: "Payment paid" });
      await panel.getByText("Paid: 42.25 XLM has arrived.").waitFor();
      expect(await panel.getByText("is ready to be paid").count()).toBe(0);
      expect(loads).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.close();
    });
  }
});

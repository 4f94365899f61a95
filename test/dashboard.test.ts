// The merchant dashboard in a real Chromium, as a merchant uses it: sign in, every screen at laptop
// and phone width (axe-core finds nothing), an API key made there and used on REST, a webhook
// endpoint with its test event delivered and a failed delivery retried, an invoice sent by email
// (a real SMTP server receives it) and paid through the checkout on the simulated network while the
// payments list turns it completed live. Screenshots go to test/artifacts/ (README "Dashboard").
import { readFileSync } from "node:fs";
import { Networks } from "@stellar/stellar-sdk";
import { Secret, TOTP } from "otpauth";
import type { Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { signedInUser } from "./support/dashboard.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { startSmtpServer } from "./support/smtp.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";
import { type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let receiver: WebhookReceiver;
const owner = { email: "owner@merchant.test", password: "correct-horse-battery" };

beforeAll(async () => {
  [smtp, receiver, browser] = await Promise.all([startSmtpServer(), startWebhookReceiver(), launchBrowser()]);
  t = await startTestApp({
    workers: true,
    env: {
      LEDGER: "simulated",
      SIM_LEDGER_CLOSE_MS: "100",
      WEBHOOK_ALLOW_PRIVATE: "true",
      SMTP_URL: `smtp://user:secret@127.0.0.1:${smtp.port}`,
      MAIL_FROM: "Merchant Billing <billing@merchant.test>",
    },
  });
  merchant = await t.createMerchant();
  await t.app.ledger.simulatedNetwork(Networks.TESTNET)!.fund(merchant.wallet.publicKey());
  await createUser(t.deps, { organizationId: merchant.organizationId, role: "owner", ...owner });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await Promise.all([smtp?.close(), receiver?.close()]);
});

/** A new tab, signed in as the owner, on the dashboard's home screen. */
async function signIn(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await signInAs(owner, viewport);
  await page.getByRole("heading", { name: "Home" }).waitFor();
  return page;
}

/** A new tab where `who` has just signed in (with no code asked). */
async function signInAs(who: { email: string; password: string }, viewport = { width: 1280, height: 900 }): Promise<Page> {
  await browser.context.clearCookies(); // a fresh sign-in, not the session of the test before
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  await page.goto(`${t.url}/dashboard`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

/** Sets up two-factor sign-in on the screen shown (Your account, or the one a required setup shows): the app's code, computed as the app would. */
async function turnOnTwoFactor(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  const key = (await page.locator("code.wrap").textContent())!;
  await page.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
  await page.getByLabel("Code from the app").fill(new TOTP({ secret: Secret.fromBase32(key) }).generate({ timestamp: t.clock.now().getTime() }));
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await page.getByRole("region", { name: "Recovery codes" }).waitFor();
  expect(await page.getByRole("region", { name: "Recovery codes" }).locator("li code").count()).toBe(10);
  keys.set(page, key);
}
const keys = new Map<Page, string>();
/** The app's code of the next 30-second step: a code is accepted once, and the last one may be used already. */
function codeOf(page: Page) {
  t.clock.advance(30_000);
  return new TOTP({ secret: Secret.fromBase32(keys.get(page)!) }).generate({ timestamp: t.clock.now().getTime() });
}

/** Follows a link of the main navigation (opening the menu first on a phone) and waits for its heading. */
/**
 * The page's requests in flight from now on, but the live streams (/graphql/stream stays open while
 * a screen follows changes, so Playwright's "networkidle" never comes on such a screen); `settled`
 * waits until none has been in flight for 500 ms, and stops listening.
 */
function requestsInFlight(page: Page) {
  const open = new Set<Request>();
  const start = (request: Request) => void (request.url().includes("/graphql/stream") || open.add(request));
  const end = (request: Request) => void open.delete(request);
  page.on("request", start).on("requestfinished", end).on("requestfailed", end);
  return {
    async settled() {
      for (let quietSince = Date.now(); Date.now() - quietSince < 500; await page.waitForTimeout(50)) if (open.size > 0) quietSince = Date.now();
      page.off("request", start).off("requestfinished", end).off("requestfailed", end);
    },
  };
}

async function go(page: Page, link: string, heading = link) {
  const menu = page.getByRole("button", { name: "Menu" });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link, exact: true }).click();
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
}

describe("dashboard", () => {
  it("refuses a wrong password and signs the owner in and out", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${t.url}/dashboard`);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("Invalid email or password").waitFor();
    await page.screenshot({ path: screenshotPath("dashboard-sign-in"), fullPage: true });
    await page.getByLabel("Password").fill(owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await page.reload();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await page.close();
  });

  for (const [width, name] of [
    [1280, "laptop"],
    [390, "phone"],
  ] as const) {
    it(`shows every screen on a ${name} (${width} px) with nothing axe-core can fault`, async () => {
      const page = await signIn({ width, height: 900 });
      const screens: [string, string][] = [
        ["Home", "Home"],
        ["Payments", "Payments"],
        ["Invoices", "Invoices"],
        ["Payment links", "Payment links"],
        ["Checkout sessions", "Checkout sessions"],
        ["Customers", "Customers"],
        ["Unmatched payments", "Unmatched payments"],
        ["Developers", "Developers"],
        ["Settings", "Settings"],
        ["Team", "Team"],
        ["Activity", "Activity"],
        ["Your account", "Your account"],
      ];
      const faults: string[] = [];
      for (const [link, heading] of screens) {
        const requests = requestsInFlight(page);
        await go(page, link, heading);
        await requests.settled();
        faults.push(...(await accessibilityViolations(page)).map((v) => `${heading}: ${v}`));
        await page.screenshot({ path: screenshotPath(`dashboard-${heading.toLowerCase().replace(/ /g, "-")}-${name}`), fullPage: true });
      }
      expect(faults).toEqual([]);
      // Sandbox is said on every screen, and the switch goes live.
      await page.getByText("Sandbox: test data").waitFor();
      await page.getByText("Live", { exact: true }).click();
      await page.getByRole("heading", { name: "Your account" }).waitFor();
      expect(await page.getByText("Sandbox: test data").count()).toBe(0);
      await page.getByText("Sandbox", { exact: true }).click();
      await page.close();
      // Twelve screens, each checked by axe-core: longer than one action takes, on a loaded machine too.
    }, 120_000);
  }

  it("creates an API key shown once, which works on REST until it is revoked", async () => {
    const page = await signIn();
    await go(page, "Developers");
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("Shop server");
    await page.getByRole("button", { name: "Create API key" }).click();
    const shown = page.getByRole("region", { name: "API key", exact: true }).locator("code");
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^pk_test_/);
    expect((await t.api("GET", "/payments?limit=1", { key })).status).toBe(200);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.content()).not.toContain(key);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke Shop server" }).click();
    await page.getByRole("row", { name: /Shop server/ }).getByText("Revoked").waitFor();
    expect((await t.api("GET", "/payments?limit=1", { key })).status).toBe(401);
    await page.close();
  });

  it("gives a key a role at most the viewer's, and marks the keys of a removed user for one-click revocation", async () => {
    // A developer is offered developer keys only.
    const developer = { email: "dev@merchant.test", password: "developer-password-1" };
    await createUser(t.deps, { organizationId: merchant.organizationId, role: "developer", ...developer });
    const devPage = await signInAs(developer);
    await go(devPage, "Developers");
    await devPage.getByRole("link", { name: "API keys" }).click();
    expect(await devPage.getByLabel("Key role").locator("option").allTextContents()).toEqual(["Developer: reads, API keys and webhooks"]);
    await devPage.close();

    // An admin makes two keys, then leaves the team.
    const leaving = await signedInUser(t, merchant.organizationId, "admin");
    const CREATE = `mutation($name: String) { createApiKey(environment: sandbox, name: $name) { key } }`;
    const leftKeys: string[] = [];
    for (const name of ["Old cron", "Old server"]) leftKeys.push((await leaving.graphql(CREATE, { name })).body.data.createApiKey.key);
    const remover = await signedInUser(t, merchant.organizationId, "owner");
    expect((await remover.graphql(`mutation($id: ID!) { removeUser(id: $id) }`, { id: leaving.userId })).body.data.removeUser).toBe(true);

    for (const [width, name] of [
      [1280, "laptop"],
      [390, "phone"],
    ] as const) {
      const page = await signIn({ width, height: 900 });
      await go(page, "Developers");
      await page.getByRole("link", { name: "API keys" }).click();
      if (width === 1280) {
        // The owner chooses the role; the list shows it at once.
        expect(await page.getByLabel("Key role").locator("option").allTextContents()).toEqual([
          "Admin: everything a key may do",
          "Developer: reads, API keys and webhooks",
        ]);
        await page.getByLabel("Key name").fill("Read only");
        await page.getByLabel("Key role").selectOption("developer");
        await page.getByRole("button", { name: "Create API key" }).click();
        await page.getByRole("button", { name: "Done" }).click();
        await page.getByRole("row", { name: /Read only/ }).getByRole("cell", { name: "developer", exact: true }).waitFor();
      }
      for (const keyName of ["Old cron", "Old server"]) await page.getByRole("row", { name: new RegExp(keyName) }).getByText("made by a removed user").waitFor();
      expect(await page.getByRole("row", { name: /Read only/ }).getByText("made by a removed user").count()).toBe(0);
      await page.getByRole("alert").getByText("2 keys were made by someone no longer on the team and still work.").waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-api-keys-removed-user-${name}`), fullPage: true });
      await page.close();
    }
    for (const key of leftKeys) expect((await t.api("GET", "/payments?limit=1", { key })).status).toBe(200);

    const page = await signIn();
    await go(page, "Developers");
    await page.getByRole("link", { name: "API keys" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke the 2 keys made by removed users" }).click();
    for (const keyName of ["Old cron", "Old server"]) await page.getByRole("row", { name: new RegExp(keyName) }).getByText("Revoked").waitFor();
    expect(await page.getByRole("button", { name: /made by removed users/ }).count()).toBe(0);
    for (const key of leftKeys) expect((await t.api("GET", "/payments?limit=1", { key })).status).toBe(401);
    await page.close();
    // Four sign-ins and two screens checked by axe-core: longer than one action takes, on a loaded machine too.
  }, 120_000);

  it("asks for the password again to change the settlement wallet, and lists the change on Activity", async () => {
    const page = await signIn();
    await go(page, "Settings");
    // The same wallet again: a change for the log, none for the payments of the tests after.
    await page.getByLabel("New settlement wallet").fill(merchant.wallet.publicKey());
    await page.getByLabel("Your password").fill("not my password");
    await page.getByRole("button", { name: "Change wallet" }).click();
    await page.getByText("Password: this is not your current password").waitFor();
    await page.getByLabel("Your password").fill(owner.password);
    await page.getByRole("button", { name: "Change wallet" }).click();
    // saved: the form empties
    await expect.poll(() => page.getByLabel("Your password").inputValue(), { timeout: 10_000 }).toBe("");
    await go(page, "Activity");
    // (the test merchant's wallets, set through the admin CLI's service, are logged too: the operator's)
    const row = page.getByRole("row", { name: /Settlement wallet changed/ }).filter({ hasText: owner.email });
    await row.waitFor();
    expect(await row.textContent()).toContain(owner.email);
    expect(await row.textContent()).toContain(merchant.wallet.publicKey());
    // and the owner hears of it by mail
    const notice = () => smtp.received.find((m) => m.subject?.startsWith("Security notice: The sandbox settlement wallet"));
    await expect.poll(() => notice()?.text, { timeout: 15_000 }).toContain(`By: ${owner.email}`);

    // A rate and an asset ask for it too, each form its own field.
    await go(page, "Settings");
    await page.getByLabel("Price").fill("0.125");
    await page.getByLabel("Password to set the rate").fill("not my password");
    await page.getByRole("button", { name: "Set rate" }).click();
    await page.getByText("Password: this is not your current password").waitFor();
    await page.getByLabel("Password to set the rate").fill(owner.password);
    await page.getByRole("button", { name: "Set rate" }).click();
    await page.getByRole("table", { name: "Pricing rates" }).getByRole("row", { name: /XLM USD 0\.125/ }).waitFor();
    await page.getByLabel("Asset code").fill("EURC");
    await page.getByLabel("Issuer").fill(merchant.wallet.publicKey());
    await page.getByLabel("Password to enable the asset").fill("not my password");
    await page.getByRole("button", { name: "Enable asset" }).click();
    await page.getByText("Password: this is not your current password").waitFor();
    await page.getByText("No other asset yet.", { exact: false }).waitFor();
    await page.close();
  });

  it("adds a webhook endpoint with its secret shown once, delivers a test event, and retries a failed delivery", async () => {
    const page = await signIn();
    await go(page, "Developers");
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hooks`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.getByRole("region", { name: "Signing secret", exact: true }).locator("code").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.content()).not.toContain(secret);

    await page.getByRole("link", { name: `${receiver.url}/hooks` }).click();
    await page.getByRole("button", { name: "Send test event" }).click();
    await receiver.waitFor("/hooks", 1);
    expect(JSON.parse(receiver.at("/hooks")[0]!.rawBody).event).toBe("webhook.test");
    // The receiver has answered; the worker records the attempt just after.
    await expect.poll(async () => (await t.database.db.webhookDelivery.findFirst({ where: { eventType: "webhook.test" } }))?.status).toBe("succeeded");
    await page.reload();
    await page.locator(".delivery").filter({ hasText: "webhook.test" }).getByText("Succeeded").waitFor();

    // The receiver fails every attempt of the next one; the worker gives up after the fifth.
    receiver.respond("/hooks", 500);
    await page.getByRole("button", { name: "Send test event" }).click();
    await receiver.waitFor("/hooks", 2);
    const failedId = await failDeliveryNow();
    receiver.respond("/hooks", 200);
    await page.reload();
    await page.getByRole("button", { name: `Retry now delivery ${failedId}` }).click();
    await receiver.waitFor("/hooks", 3);
    await expect.poll(async () => (await t.database.db.webhookDelivery.findUnique({ where: { id: failedId } }))?.status).toBe("succeeded");
    await page.screenshot({ path: screenshotPath("dashboard-webhook-endpoint"), fullPage: true });
    await page.close();
  });

  it("sends an invoice by email, and the payments list and the invoice turn completed and paid live when the customer pays", async () => {
    await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Ada", email: "ada@customer.test" } });
    const page = await signIn();
    await go(page, "Invoices");
    await page.getByRole("button", { name: "Create invoice" }).click();
    // The customer picked by part of the email, not by a pasted id.
    await page.getByLabel("Customer (optional)").fill("ada@cust");
    await page.getByRole("button", { name: /Ada · ada@customer\.test/ }).click();
    await page.getByLabel("Item 1 description").fill("Consulting");
    await page.getByLabel("Item 1 quantity").fill("2");
    await page.getByLabel("Item 1 unit amount").fill("12.5");
    await page.getByRole("button", { name: "Create draft" }).click();
    await page.getByRole("button", { name: "Finalize" }).click();
    await page.getByRole("button", { name: "Send invoice" }).click();
    // The only mail to the customer (the owner gets security notices from the tests before).
    const toCustomer = () => smtp.received.filter((m) => m.to && [m.to].flat()[0]!.text === "ada@customer.test");
    await expect.poll(() => toCustomer().length, { timeout: 15_000 }).toBe(1);
    const mail = toCustomer()[0]!;
    const link = mail.text!.match(/http\S+\/i\/inv_\w+/)![0]!;
    expect(mail.text).toContain("25");
    await page.getByRole("table", { name: "Emails about this invoice" }).getByText("ada@customer.test").waitFor();

    const payments = await browser.context.newPage();
    await payments.goto(`${t.url}/dashboard/payments`);
    await payments.getByRole("heading", { name: "Payments" }).waitFor();
    const checkout = await browser.context.newPage();
    await checkout.goto(`${t.url}${new URL(link).pathname}`);
    await checkout.getByRole("button", { name: "Pay with a test wallet" }).click();
    await checkout.getByRole("heading", { name: "Paid" }).waitFor({ timeout: 20_000 });
    // No reload: the row arrives and turns completed over the live subscription.
    await payments.getByRole("row", { name: /Completed/ }).getByText("25 XLM").waitFor({ timeout: 15_000 });
    await payments.screenshot({ path: screenshotPath("dashboard-payments-live"), fullPage: true });
    // The invoice, open since before the payment, turns paid on its own page as well.
    await page.locator(".facts .status-paid").waitFor({ timeout: 15_000 });
    await Promise.all([page.close(), payments.close(), checkout.close()]);
  });

  it("finds a payment by its id, shows its timeline and deliveries, and marks it completed with a reason", async () => {
    const endpoint = await t.api("POST", "/webhook-endpoints", {
      key: merchant.sandboxKey,
      body: { url: `${receiver.url}/timeline`, enabled_events: ["payment.created", "payment.completed"] },
    });
    const wanted = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "7.5", description: "Found by search" } });
    await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "3", description: "Not this one" } });
    await receiver.waitFor("/timeline", 1);
    for (const [width, name] of [
      [1280, "laptop"],
      [390, "phone"],
    ] as const) {
      const page = await signIn({ width, height: 900 });
      await go(page, "Payments");
      await page.getByRole("row", { name: /Not this one|3 XLM/ }).first().waitFor();
      // On a phone the filters are folded behind one button.
      if (name === "phone") await page.getByRole("button", { name: "Filters" }).click();
      await page.getByLabel("Search").fill(wanted.body.id);
      await expect.poll(() => page.getByRole("table", { name: "Payments" }).locator("tbody tr").count()).toBe(1);
      await page.getByRole("link", { name: wanted.body.id }).click();
      await page.getByRole("heading", { name: `Payment ${wanted.body.id}` }).waitFor();
      const timeline = page.getByRole("table", { name: "Timeline" });
      await timeline.getByText("payment.created").waitFor();
      const logLink = page.getByRole("table", { name: "Webhook deliveries" }).getByRole("link", { name: `Delivery log of ${receiver.url}/timeline` }).first();
      expect(await logLink.getAttribute("href")).toContain(`/developers/webhooks/${endpoint.body.id}`);
      if (name === "laptop") {
        await page.getByLabel("Reason").fill("Paid in cash at the counter");
        await page.getByRole("button", { name: "Mark as completed" }).click();
        await timeline.getByText("payment.completed").waitFor();
        await page.getByText("Paid in cash at the counter").waitFor();
      }
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-payment-detail-${name}`), fullPage: true });
      await page.close();
    }
  });
});

describe("two-factor sign-in in the dashboard", () => {
  it("is set up on Your account; an owner requires it, and a member without it can then only set it up", async () => {
    // An organization of its own: the other tests sign its owner in without a code.
    const secure = await t.createMerchant();
    const secureOwner = { email: "owner@secure.test", password: "secure-owner-password" };
    const member = { email: "dev@secure.test", password: "secure-member-password" };
    await createUser(t.deps, { organizationId: secure.organizationId, role: "owner", ...secureOwner });
    await createUser(t.deps, { organizationId: secure.organizationId, role: "developer", ...member });

    const page = await signInAs(secureOwner);
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await go(page, "Your account");
    await turnOnTwoFactor(page);
    expect(await page.title()).toBe("Your account · Test Merchant · Dashboard");
    // Copy and Download give the codes as shown (no look-alike characters), one a line.
    const shown = await page.getByRole("region", { name: "Recovery codes" }).locator("li code").allTextContents();
    for (const code of shown) expect(code).not.toMatch(/[01oli]/i);
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
    await page.getByRole("button", { name: "Copy recovery codes" }).click();
    await page.getByRole("button", { name: "Copied recovery codes" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown.join("\n"));
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download recovery codes" }).click()]);
    expect(download.suggestedFilename()).toBe("stellar-pay-recovery-codes.txt");
    const file = readFileSync((await download.path())!, "utf8");
    expect(file).toContain(`for ${secureOwner.email} (Test Merchant)`);
    expect(file.trim().split("\n").slice(-10)).toEqual(shown);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("dashboard-two-factor-recovery-codes"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("dashboard-two-factor-recovery-codes-390"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole("button", { name: "I have saved them" }).click();
    await page.getByText("On: signing in asks for a code").waitFor();

    await go(page, "Team");
    await page.getByLabel("Your password").fill(secureOwner.password);
    await page.getByLabel("Authentication code").fill(codeOf(page));
    await page.getByRole("button", { name: "Require two-factor sign-in" }).click();
    await page.getByText("Required: every member signs in").waitFor();
    expect(await t.database.db.organization.findUniqueOrThrow({ where: { id: secure.organizationId } })).toMatchObject({ requireTwoFactor: true });
    await page.close();

    for (const [width, name] of [
      [390, "phone"],
      [1280, "laptop"],
    ] as const) {
      const memberPage = await signInAs(member, { width, height: 900 });
      await memberPage.getByRole("heading", { name: "Set up two-factor sign-in", level: 1 }).waitFor();
      expect(await memberPage.getByRole("navigation", { name: "Main" }).count()).toBe(0);
      expect(await accessibilityViolations(memberPage)).toEqual([]);
      await memberPage.screenshot({ path: screenshotPath(`dashboard-two-factor-required-${name}`), fullPage: true });
      if (name === "laptop") {
        await turnOnTwoFactor(memberPage);
        await memberPage.getByRole("button", { name: "I have saved them" }).click();
        await memberPage.getByRole("heading", { name: "Home" }).waitFor();
      }
      await memberPage.close();
    }
  });
});

/** Makes the newest delivery due again until the worker's attempts run out, as its retries would over hours. */
async function failDeliveryNow(): Promise<string> {
  const delivery = await t.database.db.webhookDelivery.findFirstOrThrow({ where: { status: { in: ["pending", "failed"] } }, orderBy: { createdAt: "desc" } });
  // The background worker may take an attempt between our update and runOnce, and schedule the
  // next one hours away: so keep making it due until it has failed, not a fixed number of times.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await t.database.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    if (current.status === "failed") return delivery.id;
    if (Date.now() > deadline) throw new Error(`delivery ${delivery.id} is still ${current.status} after ${current.attemptCount} attempts`);
    await t.database.db.webhookDelivery.update({ where: { id: delivery.id }, data: { nextRetryAt: new Date(0), leaseUntil: null } });
    await t.app.webhooks.runOnce();
  }
}

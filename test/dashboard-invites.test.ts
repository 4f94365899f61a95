// Invitations and password resets in a real Chromium with a real SMTP server: the owner invites from
// the Team screen, the invitee opens the link from the mail, sets a password and is signed in; a user
// who forgot their password asks for a link on the sign-in page and sets a new one (at phone width);
// a revoked invitation leaves the list. axe-core finds nothing on each page at 1280 and 390 px.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { startSmtpServer } from "./support/smtp.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
const owner = { email: "owner@invites.test", password: "correct-horse-battery" };
const LAPTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  [smtp, browser] = await Promise.all([startSmtpServer(), launchBrowser()]);
  t = await startTestApp({ env: { SMTP_URL: `smtp://user:secret@127.0.0.1:${smtp.port}` } });
  merchant = await t.createMerchant();
  await createUser(t.deps, { organizationId: merchant.organizationId, role: "owner", ...owner });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

/** The link of the last mail to `recipient`, on the test server (the mail names PUBLIC_URL). */
async function linkMailedTo(recipient: string, path: string): Promise<string> {
  await t.app.mail.runOnce();
  const mail = smtp.received.filter((m) => [m.to ?? []].flat().some((to) => to.text === recipient)).at(-1);
  const link = String(mail?.text).match(new RegExp(`http://pay\\.example\\.test(/dashboard/${path}\\?token=[A-Za-z0-9_-]+)`));
  expect(link, `a ${path} link mailed to ${recipient}`).not.toBeNull();
  return `${t.url}${link![1]}`;
}

async function freshPage(viewport: { width: number; height: number }): Promise<Page> {
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  await page.setViewportSize(viewport);
  return page;
}

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto(`${t.url}/dashboard`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Home", level: 1 }).waitFor();
}

async function openTeam(page: Page) {
  await page.goto(`${t.url}/dashboard/team`);
  await page.getByRole("heading", { name: "Team", level: 1 }).waitFor();
}

async function inviteFromTeam(page: Page, email: string, role: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption({ label: role });
  await page.getByRole("button", { name: "Send invitation" }).click();
  await page.getByRole("status").getByText(`Invitation sent to ${email}.`).waitFor();
}

describe("dashboard invitations and password reset", () => {
  it("invites from the Team screen; the link from the mail sets a password and signs the invitee in", async () => {
    for (const viewport of [LAPTOP, PHONE]) {
      const invitee = `dev-${viewport.width}@invites.test`;
      const page = await freshPage(viewport);
      await signIn(page, owner);
      await openTeam(page);
      await inviteFromTeam(page, invitee, "Developer");
      const pending = page.getByRole("region", { name: "Pending invitations" });
      await pending.getByRole("row").filter({ hasText: invitee }).getByText("Developer").waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-team-invite-${viewport.width}`), fullPage: true });
      const link = await linkMailedTo(invitee, "accept-invite");
      // The mail names who invites, to which organization, as what (a mail from nobody reads as spam).
      const mail = smtp.received.filter((m) => [m.to ?? []].flat().some((to) => to.text === invitee)).at(-1)!;
      expect(mail.subject).toBe(`${owner.email} invited you to Test Merchant on Stellar Pay`);
      expect(mail.text).toContain(`${owner.email} invited you to join Test Merchant's Stellar Pay dashboard as developer.`);

      const invited = await freshPage(viewport);
      await invited.goto(link);
      await invited.getByRole("heading", { name: "Join Test Merchant", level: 1 }).waitFor();
      await invited.getByText(`${owner.email} invited you to the Test Merchant dashboard as a developer.`, { exact: false }).waitFor();
      expect(await invited.title()).toBe("Join Test Merchant · Dashboard");
      expect(await invited.getByText("Loading the dashboard").count()).toBe(0);
      expect(await accessibilityViolations(invited)).toEqual([]);
      await invited.screenshot({ path: screenshotPath(`dashboard-accept-invite-${viewport.width}`), fullPage: true });
      await invited.getByLabel("Password").fill("short");
      await invited.getByRole("button", { name: "Set password and sign in" }).click();
      // The browser's own check (minlength) keeps a short password from being sent.
      expect(await invited.getByLabel("Password").evaluate((input: HTMLInputElement) => input.validity.tooShort)).toBe(true);
      await invited.getByLabel("Password").fill("the-invitees-password");
      await invited.getByRole("button", { name: "Set password and sign in" }).click();
      await invited.getByRole("heading", { name: "Home", level: 1 }).waitFor();
      // (on a phone the header's email is hidden behind the menu: read it rather than look for it)
      expect(await invited.locator("header .who").textContent()).toBe(invitee);
      expect(new URL(invited.url()).pathname).toBe("/dashboard/");

      // The link worked once.
      const again = await freshPage(viewport);
      await again.goto(link);
      // Said on opening, before a password is typed for nothing.
      await again.getByRole("alert").getByText("this invitation has already been used", { exact: false }).waitFor();
      expect(await again.getByLabel("Password").count()).toBe(0);
      await Promise.all([page.close(), invited.close(), again.close()]);
    }
    // Two widths, each a whole flow across three tabs: more than one action takes on a loaded machine.
  }, 120_000);

  it("revokes a pending invitation from the Team screen", async () => {
    const page = await freshPage(LAPTOP);
    await signIn(page, owner);
    await openTeam(page);
    await inviteFromTeam(page, "revoked@invites.test", "Viewer");
    const row = page.getByRole("region", { name: "Pending invitations" }).getByRole("row").filter({ hasText: "revoked@invites.test" });
    await row.waitFor();
    await page.getByRole("button", { name: "Revoke the invitation of revoked@invites.test" }).click();
    await row.waitFor({ state: "detached" });
    await page.close();
  });

  it("'Forgot password?' mails a link that sets a new password; then the user signs in with it", async () => {
    const user = { email: "forgetful@invites.test", password: "the-old-password" };
    await createUser(t.deps, { organizationId: merchant.organizationId, role: "viewer", ...user });
    for (const viewport of [PHONE, LAPTOP]) {
      const page = await freshPage(viewport);
      await page.goto(`${t.url}/dashboard`);
      await page.getByRole("button", { name: "Forgot password?" }).click();
      await page.getByRole("heading", { name: "Reset your password", level: 1 }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.getByLabel("Email").fill(user.email);
      await page.getByRole("button", { name: "Send reset link" }).click();
      await page.getByRole("status").getByText(`If ${user.email} has an account, a mail with a link`, { exact: false }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`dashboard-forgot-password-${viewport.width}`), fullPage: true });
      const link = await linkMailedTo(user.email, "reset-password");

      await page.goto(link);
      await page.getByRole("heading", { name: "Choose a new password", level: 1 }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      const newPassword = `a-new-password-${viewport.width}`;
      await page.getByLabel("New password").fill(newPassword);
      await page.getByRole("button", { name: "Set new password" }).click();
      await page.getByRole("status").getByText("Your password is set.", { exact: false }).waitFor();
      await page.screenshot({ path: screenshotPath(`dashboard-reset-password-${viewport.width}`), fullPage: true });
      await page.getByRole("button", { name: "Go to sign in" }).click();
      await page.getByRole("heading", { name: "Sign in to your dashboard", level: 1 }).waitFor();
      await signIn(page, { email: user.email, password: newPassword });
      await page.close();
    }
  });
});

// The notices dashboard users choose (Account → Email notices): a real SMTP server receives them,
// mailparser reads back both parts. Payments are paid with real signed transactions on the simulated
// network, found by the app's own ledger worker; a webhook endpoint fails against a closed port for
// over an hour of the test clock. Each user's choices are set through the GraphQL mutation.
import type { ParsedMail } from "mailparser";
import { Networks } from "@stellar/stellar-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { type DashboardClient, signedInUser } from "./support/dashboard.ts";
import { fundedPayer, payOp, signedTransaction, submit, waitFor, walletOn } from "./support/ledger.ts";
import { startSmtpServer } from "./support/smtp.ts";
import { openDatabase } from "../src/db/client.ts";
import { createFailingEndpointWatch } from "../src/modules/webhook-endpoints/endpoint-health.ts";
import { startTestApp } from "./support/test-app.ts";
import { startWebhookReceiver } from "./support/webhook-receiver.ts";

const smtp = await startSmtpServer();
const SMTP = { SMTP_URL: `smtp://user:secret@127.0.0.1:${smtp.port}`, MAIL_FROM: "Stellar Pay <notices@pay.example.test>" };
afterAll(() => smtp.close());

const to = (mail: ParsedMail) => [mail.to ?? []].flat().map((address) => address.text).join(", ");
const mailsTo = (address: string, kind: string) => smtp.received.filter((mail) => to(mail) === address && mail.headers.get("subject")?.toString().startsWith(kind));

const NOTICES = `{ paymentReceived invoicePaid webhookFailing }`;
const choose = (user: DashboardClient, input: Record<string, boolean>) =>
  user.graphql(`mutation ($input: MailNoticesInput!) { updateMailNotices(input: $input) ${NOTICES} }`, { input });

describe("payment received and invoice paid", async () => {
  const t = await startTestApp({ workers: true, env: { LEDGER: "simulated", SIM_LEDGER_CLOSE_MS: "100", ...SMTP } });
  afterAll(() => t.close());
  const merchant = await t.createMerchant();
  const network = t.app.ledger.simulatedNetwork(Networks.TESTNET)!;
  const wallet = walletOn(network, `${t.url}/_sim/horizon`);
  await network.fund(merchant.wallet.publicKey());
  // A display name with markup in it: the HTML part must show it as text.
  const renamed = await t.graphql(`mutation { updateOrganization(input: { displayName: "Ada & <b>Co</b>" }) { displayName } }`, {}, merchant.sandboxKey);
  expect(renamed.body.errors).toBeUndefined();

  const owner = await signedInUser(t, merchant.organizationId, "owner");
  const viewer = await signedInUser(t, merchant.organizationId, "viewer");
  const quiet = await signedInUser(t, merchant.organizationId, "admin");
  const other = await t.createMerchant();
  const stranger = await signedInUser(t, other.organizationId, "owner");

  async function pay(paymentId: string) {
    const payment = (await t.api("GET", `/payments/${paymentId}`, { key: merchant.sandboxKey })).body;
    const payer = await fundedPayer(wallet);
    const xdr = await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, payment.amount)]);
    expect((await submit(wallet, xdr)).hash).toBeTruthy();
    await waitFor(async () => (await t.api("GET", `/payments/${paymentId}`, { key: merchant.sandboxKey })).body.status, (status) => status === "completed");
  }

  it("reads and sets each user's own choices; an API key has none and cannot set them", async () => {
    expect((await owner.graphql(`{ viewer { mailNotices ${NOTICES} } }`)).body).toEqual({
      data: { viewer: { mailNotices: { paymentReceived: true, invoicePaid: true, webhookFailing: true } } },
    });
    expect((await choose(quiet, { paymentReceived: false })).body).toEqual({
      data: { updateMailNotices: { paymentReceived: false, invoicePaid: true, webhookFailing: true } },
    });
    expect((await choose(quiet, { invoicePaid: false })).body.data.updateMailNotices).toEqual({ paymentReceived: false, invoicePaid: false, webhookFailing: true });
    // The owner's stay as they were.
    expect((await owner.graphql(`{ viewer { mailNotices ${NOTICES} } }`)).body.data.viewer.mailNotices.paymentReceived).toBe(true);
    expect((await t.graphql(`{ viewer { mailNotices ${NOTICES} } }`, {}, merchant.sandboxKey)).body.data.viewer.mailNotices).toBeNull();
    const byKey = await t.graphql(`mutation { updateMailNotices(input: { paymentReceived: false }) { paymentReceived } }`, {}, merchant.sandboxKey);
    expect(byKey.body.errors[0].extensions.code).toBe("BAD_REQUEST");
  });

  it("mails 'Payment received' in text and HTML, from the display name, to each user who chose it", async () => {
    const created = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "7.25", description: `Tea <script>alert("x")</script>` } });
    expect(created.status).toBe(201);
    await pay(created.body.id);
    const [mail] = await waitFor(async () => mailsTo(owner.email, "Payment received"), (mails) => mails.length === 1);
    expect(mail!.subject).toBe("Payment received: 7.2500000 XLM (sandbox)");
    expect(mail!.from?.value).toEqual([{ name: "Ada & <b>Co</b>", address: "notices@pay.example.test" }]);
    expect(mail!.text).toContain("Ada & <b>Co</b> received a payment of 7.2500000 XLM.");
    expect(mail!.text).toContain(`Payment: ${created.body.id}`);
    expect(mail!.text).toContain(`See the payment: http://pay.example.test/dashboard/payments/${created.body.id}`);
    const html = String(mail!.html);
    expect(html).toContain("Ada &amp; &lt;b>Co&lt;/b> received a payment of 7.2500000 XLM.");
    expect(html).toContain("Tea &lt;script>alert(&quot;x&quot;)&lt;/script>");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>Co");
    expect(html).toContain(`href="http://pay.example.test/dashboard/payments/${created.body.id}"`);
    // The viewer chose nothing and gets every notice; the admin turned it off; another organization hears nothing.
    await waitFor(async () => mailsTo(viewer.email, "Payment received"), (mails) => mails.length === 1);
    expect(mailsTo(quiet.email, "Payment received")).toEqual([]);
    expect(mailsTo(stranger.email, "Payment received")).toEqual([]);
    const stored = await t.database.db.mailMessage.findMany({ where: { resourceId: created.body.id } });
    expect(stored.map((m) => [m.kind, m.recipient]).sort()).toEqual(
      [
        ["payment_received", owner.email],
        ["payment_received", viewer.email],
      ].sort(),
    );
  });

  it("mails 'Invoice paid' besides 'Payment received' when the payment was an invoice's", async () => {
    const invoice = await t.api("POST", "/invoices", {
      key: merchant.sandboxKey,
      body: { due_in_days: 7, items: [{ description: "Lessons", quantity: "2", unit_amount: "3" }] },
    });
    expect(invoice.status).toBe(201);
    expect((await t.api("POST", `/invoices/${invoice.body.id}/finalize`, { key: merchant.sandboxKey })).status).toBe(200);
    const finalized = (await t.api("GET", `/invoices/${invoice.body.id}`, { key: merchant.sandboxKey })).body;
    await pay(finalized.payment_intent_id);
    const [paid] = await waitFor(async () => mailsTo(owner.email, "Invoice"), (mails) => mails.length === 1);
    expect(paid!.subject).toBe(`Invoice ${finalized.invoice_number} paid: 6.0000000 XLM (sandbox)`);
    expect(paid!.text).toContain(`See the invoice: http://pay.example.test/dashboard/invoices/${finalized.id}`);
    expect(String(paid!.html)).toContain(`Invoice ${finalized.invoice_number} of Ada &amp; &lt;b>Co&lt;/b> was paid`);
    await waitFor(async () => mailsTo(owner.email, "Payment received"), (mails) => mails.length === 2);
    expect(mailsTo(quiet.email, "Invoice")).toEqual([]);
    expect((await t.database.db.mailMessage.findMany({ where: { kind: "invoice_paid" } })).map((m) => m.recipient).sort()).toEqual([owner.email, viewer.email].sort());
  });
});

describe("webhook endpoint failing for an hour", async () => {
  const t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_DELAYS: "60,300,1800,7200,86400", ...SMTP } });
  afterAll(() => t.close());
  const receiver = await startWebhookReceiver();
  afterAll(() => receiver.close());
  const merchant = await t.createMerchant();
  const developer = await signedInUser(t, merchant.organizationId, "developer");
  const viewer = await signedInUser(t, merchant.organizationId, "viewer");
  const optedOut = await signedInUser(t, merchant.organizationId, "owner");
  expect((await choose(optedOut, { webhookFailing: false })).body.data.updateMailNotices.webhookFailing).toBe(false);

  const endpoint = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body: { url: `${receiver.url}/down`, enabled_events: ["*"] } });
  expect(endpoint.status).toBe(201);
  const newPayment = async () => expect((await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } })).status).toBe(201);
  /** Moves the clock past every retry due and runs the dispatcher and the failing endpoints' watch, then sends the mail. */
  const later = async (ms: number) => {
    t.clock.advance(ms);
    await t.app.webhooks.runOnce();
    await t.app.failingEndpoints.runOnce();
    await t.app.mail.runOnce();
  };
  const failingMails = (address: string) => mailsTo(address, "Webhook endpoint failing");

  it("tells the developers who chose it once per episode, not once per attempt, and again after a recovery and a new hour of failure", async () => {
    receiver.respond("/down", 500);
    await newPayment();
    await later(0); // first failure: the episode starts
    await later(61_000);
    await newPayment();
    await later(300_000);
    expect(failingMails(developer.email)).toEqual([]);
    // Past the hour: the next failed attempts (several deliveries, several cycles) tell once.
    await newPayment();
    await later(3_600_000);
    await newPayment();
    await later(1_800_000);
    await later(7_200_000);
    expect(failingMails(developer.email)).toHaveLength(1);
    const [mail] = failingMails(developer.email);
    expect(mail!.subject).toBe(`Webhook endpoint failing for an hour: ${receiver.url}/down (sandbox)`);
    expect(mail!.text).toContain("Last error: Endpoint answered HTTP 500");
    expect(String(mail!.html)).toContain(`href="http://pay.example.test/dashboard/developers/webhooks/${endpoint.body.id}"`);
    // A viewer cannot mend an endpoint; the owner turned it off.
    expect(failingMails(viewer.email)).toEqual([]);
    expect(failingMails(optedOut.email)).toEqual([]);

    // It recovers: the episode ends. Failing again for an hour is a new episode, told again.
    receiver.respond("/down", 200);
    await newPayment();
    await later(86_400_000);
    expect((await t.database.db.webhookEndpoint.findUnique({ where: { id: endpoint.body.id } }))!.failingSince).toBeNull();
    receiver.respond("/down", 503);
    await newPayment();
    await later(0);
    await newPayment();
    await later(3_700_000);
    await later(3_700_000);
    expect(failingMails(developer.email)).toHaveLength(2);
    expect(failingMails(developer.email)[1]!.text).toContain("Last error: Endpoint answered HTTP 503");
  });

  it("tells within a look of the hour, not at the next attempt hours later; once, however many processes look together; after a restart too", async () => {
    const quiet = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body: { url: `${receiver.url}/quiet`, enabled_events: ["payment.created"] } });
    expect(quiet.status).toBe(201);
    receiver.respond("/quiet", 502);
    receiver.respond("/down", 200);
    const quietMails = () => mailsTo(developer.email, `Webhook endpoint failing for an hour: ${receiver.url}/quiet`);
    // One delivery: its attempts fail at 0, 1 min, 6 min and 36 min; the next is 2 h after that.
    await newPayment();
    await later(0);
    await later(60_000);
    await later(300_000);
    await later(1_800_000);
    const row = () => t.database.db.webhookEndpoint.findUniqueOrThrow({ where: { id: quiet.body.id } });
    const since = (await row()).failingSince!;
    expect(since).not.toBeNull();
    // 59 min into the episode: not yet.
    const moveTo = (at: number) => t.clock.advance(at - t.clock.now().getTime());
    moveTo(since.getTime() + 59 * 60_000);
    await later(0);
    expect(quietMails()).toEqual([]);
    // The hour is reached; no attempt is due for over an hour more. Two processes (two database
    // clients, each with its own watch) look at once, as a restarted one would: one notice.
    moveTo(since.getTime() + 60 * 60_000 + 1000);
    const other = openDatabase(t.config.databaseUrl);
    try {
      const otherWatch = createFailingEndpointWatch({ ...t.deps, db: other.db });
      await Promise.all([t.app.failingEndpoints.runOnce(), otherWatch.runOnce(), otherWatch.runOnce(), t.app.failingEndpoints.runOnce()]);
    } finally {
      await other.close();
    }
    await t.app.mail.runOnce();
    expect(quietMails()).toHaveLength(1);
    expect(quietMails()[0]!.text).toContain("Last error: Endpoint answered HTTP 502");
    // Told at the look, a second past the hour (give or take the test's own run time).
    expect((await row()).failingNoticeAt!.getTime() - since.getTime()).toBeGreaterThanOrEqual(60 * 60_000 + 1000);
    expect((await row()).failingNoticeAt!.getTime() - since.getTime()).toBeLessThan(60 * 60_000 + 60_000);
    expect((await t.database.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: quiet.body.id } })).nextRetryAt!.getTime()).toBeGreaterThan(
      since.getTime() + 2 * 60 * 60_000,
    );
    // The watch looks again and again: still one.
    await later(30_000);
    await later(30_000);
    expect(quietMails()).toHaveLength(1);
  });
});

describe("the HTML part of every mail", async () => {
  const t = await startTestApp({ env: SMTP });
  afterAll(() => t.close());
  const merchant = await t.createMerchant();
  const owner = await signedInUser(t, merchant.organizationId, "owner");

  it("a security notice and a password reset carry an HTML part saying what the text says, the reset's link as a button", async () => {
    // A role change is a security notice to the owners.
    const teammate = await signedInUser(t, merchant.organizationId, "viewer");
    const changed = await owner.graphql(`mutation ($id: ID!, $password: String!) { updateUserRole(id: $id, role: developer, password: $password) { id } }`, {
      id: teammate.userId,
      password: owner.password,
    });
    expect(changed.body.errors).toBeUndefined();
    await t.graphql(`mutation ($email: String!) { requestPasswordReset(email: $email) }`, { email: owner.email });
    await t.app.mail.runOnce();
    const [notice] = mailsTo(owner.email, "Security notice");
    expect(notice!.text).toContain(`${teammate.email} is now developer (was viewer)`);
    expect(String(notice!.html)).toContain(`${teammate.email} is now developer (was viewer)`);
    const [reset] = mailsTo(owner.email, "Reset your");
    const link = reset!.text!.match(/http:\/\/pay\.example\.test\/dashboard\/reset-password\?token=\S+/)![0];
    expect(String(reset!.html)).toContain(`href="${link}"`);
    // The stored HTML is sealed like the text: it carries the one-time link.
    const stored = await t.database.db.mailMessage.findFirst({ where: { kind: "password_reset", recipient: owner.email } });
    expect(stored!.htmlBody).not.toContain("token=");
  });
});

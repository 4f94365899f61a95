// The mail outbox and sendInvoice: a real SMTP server started here receives the invoice mail, which
// mailparser reads back; the outbox survives a worker that dies mid-send, and retries a server that
// is down; with no SMTP_URL mail goes to the log and is kept.
import { type AddressInfo, createServer } from "node:net";
import type { ParsedMail } from "mailparser";
import { afterAll, describe, expect, it } from "vitest";
import { MAIL_RETRY_DELAYS_S, MailWorker } from "../src/mail/mail-worker.ts";
import { type MailEnvelope, createMailTransport } from "../src/mail/mail-transport.ts";
import { captureLog } from "./support/captured-log.ts";
import { startSmtpServer } from "./support/smtp.ts";
import { openDatabase } from "../src/db/client.ts";
import { createApiKey, revokeApiKey } from "../src/modules/api-keys/api-keys.service.ts";
import { subscribeSse } from "./support/sse.ts";
import { dialect, startTestApp } from "./support/test-app.ts";

const recipientOf = (mail: ParsedMail) => [mail.to ?? []].flat().map((to) => to.text).join(", ");

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const smtp = await startSmtpServer();
const t = await startTestApp({ env: { SMTP_URL: `smtp://user:secret@127.0.0.1:${smtp.port}`, MAIL_FROM: "Acme Billing <billing@acme.test>" } });
afterAll(async () => {
  await t.close();
  await smtp.close();
});
const merchant = await t.createMerchant();
const renamed = await t.graphql(`mutation { updateOrganization(input: { displayName: "Acme Tools" }) { displayName } }`, {}, merchant.sandboxKey);
expect(renamed.body).toEqual({ data: { updateOrganization: { displayName: "Acme Tools" } } });

const gql = async (query: string, variables?: Record<string, unknown>) => (await t.graphql(query, variables, merchant.sandboxKey)).body;
const SEND = `mutation ($id: ID!) { sendInvoice(id: $id) { id status sentAt } }`;
const send = (id: string) => gql(SEND, { id });
const mailOf = async (resourceId: string) => t.database.db.mailMessage.findMany({ where: { resourceId }, orderBy: { createdAt: "asc" } });

async function customer(email: string | null) {
  const res = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Ada", ...(email && { email }) } });
  return res.body.id as string;
}

async function openInvoice(customerId: string | null = null, finalize = true) {
  const res = await t.api("POST", "/invoices", {
    key: merchant.sandboxKey,
    body: {
      ...(customerId && { customer_id: customerId }),
      description: "October work",
      due_in_days: 14,
      items: [
        { description: "Consulting hour", quantity: "3", unit_amount: "40" },
        { description: "Travel", quantity: "1", unit_amount: "12.5" },
      ],
    },
  });
  expect(res.status).toBe(201);
  if (finalize) expect((await t.api("POST", `/invoices/${res.body.id}/finalize`, { key: merchant.sandboxKey })).status).toBe(200);
  return res.body as { id: string; invoice_number: string; due_at: string; hosted_invoice_url: string };
}

describe("sendInvoice", () => {
  it("mails the customer the merchant's name, number, amount, due date, items and link, and sets sent_at", async () => {
    const invoice = await openInvoice(await customer("ada@example.com"));
    const answer = await send(invoice.id);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.sendInvoice).toMatchObject({ id: invoice.id, status: "open" });
    const sentAt = answer.data.sendInvoice.sentAt;
    expect(Date.parse(sentAt)).not.toBeNaN();

    // Written with the change, sent after it by the worker.
    expect((await mailOf(invoice.id)).map((m) => m.status)).toEqual(["pending"]);
    const before = smtp.received.length;
    expect(await t.app.mail.runOnce()).toBe(1);
    expect(smtp.received.length).toBe(before + 1);
    const mail = smtp.received.at(-1)!;
    // From the merchant's display name, at MAIL_FROM's address.
    expect(mail.from?.value).toEqual([{ name: "Acme Tools", address: "billing@acme.test" }]);
    expect(recipientOf(mail)).toBe("ada@example.com");
    const due = invoice.due_at.slice(0, 10);
    expect(mail.subject).toBe(`Invoice ${invoice.invoice_number} from Acme Tools: 132.5000000 XLM due ${due}`);
    expect(mail.text).toContain(`Acme Tools sent you invoice ${invoice.invoice_number}.`);
    expect(mail.text).toContain("Amount due: 132.5000000 XLM");
    expect(mail.text).toContain(`Due date: ${due}`);
    expect(mail.text).toContain("- Consulting hour: 3 x 40.0000000 XLM = 120.0000000 XLM");
    expect(mail.text).toContain("- Travel: 1 x 12.5000000 XLM = 12.5000000 XLM");
    expect(mail.text).toContain(`View and pay the invoice: http://pay.example.test/i/${invoice.id}`);
    expect(invoice.hosted_invoice_url).toBe(`http://pay.example.test/i/${invoice.id}`);
    expect(mail.messageId).toMatch(/^<msg_\w+@stellar-pay>$/);
    // The HTML part says the same: the items as a list, the facts as a table, the link as a button.
    const html = String(mail.html);
    expect(html).toContain(`<li style="margin:4px 0;">Consulting hour: 3 x 40.0000000 XLM = 120.0000000 XLM</li>`);
    expect(html).toMatch(/<td[^>]*>Amount due<\/td><td[^>]*>132.5000000 XLM<\/td>/);
    expect(html).toContain(`<a href="http://pay.example.test/i/${invoice.id}"`);
    expect(html).toContain(">View and pay the invoice</a>");

    const rest = await t.api("GET", `/invoices/${invoice.id}`, { key: merchant.sandboxKey });
    expect(rest.body.sent_at).toBe(sentAt);
    const [stored] = await mailOf(invoice.id);
    expect(stored).toMatchObject({ status: "sent", attemptCount: 1, lastError: null, leaseUntil: null, kind: "invoice", recipient: "ada@example.com" });
    // No webhook event kind exists for it: nothing is invented.
    expect((await t.database.db.event.findMany({ where: { resourceId: invoice.id } })).map((e) => e.type)).toEqual(["invoice.finalized"]);
  });

  it("sends again when asked again, and moves sent_at", async () => {
    const invoice = await openInvoice(await customer("grace@example.com"));
    const first = (await send(invoice.id)).data.sendInvoice.sentAt;
    t.clock.advance(60_000);
    const second = (await send(invoice.id)).data.sendInvoice.sentAt;
    expect(Date.parse(second) - Date.parse(first)).toBeGreaterThanOrEqual(60_000);
    const before = smtp.received.length;
    expect(await t.app.mail.runOnce()).toBe(2);
    expect(smtp.received.slice(before).map((m) => m.subject?.split(":")[0])).toEqual([
      `Invoice ${invoice.invoice_number} from Acme Tools`,
      `Invoice ${invoice.invoice_number} from Acme Tools`,
    ]);
    // The invoice's mails, newest first.
    const mails = await gql(`query ($id: String) { mailMessages(first: 10, resourceId: $id) { edges { node { resourceId status createdAt } } } }`, {
      id: invoice.id,
    });
    const nodes = mails.data.mailMessages.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => [n.resourceId, n.status])).toEqual([
      [invoice.id, "sent"],
      [invoice.id, "sent"],
    ]);
    expect(Date.parse(nodes[0].createdAt) - Date.parse(nodes[1].createdAt)).toBeGreaterThanOrEqual(60_000);
  });

  it("refuses drafts, paid and void invoices, and invoices with nobody to mail, changing nothing", async () => {
    const withEmail = await customer("ada@example.com");
    const draft = await openInvoice(withEmail, false);
    const voided = await openInvoice(withEmail);
    await t.api("POST", `/invoices/${voided.id}/void`, { key: merchant.sandboxKey });
    const paid = await openInvoice(withEmail);
    const payment = (await t.api("GET", `/invoices/${paid.id}`, { key: merchant.sandboxKey })).body.payment_intent_id;
    expect((await t.api("POST", `/payments/${payment}/complete`, { key: merchant.sandboxKey })).status).toBe(200);
    const noCustomer = await openInvoice(null);
    const noEmail = await openInvoice(await customer(null));

    const refusal = async (id: string) => {
      const answer = await send(id);
      expect(answer.data).toBeNull();
      return { code: answer.errors[0].extensions.code, message: answer.errors[0].message };
    };
    expect(await refusal(draft.id)).toEqual({ code: "CONFLICT", message: "Invoice can only be sent while open (it is draft)" });
    expect(await refusal(voided.id)).toEqual({ code: "CONFLICT", message: "Invoice can only be sent while open (it is void)" });
    expect(await refusal(paid.id)).toEqual({ code: "CONFLICT", message: "Invoice can only be sent while open (it is paid)" });
    expect(await refusal(noCustomer.id)).toEqual({ code: "BAD_REQUEST", message: "This invoice has no customer to mail it to: share its payment link instead" });
    expect(await refusal(noEmail.id)).toEqual({ code: "BAD_REQUEST", message: "The invoice's customer has no email address: add one on the customer's page, then send again" });
    expect(await refusal("inv_unknown")).toEqual({ code: "NOT_FOUND", message: "Not found" });
    // Another environment's invoice is not found either.
    const live = await t.graphql(SEND, { id: noEmail.id }, merchant.liveKey);
    expect(live.body.errors[0].extensions.code).toBe("NOT_FOUND");

    for (const invoice of [draft, voided, paid, noCustomer, noEmail]) {
      expect(await mailOf(invoice.id)).toEqual([]);
      expect((await t.api("GET", `/invoices/${invoice.id}`, { key: merchant.sandboxKey })).body.sent_at).toBeNull();
    }
  });

  it("needs an API key", async () => {
    const answer = await t.graphql(SEND, { id: "inv_x" });
    expect(answer.body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });
});

describe("the live mail status (mailMessageChanges)", () => {
  const watch = (resourceId: string | null, key: string) =>
    subscribeSse(t.url, `subscription($r: String) { mailMessageChanges(resourceId: $r) { id resourceId status sentAt } }`, { r: resourceId }, { authorization: `Bearer ${key}` });

  it("pushes the invoice's mail as the worker sends it, nothing of another invoice or merchant; ends at the key's revocation", async () => {
    const invoice = await openInvoice(await customer("live@mail.test"));
    const other = await openInvoice(await customer("other@mail.test"));
    const stranger = await t.createMerchant();
    const revoking = await createApiKey(t.deps, { organizationId: merchant.organizationId, environment: "sandbox" });
    const mine = await watch(invoice.id, revoking);
    const theirs = await watch(null, stranger.sandboxKey);
    expect(mine.status).toBe(200);
    // The stream is open once its first frame could come: give the server a moment to subscribe.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await send(invoice.id)).errors).toBeUndefined();
    expect((await send(other.id)).errors).toBeUndefined();
    const [queued] = await mailOf(invoice.id);
    expect(queued!.status).toBe("pending");
    expect(await t.app.mail.runOnce()).toBe(2);
    const pushed = (await mine.next(5000)).data.mailMessageChanges;
    expect(pushed).toMatchObject({ id: queued!.id, resourceId: invoice.id, status: "sent" });
    expect(pushed.sentAt).not.toBeNull();
    await expect(mine.next(500)).rejects.toThrow();
    await expect(theirs.next(300)).rejects.toThrow();
    theirs.close();

    await revokeApiKey(t.deps, { prefix: revoking.slice(0, "pk_test_".length + 8) });
    expect((await send(invoice.id)).errors).toBeUndefined();
    await t.app.mail.runOnce();
    const last = await mine.next(3000);
    expect(last).toEqual({ data: null, errors: [expect.objectContaining({ message: "Unauthorized", extensions: { code: "UNAUTHENTICATED" } })] });
    mine.close();
  });

  it("hears a mail worker of another process on PostgreSQL (its NOTIFY at commit); SQLite is one process", async () => {
    const invoice = await openInvoice(await customer("elsewhere@mail.test"));
    const sub = await watch(invoice.id, merchant.sandboxKey);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await send(invoice.id)).errors).toBeUndefined();
    // A worker with a database client of its own, as in another process: nothing it announces in
    // process reaches this app's open screens.
    const elsewhere = openDatabase(t.config.databaseUrl);
    const worker = new MailWorker({ ...t.deps, db: elsewhere.db });
    try {
      expect(await worker.runOnce()).toBe(1);
      if (dialect === "postgresql") {
        expect((await sub.next(5000)).data.mailMessageChanges).toMatchObject({ resourceId: invoice.id, status: "sent" });
      } else {
        await expect(sub.next(1000)).rejects.toThrow();
      }
    } finally {
      sub.close();
      await worker.stop();
      await elsewhere.close();
    }
  });
});

describe("the mail worker", () => {
  it("never loses a message whose worker died mid-send, and records the attempt once", async () => {
    const invoice = await openInvoice(await customer("crash@example.com"));
    await send(invoice.id);
    // A worker that claims the message and never comes back, as one killed while talking to SMTP.
    let finishSend: (() => void) | null = null;
    const dying = new MailWorker(t.deps, {
      transport: { send: () => new Promise<"sent">((resolve) => (finishSend = () => resolve("sent"))), close() {} },
    });
    const dyingCycle = dying.runOnce();
    await expect.poll(() => finishSend !== null).toBe(true);
    const [claimed] = await mailOf(invoice.id);
    expect(claimed).toMatchObject({ status: "pending", attemptCount: 0 });
    expect(claimed!.leaseUntil).not.toBeNull();

    // After a restart: the lease still runs, so nobody sends it twice...
    const restarted = new MailWorker(t.deps);
    const before = smtp.received.length;
    expect(await restarted.runOnce()).toBe(0);
    // ...until it lapses, and the message goes out.
    t.clock.advance(claimed!.leaseUntil!.getTime() - t.clock.now().getTime() + 1);
    expect(await restarted.runOnce()).toBe(1);
    expect(smtp.received.length).toBe(before + 1);
    expect(recipientOf(smtp.received.at(-1)!)).toBe("crash@example.com");

    // The worker that was taken over comes back: its late result is dropped, not recorded twice.
    finishSend!();
    await dyingCycle;
    const [after] = await mailOf(invoice.id);
    expect(after).toMatchObject({ status: "sent", attemptCount: 1 });
    await restarted.stop();
  });

  it("retries a server that is down, after the backoff, and keeps the error", async () => {
    const invoice = await openInvoice(await customer("retry@example.com"));
    await send(invoice.id);
    const down = new MailWorker(t.deps, { transport: createMailTransport({ ...t.config, smtpUrl: `smtp://127.0.0.1:${await closedPort()}` }, t.deps.logger) });
    expect(await down.runOnce()).toBe(0);
    const [failed] = await mailOf(invoice.id);
    expect(failed).toMatchObject({ status: "pending", attemptCount: 1, leaseUntil: null });
    expect(failed!.lastError).toMatch(/ECONNREFUSED/);
    expect(failed!.nextAttemptAt!.getTime() - failed!.updatedAt.getTime()).toBe(MAIL_RETRY_DELAYS_S[0]! * 1000);

    // Not before its time...
    expect(await t.app.mail.runOnce()).toBe(0);
    t.clock.advance(MAIL_RETRY_DELAYS_S[0]! * 1000);
    // ...then the working server gets it.
    const before = smtp.received.length;
    expect(await t.app.mail.runOnce()).toBe(1);
    expect(smtp.received.length).toBe(before + 1);
    expect((await mailOf(invoice.id))[0]).toMatchObject({ status: "sent", attemptCount: 2, lastError: null });
    await down.stop();
  });

  it("keeps a refused login as the error, without the password, in the table and the log", async () => {
    const invoice = await openInvoice(await customer("login@example.com"));
    await send(invoice.id);
    const log = captureLog("debug");
    const smtpUrl = `smtp://user:Hunter2Wrong@127.0.0.1:${smtp.port}`;
    const worker = new MailWorker({ ...t.deps, logger: log.logger }, { transport: createMailTransport({ ...t.config, smtpUrl }, log.logger) });
    expect(await worker.runOnce()).toBe(0);
    const [message] = await mailOf(invoice.id);
    expect(message).toMatchObject({ status: "pending", attemptCount: 1 });
    expect(message!.lastError).toMatch(/Invalid login/);
    expect(message!.lastError).not.toContain("Hunter2Wrong");
    expect(log.raw.join("\n")).toContain("mail attempt failed");
    expect(log.raw.join("\n")).not.toContain("Hunter2Wrong");
    await worker.stop();
    // Sent later with the right password.
    t.clock.advance(MAIL_RETRY_DELAYS_S[0]! * 1000);
    expect(await t.app.mail.runOnce()).toBe(1);
  });

  it("gives up after the last retry as failed, and keeps the message listed", async () => {
    const invoice = await openInvoice(await customer("gone@example.com"));
    await send(invoice.id);
    const failing = { send: async (_mail: MailEnvelope): Promise<"sent"> => Promise.reject(new Error("550 mailbox unavailable")), close() {} };
    const worker = new MailWorker(t.deps, { transport: failing });
    for (const delay of [0, ...MAIL_RETRY_DELAYS_S]) {
      t.clock.advance(delay * 1000);
      await worker.runOnce();
    }
    const [message] = await mailOf(invoice.id);
    expect(message).toMatchObject({ status: "failed", attemptCount: MAIL_RETRY_DELAYS_S.length + 1, nextAttemptAt: null, lastError: "550 mailbox unavailable" });
    const listed = await gql(`{ mailMessages(first: 50) { edges { node { id resourceId status attemptCount lastError } } } }`);
    expect(listed.data.mailMessages.edges.map((e: any) => e.node)).toContainEqual({
      id: message!.id,
      resourceId: invoice.id,
      status: "failed",
      attemptCount: 6,
      lastError: "550 mailbox unavailable",
    });
  });

  it("without SMTP_URL writes recipient and subject to the log, not the body, and keeps the message as logged", async () => {
    const invoice = await openInvoice(await customer("log@example.com"));
    await send(invoice.id);
    const log = captureLog("info");
    const worker = new MailWorker({ ...t.deps, logger: log.logger }, { transport: createMailTransport({ ...t.config, smtpUrl: null }, log.logger) });
    expect(await worker.runOnce()).toBe(1);
    const line = log.lines().find((l) => l.message === "mail written to the log (no SMTP_URL)")!;
    expect(line).toMatchObject({ recipient: "log@example.com" });
    expect(line.subject).toMatch(/^Invoice INV-\d{6} from Acme Tools/);
    expect(log.raw.join("\n")).not.toContain("View and pay");
    const [message] = await mailOf(invoice.id);
    expect(message).toMatchObject({ status: "logged", attemptCount: 1 });
    expect(message!.sentAt).not.toBeNull();

    const listed = await gql(`{ mailMessages(first: 1) { edges { node { id kind recipient subject status sentAt createdAt } } } }`);
    expect(listed.errors).toBeUndefined();
    expect(listed.data.mailMessages.edges[0].node).toMatchObject({ id: message!.id, kind: "invoice", recipient: "log@example.com", status: "logged" });
    // Another environment sees none of it.
    const live = await t.graphql(`{ mailMessages(first: 50) { edges { node { id } } } }`, {}, merchant.liveKey);
    expect(live.body.data.mailMessages.edges).toEqual([]);
  });
});

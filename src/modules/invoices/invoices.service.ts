// Invoices: draft -> open (finalize: checkout session + payment, source_type invoice) -> paid (its
// payment completed, see payments/payment-completion.ts) or void (from draft or open).
import type { Invoice, InvoiceItem } from "../../generated/sqlite/client.ts";
import { type ServiceContext, inScope, isInScope } from "../../context.ts";
import { badRequest, conflict, notFound } from "../../errors.ts";
import { serializeMetadata } from "../../shared/validation.ts";
import { directSql } from "../../db/client.ts";
import { eventRow, recordEvent } from "../events/events.service.ts";
import { insertEventUnlessUntakenStatement } from "../events/events.store.ts";
import { loadSettings } from "../organizations/organizations.service.ts";
import { merchantName } from "../organizations/organizations.store.ts";
import { findCustomerInScope } from "../customers/customers.service.ts";
import { queueMailStatement } from "../mail/mail.service.ts";
import { invoiceMail } from "./invoice-mail.ts";
import { expirePayment } from "../payments/payment-completion.ts";
import { isAwaitingPayment } from "../payments/payment-states.ts";
import { noSettlementWallet, preparePayment, requireCustomer, retryOnMemoCollision } from "../payments/payments.service.ts";
import { newCheckoutSessionWrites } from "../checkout-sessions/checkout-sessions.service.ts";
import { checkoutSessionUrl } from "../checkout-sessions/checkout-sessions.view.ts";
import { type CreateInvoiceInput, DEFAULT_DUE_IN_DAYS, type InvoiceStatus } from "./invoices.inputs.ts";
import { type InvoiceWithDetails, invoiceJson } from "./invoices.view.ts";
import {
  finalizeInvoiceStatement,
  markInvoiceSentStatement,
  findInvoiceWithDetails,
  findInvoiceWithDetailsIn,
  invoiceMoves,
  newInvoiceSteps,
  voidInvoiceIn,
} from "./invoices.store.ts";

const DAY_MS = 24 * 60 * 60_000;

const formatInvoiceNumber = (sequence: number) => `INV-${String(sequence).padStart(6, "0")}`;

export async function createInvoice(ctx: ServiceContext, input: CreateInvoiceInput): Promise<InvoiceWithDetails> {
  const settings = await loadSettings(ctx, ctx.scope);
  if (!settings.settlementAddress) throw noSettlementWallet();
  const customerId = await requireCustomer(ctx, input.customer_id);
  const now = ctx.clock.now();
  const invoice: Invoice = {
    id: ctx.ids.newId("inv"),
    ...inScope(ctx.scope),
    invoiceNumber: "",
    status: "draft" satisfies InvoiceStatus,
    amount: input.amount,
    description: input.description ?? null,
    metadata: serializeMetadata(input.metadata),
    customerId,
    checkoutSessionId: null,
    paymentId: null,
    dueAt: new Date(now.getTime() + (input.due_in_days ?? DEFAULT_DUE_IN_DAYS) * DAY_MS),
    paidAt: null,
    sentAt: null,
    finalizedAt: null,
    voidedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const items = (input.items ?? []).map((item, position): InvoiceItem => ({
    invoiceId: invoice.id,
    position,
    description: item.description,
    quantity: item.quantity,
    unitAmount: item.unit_amount,
  }));
  await directSql(ctx.db).batch(newInvoiceSteps(ctx.db, invoice, items, formatInvoiceNumber, noSettlementWallet));
  return { ...invoice, items, payment: null, checkoutSession: null };
}

export async function getInvoice(ctx: ServiceContext, id: string): Promise<InvoiceWithDetails> {
  const invoice = await findInvoiceWithDetails(ctx.db, id);
  if (!invoice || !isInScope(invoice, ctx.scope)) throw notFound();
  return invoice;
}

/** draft -> open: opens a checkout session whose payment expires at the invoice's due date. */
export async function finalizeInvoice(ctx: ServiceContext, id: string): Promise<{ invoice: InvoiceWithDetails; checkoutUrl: string }> {
  const invoice = await getInvoice(ctx, id);
  const notDraft = () => conflict("Invoice is not a draft");
  if (!invoiceMoves("finalize", invoice.status)) throw notDraft();
  const now = ctx.clock.now();
  // Its payment would expire at due_at, before anyone could pay it.
  if (invoice.dueAt <= now) throw conflict("Invoice is past its due date");
  const draft = await preparePayment(ctx, {
    amount: invoice.amount,
    description: invoice.description,
    metadata: invoice.metadata ? (JSON.parse(invoice.metadata) as Record<string, string>) : null,
    customer_id: invoice.customerId,
    expires_at: invoice.dueAt,
  });
  const finalized = await retryOnMemoCollision(async () => {
    const { session, statements } = newCheckoutSessionWrites(ctx, draft, { sourceType: "invoice" }, now);
    const { payment, ...checkoutSession } = session;
    const opened: InvoiceWithDetails = {
      ...invoice,
      status: "open" satisfies InvoiceStatus,
      checkoutSessionId: session.id,
      paymentId: payment.id,
      finalizedAt: now,
      updatedAt: now,
      payment,
      checkoutSession,
    };
    const event = eventRow(ctx, opened, { type: "invoice.finalized", resourceId: id, data: invoiceJson(opened, ctx.config.publicUrl) });
    await directSql(ctx.db).batch([
      ...statements,
      // A concurrent finalize or void wins: this one's session and payment roll back with it.
      finalizeInvoiceStatement(ctx.db, { id, checkoutSessionId: session.id, paymentId: payment.id, now }, notDraft),
      insertEventUnlessUntakenStatement(ctx.db, event),
    ]);
    return opened;
  });
  return { invoice: finalized, checkoutUrl: checkoutSessionUrl(ctx.config.publicUrl, finalized.checkoutSessionId!) };
}

/** draft | open -> void; an open invoice's payment awaiting payment (and its session) expire with it. */
export async function voidInvoice(ctx: ServiceContext, id: string): Promise<InvoiceWithDetails> {
  await getInvoice(ctx, id);
  const now = ctx.clock.now();
  return ctx.db.$transaction(async (tx) => {
    if (!(await voidInvoiceIn(tx, id, now))) throw conflict("Invoice can only be voided while draft or open");
    let result = (await findInvoiceWithDetailsIn(tx, id))!;
    if (result.payment && isAwaitingPayment(result.payment.status)) {
      await expirePayment(tx, ctx, result.payment);
      result = (await findInvoiceWithDetailsIn(tx, id))!;
    }
    await recordEvent(tx, ctx, result, { type: "invoice.voided", resourceId: id, data: invoiceJson(result, ctx.config.publicUrl) });
    return result;
  });
}

/**
 * Mails an open invoice to its customer and sets sent_at, in one transaction with the mail's outbox
 * row (the mail worker sends it after commit). Sending again is allowed: it mails again and moves
 * sent_at. Drafts (not final yet), paid and void invoices are refused. No event: the spec's event
 * kinds have no invoice.sent; the outbox row (GraphQL mailMessages) is the record of the sending.
 */
export async function sendInvoice(ctx: ServiceContext, id: string): Promise<InvoiceWithDetails> {
  const invoice = await getInvoice(ctx, id);
  const notOpen = () => conflict(`Invoice can only be sent while open (it is ${invoice.status})`);
  if (!invoiceMoves("send", invoice.status)) throw notOpen();
  if (!invoice.customerId) throw badRequest("customer_id: the invoice has no customer to send it to", { path: [], problem: "", words: "This invoice has no customer to mail it to: share its payment link instead" });
  const customer = await findCustomerInScope(ctx, invoice.customerId);
  if (!customer?.email) {
    throw badRequest("customer email: the invoice's customer has no email address", {
      path: [],
      problem: "",
      words: "The invoice's customer has no email address: add one on the customer's page, then send again",
    });
  }
  const mail = invoiceMail(invoice, {
    merchantName: await merchantName(ctx.db, ctx.scope),
    recipient: customer.email,
    publicUrl: ctx.config.publicUrl,
  });
  const now = ctx.clock.now();
  await directSql(ctx.db).batch([markInvoiceSentStatement(ctx.db, id, now, notOpen), queueMailStatement(ctx, ctx.scope, mail)]);
  return { ...invoice, sentAt: now, updatedAt: now };
}

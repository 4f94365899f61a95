// Invoices: draft -> open (finalize: checkout session + payment, source_type invoice) -> paid (its
// payment completed, see payments/payment-completion.ts) or void (from draft or open).
import { type ServiceContext, inScope } from "../../context.ts";
import { badRequest, conflict, notFound } from "../../errors.ts";
import { type ListQuery, listPage } from "../../shared/pagination.ts";
import { serializeMetadata } from "../../shared/validation.ts";
import { recordEvent } from "../events/events.service.ts";
import { loadSettings } from "../organizations/organizations.service.ts";
import { expirePayment } from "../payments/payment-completion.ts";
import { preparePayment, requireCustomer } from "../payments/payments.service.ts";
import { openCheckoutSession } from "../checkout-sessions/checkout-sessions.service.ts";
import { checkoutSessionUrl } from "../checkout-sessions/checkout-sessions.view.ts";
import type { CreateInvoiceInput, InvoiceStatus } from "./invoices.inputs.ts";
import { type InvoiceWithDetails, invoiceInclude, invoiceJson } from "./invoices.view.ts";

const DEFAULT_DUE_IN_DAYS = 30;
const DAY_MS = 24 * 60 * 60_000;

export const formatInvoiceNumber = (sequence: number) => `INV-${String(sequence).padStart(6, "0")}`;

export async function createInvoice(ctx: ServiceContext, input: CreateInvoiceInput): Promise<InvoiceWithDetails> {
  const settings = await loadSettings(ctx, ctx.scope);
  if (!settings.settlementAddress) throw badRequest("Settlement wallet is not configured");
  const customerId = await requireCustomer(ctx, input.customer_id);
  const now = ctx.clock.now();
  const id = ctx.ids.newId("inv");
  return ctx.db.$transaction(async (tx) => {
    // The increment locks the settings row until commit, so concurrent creates take numbers one
    // after another, and a rolled-back create gives its number back: no repeats, no gaps.
    const { invoiceSequence } = await tx.environmentSettings.update({
      where: { organizationId_environment: inScope(ctx.scope) },
      data: { invoiceSequence: { increment: 1 } },
      select: { invoiceSequence: true },
    });
    return tx.invoice.create({
      data: {
        id,
        ...inScope(ctx.scope),
        invoiceNumber: formatInvoiceNumber(invoiceSequence),
        status: "draft" satisfies InvoiceStatus,
        amount: input.amount,
        description: input.description ?? null,
        metadata: serializeMetadata(input.metadata),
        customerId,
        dueAt: new Date(now.getTime() + (input.due_in_days ?? DEFAULT_DUE_IN_DAYS) * DAY_MS),
        createdAt: now,
        updatedAt: now,
        items: {
          create: (input.items ?? []).map((item, position) => ({
            position,
            description: item.description,
            quantity: item.quantity,
            unitAmount: item.unit_amount,
          })),
        },
      },
      include: invoiceInclude,
    });
  }, { maxWait: 30_000, timeout: 30_000 });
}

export async function getInvoice(ctx: ServiceContext, id: string): Promise<InvoiceWithDetails> {
  const invoice = await ctx.db.invoice.findFirst({ where: { id, ...inScope(ctx.scope) }, include: invoiceInclude });
  if (!invoice) throw notFound();
  return invoice;
}

/** draft -> open: opens a checkout session whose payment expires at the invoice's due date. */
export async function finalizeInvoice(ctx: ServiceContext, id: string): Promise<{ invoice: InvoiceWithDetails; checkoutUrl: string }> {
  const invoice = await getInvoice(ctx, id);
  if (invoice.status !== "draft") throw conflict("Invoice is not a draft");
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
  const finalized = await ctx.db.$transaction(async (tx) => {
    const session = await openCheckoutSession(tx, ctx, draft, { sourceType: "invoice" }, now);
    const { count } = await tx.invoice.updateMany({
      where: { id, status: "draft" },
      data: { status: "open", checkoutSessionId: session.id, paymentId: session.paymentId, finalizedAt: now, updatedAt: now },
    });
    // A concurrent finalize or void won: this one's session and payment roll back with it.
    if (count === 0) throw conflict("Invoice is not a draft");
    const open = await tx.invoice.findUniqueOrThrow({ where: { id }, include: invoiceInclude });
    await recordEvent(tx, ctx, open, { type: "invoice.finalized", resourceId: id, data: invoiceJson(open, ctx.config.publicUrl) });
    return open;
  });
  return { invoice: finalized, checkoutUrl: checkoutSessionUrl(ctx.config.publicUrl, finalized.checkoutSessionId!) };
}

/** draft | open -> void; an open invoice's pending payment (and its session) expire with it. */
export async function voidInvoice(ctx: ServiceContext, id: string): Promise<InvoiceWithDetails> {
  await getInvoice(ctx, id);
  const now = ctx.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const { count } = await tx.invoice.updateMany({
      where: { id, status: { in: ["draft", "open"] } },
      data: { status: "void", voidedAt: now, updatedAt: now },
    });
    if (count === 0) throw conflict("Invoice can only be voided while draft or open");
    const voided = await tx.invoice.findUniqueOrThrow({ where: { id }, include: { payment: true } });
    if (voided.payment?.status === "pending") await expirePayment(tx, ctx, voided.payment);
    const result = await tx.invoice.findUniqueOrThrow({ where: { id }, include: invoiceInclude });
    await recordEvent(tx, ctx, result, { type: "invoice.voided", resourceId: id, data: invoiceJson(result, ctx.config.publicUrl) });
    return result;
  });
}

export function listInvoices(ctx: ServiceContext, query: ListQuery & { status?: InvoiceStatus; customer_id?: string }) {
  const where = {
    ...inScope(ctx.scope),
    ...(query.status && { status: query.status }),
    ...(query.customer_id && { customerId: query.customer_id }),
  };
  const model = ctx.db.invoice;
  return listPage(
    {
      findMany: (args: { where: object; orderBy: object[]; take: number }) => model.findMany({ ...args, include: invoiceInclude }),
      findFirst: (args: { where: object; select: { id: true; createdAt: true } }) => model.findFirst(args),
    },
    where,
    query,
  );
}

// The moves of a payment after creation that other resources follow: completion (manual or verified
// on the ledger) and expiry. Each runs inside the caller's transaction and carries the change to the
// payment's checkout session and invoice, with every event in the same outbox transaction. The
// updates are conditional on the current status, so two concurrent movers cannot both win: the
// loser gets 409 and its transaction rolls back.
import type { Payment } from "../../generated/sqlite/client.ts";
import { type Deps, type ServiceContext, inScope } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { conflict, notFound } from "../../errors.ts";
import type { Asset } from "../../shared/assets.ts";
import { recordEvent } from "../events/events.service.ts";
import { checkoutSessionJson } from "../checkout-sessions/checkout-sessions.view.ts";
import { invoiceInclude, invoiceJson } from "../invoices/invoices.view.ts";
import type { CompletePaymentInput } from "./payments.inputs.ts";
import { recordPaymentEvent } from "./payments.service.ts";

type MoveDeps = Pick<Deps, "clock" | "ids" | "config">;

export interface CompletionDetails {
  /** the ledger transaction that paid it; null/absent for a manual completion without one */
  txHash?: string | null;
  payerAddress?: string | null;
  /** the asset the payer actually paid with */
  paidAsset?: Asset | null;
  /** stroops received so far; absent leaves the stored figure as it is */
  amountReceived?: bigint;
  /**
   * The payment was verified on the ledger after it expired (decisions: expired -> completed, late).
   * With it, an expired payment completes too and is marked `late`; a pending one completes normally.
   */
  late?: boolean;
}

/**
 * Moves `payment` to `completed` (from `pending`, or from `expired` when `details.late`), sets
 * `confirmed_at` and the given ledger details, writes `payment.completed`; moves its checkout session
 * to `complete` (`checkout.session.completed`) and its open invoice to `paid` with `paid_at`
 * (`invoice.paid`). Any other move: 409 "Payment is not pending". Returns the completed payment.
 * A voided invoice stays void: the payment still records the money that arrived.
 */
export async function completePayment(
  tx: Tx,
  deps: MoveDeps,
  payment: Pick<Payment, "id">,
  details: CompletionDetails = {},
): Promise<Payment> {
  const now = deps.clock.now();
  const data = {
    status: "completed",
    confirmedAt: now,
    updatedAt: now,
    ...(details.txHash != null && { txHash: details.txHash }),
    ...(details.payerAddress != null && { payerAddress: details.payerAddress }),
    ...(details.paidAsset != null && { paidAssetCode: details.paidAsset.code, paidAssetIssuer: details.paidAsset.issuer }),
    ...(details.amountReceived !== undefined && { amountReceived: details.amountReceived }),
  };
  let { count } = await tx.payment.updateMany({ where: { id: payment.id, status: "pending" }, data });
  if (count === 0 && details.late) {
    ({ count } = await tx.payment.updateMany({ where: { id: payment.id, status: "expired" }, data: { ...data, late: true } }));
  }
  if (count === 0) throw conflict("Payment is not pending");

  const completed = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
  await recordPaymentEvent(tx, deps, completed, "payment.completed");

  const session = await tx.checkoutSession.findUnique({ where: { paymentId: completed.id } });
  if (session && session.status !== "complete") {
    const updated = await tx.checkoutSession.update({ where: { id: session.id }, data: { status: "complete", updatedAt: now } });
    await recordEvent(tx, deps, updated, {
      type: "checkout.session.completed",
      resourceId: updated.id,
      data: checkoutSessionJson({ ...updated, payment: completed }, deps.config.publicUrl),
    });
  }

  const paid = await tx.invoice.updateMany({
    where: { paymentId: completed.id, status: "open" },
    data: { status: "paid", paidAt: now, updatedAt: now },
  });
  if (paid.count > 0) {
    const invoice = await tx.invoice.findUniqueOrThrow({ where: { paymentId: completed.id }, include: invoiceInclude });
    await recordEvent(tx, deps, invoice, {
      type: "invoice.paid",
      resourceId: invoice.id,
      data: invoiceJson(invoice, deps.config.publicUrl),
    });
  }
  return completed;
}

/**
 * Moves a `pending` payment to `expired` (`payment.expired`) and its open checkout session to
 * `expired` (`checkout.session.expired`). For the expiry sweeper and for voiding an invoice; an
 * invoice itself stays as it is. Any other move: 409 "Payment is not pending".
 */
export async function expirePayment(tx: Tx, deps: MoveDeps, payment: Pick<Payment, "id">): Promise<Payment> {
  const now = deps.clock.now();
  const { count } = await tx.payment.updateMany({
    where: { id: payment.id, status: "pending" },
    data: { status: "expired", updatedAt: now },
  });
  if (count === 0) throw conflict("Payment is not pending");
  const expired = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
  await recordPaymentEvent(tx, deps, expired, "payment.expired");

  const session = await tx.checkoutSession.findUnique({ where: { paymentId: expired.id } });
  if (session && session.status === "open") {
    const updated = await tx.checkoutSession.update({ where: { id: session.id }, data: { status: "expired", updatedAt: now } });
    await recordEvent(tx, deps, updated, {
      type: "checkout.session.expired",
      resourceId: updated.id,
      data: checkoutSessionJson({ ...updated, payment: expired }, deps.config.publicUrl),
    });
  }
  return expired;
}

/** REST `POST /payments/{id}/complete` and GraphQL `markPaymentCompleted`: pending -> completed. */
export async function markPaymentCompleted(ctx: ServiceContext, id: string, input: CompletePaymentInput): Promise<Payment> {
  const payment = await ctx.db.payment.findFirst({ where: { id, ...inScope(ctx.scope) }, select: { id: true } });
  if (!payment) throw notFound();
  return ctx.db.$transaction((tx) => completePayment(tx, ctx, payment, { txHash: input.tx_hash, payerAddress: input.payer_address }));
}

// The moves of a payment after creation that other resources follow: completion (manual or verified
// on the ledger) and expiry (payment-states.ts lists every move and the statuses it starts from).
// Each carries the change to the payment's checkout session and invoice, with every event in the
// same outbox transaction. The updates are conditional on the current
// status, so two concurrent movers cannot both win: the loser gets 409 and changes nothing.
//
// Completion is the ledger streamer's hot path, which completes a whole page of payments in one
// transaction: it is written as prepared statements (db/direct-sql.ts says why) that the caller
// appends to its batch. Expiry runs inside the caller's Prisma transaction.
import type { CheckoutSession, Invoice, InvoiceItem, Payment } from "../../generated/sqlite/client.ts";
import { type Deps, type ServiceContext, isInScope } from "../../context.ts";
import { type Db, type Tx, directSql } from "../../db/client.ts";
import { type BatchStep, type StatementResult, insertStatement } from "../../db/direct-sql.ts";
import { toCheckoutSession, toInvoice, toInvoiceItem, toPayment } from "../../db/rows.ts";
import { hotReads } from "../../db/hot-reads.ts";
import { conflict, notFound } from "../../errors.ts";
import type { Asset } from "../../shared/assets.ts";
import { addStroopsSql, capStroops } from "../../shared/money.ts";
import { type EventType, eventRow, recordEvent } from "../events/events.service.ts";
import { checkoutSessionJson } from "../checkout-sessions/checkout-sessions.view.ts";
import { invoiceJson } from "../invoices/invoices.view.ts";
import { AWAITING_PAYMENT, completesLate, ledgerCompletes } from "./payment-states.ts";
import type { CompletePaymentInput } from "./payments.inputs.ts";
import { recordPaymentEvent } from "./payments.service.ts";
import { paymentJson } from "./payments.view.ts";

type MoveDeps = Pick<Deps, "clock" | "ids" | "config">;

export interface CompletionDetails {
  /** the ledger transaction that paid it; null/absent for a manual completion without one */
  txHash?: string | null;
  payerAddress?: string | null;
  /** the asset the payer actually paid with */
  paidAsset?: Asset | null;
  /** stroops that arrived with this completion, added to amount_received */
  received?: bigint;
  /**
   * The status the payment was read in (default `pending`): the completion holds only if it still
   * is, and must be one the ledger completes (payment-states.ts). From `expired` it is marked `late`.
   */
  from?: string;
}

/** What a completion carries its change to, read before the batch that writes it. */
export interface CompletionRelations {
  session: CheckoutSession | null;
  /** the payment's invoice if it is open: only an open invoice becomes paid */
  openInvoice: (Invoice & { items: InvoiceItem[] }) | null;
}


/** The checkout sessions and open invoices of `paymentIds`, by payment id. */
export async function loadCompletionRelations(db: Db, paymentIds: string[]): Promise<Map<string, CompletionRelations>> {
  const relations = new Map<string, CompletionRelations>(paymentIds.map((id) => [id, { session: null, openInvoice: null }]));
  if (paymentIds.length === 0) return relations;
  const sql = directSql(db);
  const ids = sql.listParam(paymentIds);
  const [sessions, invoices] = await Promise.all([
    sql.all(`SELECT * FROM "CheckoutSession" WHERE ${sql.inList('"paymentId"', "$1")}`, [ids]),
    sql.all(`SELECT * FROM "Invoice" WHERE ${sql.inList('"paymentId"', "$1")} AND "status" = 'open'`, [ids]),
  ]);
  for (const session of sessions.map((row) => toCheckoutSession(row)!)) relations.get(session.paymentId)!.session = session;
  if (invoices.length === 0) return relations;
  const invoiceIds = sql.listParam(invoices.map((row) => row.id as string));
  const items = (
    await sql.all(`SELECT * FROM "InvoiceItem" WHERE ${sql.inList('"invoiceId"', "$1")} ORDER BY "position"`, [invoiceIds])
  ).map((row) => toInvoiceItem(row)!);
  for (const invoice of invoices.map((row) => toInvoice(row)!)) {
    relations.get(invoice.paymentId!)!.openInvoice = { ...invoice, items: items.filter((item) => item.invoiceId === invoice.id) };
  }
  return relations;
}

/**
 * Appends to `steps` the statements that move `paymentId` to `completed` from `details.from`
 * (`pending` unless said), set `confirmed_at` and the given ledger details, clear the failure reason
 * of an earlier failed attempt and write `payment.completed`; move its checkout session to
 * `complete` (`checkout.session.completed`) and its open invoice to `paid` with `paid_at`
 * (`invoice.paid`). Any other move fails the batch with
 * 409 "Payment is not pending". A voided invoice stays void: the payment still records the money.
 * Returns how to read the completed payment from the batch's results.
 *
 * Events are built from the rows the updates return, so their snapshots are what was written.
 * `relations` decides which updates there are: should one no longer apply when the batch runs (its
 * row moved meanwhile), the batch fails with 409 and changes nothing.
 */
export function appendCompletion(
  steps: BatchStep[],
  deps: MoveDeps,
  paymentId: string,
  relations: CompletionRelations,
  details: CompletionDetails = {},
): (results: StatementResult[]) => Payment {
  const now = deps.clock.now();
  const { publicUrl } = deps.config;
  const movedMeanwhile = { changes: 1, error: () => conflict("Payment changed while it was being completed") };
  const event = (row: { id: string; organizationId: string; environment: string }, type: EventType, data: unknown) =>
    insertStatement("Event", eventRow(deps, row, { type, resourceId: row.id, data }));

  const from = details.from ?? "pending";
  if (!ledgerCompletes(from)) throw conflict("Payment is not pending");
  const paymentAt = steps.length;
  // A paid asset replaces both columns (XLM's issuer is null).
  steps.push({
    text: `UPDATE "Payment" SET "status" = 'completed', "confirmedAt" = $2, "updatedAt" = $2,
      "txHash" = COALESCE($3, "txHash"), "payerAddress" = COALESCE($4, "payerAddress"),
      "paidAssetCode" = COALESCE($5, "paidAssetCode"), "paidAssetIssuer" = CASE WHEN $5 IS NULL THEN "paidAssetIssuer" ELSE $6 END,
      "amountReceived" = ${addStroopsSql(`"amountReceived"`, "$7")}, "late" = ("late" OR $9), "failureReason" = NULL
      WHERE "id" = $1 AND "status" = $8 RETURNING *`,
    params: [
      paymentId,
      now,
      details.txHash ?? null,
      details.payerAddress ?? null,
      details.paidAsset?.code ?? null,
      details.paidAsset?.issuer ?? null,
      capStroops(details.received ?? 0n),
      from,
      completesLate(from),
    ],
    expect: { changes: 1, error: () => conflict("Payment is not pending") },
  });
  // rowConverter converts in place and leaves converted values as they are: reading twice is safe.
  const completed = (results: StatementResult[]) => toPayment(results[paymentAt]!.rows[0])!;
  steps.push((before) => {
    const payment = completed(before);
    return event(payment, "payment.completed", paymentJson(payment, publicUrl));
  });

  const { session, openInvoice } = relations;
  let sessionAfter = (_results: StatementResult[]) => session;
  if (session && session.status !== "complete") {
    const sessionAt = steps.length;
    steps.push({
      text: `UPDATE "CheckoutSession" SET "status" = 'complete', "updatedAt" = $2 WHERE "id" = $1 AND "status" <> 'complete' RETURNING *`,
      params: [session.id, now],
      expect: movedMeanwhile,
    });
    sessionAfter = (results) => toCheckoutSession(results[sessionAt]!.rows[0]);
    steps.push((before) => {
      const updated = sessionAfter(before)!;
      return event(updated, "checkout.session.completed", checkoutSessionJson({ ...updated, payment: completed(before) }, publicUrl));
    });
  }

  if (openInvoice) {
    const invoiceAt = steps.length;
    steps.push({
      text: `UPDATE "Invoice" SET "status" = 'paid', "paidAt" = $2, "updatedAt" = $2 WHERE "id" = $1 AND "status" = 'open' RETURNING *`,
      params: [openInvoice.id, now],
      expect: movedMeanwhile,
    });
    steps.push((before) => {
      // An invoice's checkout session is its payment's (finalizeInvoice creates them together).
      const paid = { ...toInvoice(before[invoiceAt]!.rows[0])!, items: openInvoice.items, payment: completed(before), checkoutSession: sessionAfter(before) };
      return event(paid, "invoice.paid", invoiceJson(paid, publicUrl));
    });
  }
  return completed;
}

/** Completes one payment in a batch of its own (see appendCompletion). Returns the completed payment. */
export async function completePayment(
  deps: MoveDeps & Pick<Deps, "db">,
  payment: Pick<Payment, "id">,
  details: CompletionDetails = {},
): Promise<Payment> {
  const relations = await loadCompletionRelations(deps.db, [payment.id]);
  const steps: BatchStep[] = [];
  const completed = appendCompletion(steps, deps, payment.id, relations.get(payment.id)!, details);
  return completed(await directSql(deps.db).batch(steps));
}

/**
 * Moves a payment awaiting payment (`pending`, or `failed`: its failure reason stays) to `expired`
 * (`payment.expired`) and its open checkout session to `expired` (`checkout.session.expired`). For
 * the expiry sweeper and for voiding an invoice; an invoice itself stays as it is. Any other move:
 * 409 "Payment is not pending".
 */
export async function expirePayment(tx: Tx, deps: MoveDeps, payment: Pick<Payment, "id">): Promise<Payment> {
  const now = deps.clock.now();
  const { count } = await tx.payment.updateMany({
    where: { id: payment.id, status: { in: [...AWAITING_PAYMENT] } },
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
  const payment = await hotReads(ctx.db).paymentById(id);
  if (!payment || !isInScope(payment, ctx.scope)) throw notFound();
  return completePayment(ctx, payment, { txHash: input.tx_hash, payerAddress: input.payer_address });
}

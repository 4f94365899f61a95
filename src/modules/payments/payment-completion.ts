// The moves of a payment after creation that other resources follow: completion (manual or verified
// on the ledger) and expiry (payment-states.ts lists every move and the statuses it starts from).
// Each carries the change to the payment's checkout session and invoice, with every event in the
// same outbox transaction. The updates are conditional on the current
// status, so two concurrent movers cannot both win: the loser gets 409 and changes nothing.
//
// Completion is the ledger streamer's hot path, which completes a whole page of payments in one
// transaction: it is composed of the stores' prepared statements (payments, checkout sessions,
// invoices), appended to the caller's batch. The sweeper's expiry is such a batch too, a set of
// payments at a time; voiding an invoice expires its one payment inside the caller's Prisma transaction.
import { hashTermsOf, insertSearchTermsStatement } from "./payment-search.ts";
import type { CheckoutSession, Payment } from "../../generated/sqlite/client.ts";
import { type Deps, type ServiceContext, isInScope } from "../../context.ts";
import { type Db, type Tx, directSql } from "../../db/client.ts";
import type { BatchStep, Statement, StatementResult } from "../../db/direct-sql.ts";
import { conflict, notFound } from "../../errors.ts";
import { actorOf, auditStatement } from "../audit/audit.service.ts";
import { type NoticeAudience, invoicePaidMail, keyOf, loadNoticeAudiences, noticeRecipients, paymentReceivedMail } from "../mail/mail-notices.ts";
import { type NoticeKind, queueMailsStatement } from "../mail/mail.service.ts";
import type { Asset } from "../../shared/assets.ts";
import { eventRow, recordEvent } from "../events/events.service.ts";
import { insertEventsStatement } from "../events/events.store.ts";
import {
  checkoutSessionMoves,
  checkoutSessionsOfPayments,
  completeCheckoutSessionsStatement,
  completedCheckoutSessionsOf,
  expireOpenCheckoutSessionOf,
  expireOpenCheckoutSessionsOfStatement,
  expiredCheckoutSessionsOf,
} from "../checkout-sessions/checkout-sessions.store.ts";
import { checkoutSessionJson } from "../checkout-sessions/checkout-sessions.view.ts";
import { type InvoiceWithItems, openInvoicesOfPayments, paidInvoicesOf, payInvoicesStatement } from "../invoices/invoices.store.ts";
import { invoiceJson } from "../invoices/invoices.view.ts";
import {
  completePaymentsStatement,
  completedPaymentsOf,
  expireAwaitingPayment,
  expireDuePaymentsStatement,
  expiredPaymentsOf,
  paymentById,
  scopesOfPayments,
} from "./payments.store.ts";
import type { ManualCompletionInput } from "./payments.inputs.ts";
import { recordPaymentEvent } from "./payments.service.ts";
import { paymentEvent } from "./payments.view.ts";

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
  /** why a person completed it by hand (kept on the payment) */
  manualCompletionReason?: string | null;
}

/** What a completion carries its change to, read before the batch that writes it. */
export interface CompletionRelations {
  session: CheckoutSession | null;
  /** the payment's invoice if it is open: only an open invoice becomes paid */
  openInvoice: InvoiceWithItems | null;
  /** who is told by mail that the money arrived (mail-notices.ts) */
  audience: NoticeAudience | null;
}

/** The checkout sessions, open invoices and notice audiences of `payments`, by payment id. */
export async function loadCompletionRelations(db: Db, paymentIds: string[]): Promise<Map<string, CompletionRelations>> {
  const relations = new Map<string, CompletionRelations>(paymentIds.map((id) => [id, { session: null, openInvoice: null, audience: null }]));
  if (paymentIds.length === 0) return relations;
  const [sessions, invoices, payments] = await Promise.all([
    checkoutSessionsOfPayments(db, paymentIds),
    openInvoicesOfPayments(db, paymentIds),
    scopesOfPayments(db, paymentIds),
  ]);
  const audiences = await loadNoticeAudiences(db, payments);
  for (const session of sessions) relations.get(session.paymentId)!.session = session;
  for (const invoice of invoices) relations.get(invoice.paymentId!)!.openInvoice = invoice;
  for (const payment of payments) relations.get(payment.id)!.audience = audiences.get(keyOf(payment)) ?? null;
  return relations;
}

/** A payment to complete, with what its completion carries its change to and its details. */
export interface Completion {
  paymentId: string;
  relations: CompletionRelations;
  details: CompletionDetails;
}

/**
 * Appends to `steps` the statements that move each payment to `completed` from its `details.from`
 * (`pending` unless said), set `confirmed_at` and the given ledger details, clear the failure reason
 * of an earlier failed attempt and write `payment.completed`; move its checkout session to
 * `complete` (`checkout.session.completed`) and its open invoice to `paid` with `paid_at`
 * (`invoice.paid`), and queue the mail notices of both to the users who chose them (mail-notices.ts).
 * Any other move fails the batch with
 * 409 "Payment is not pending". A voided invoice stays void: the payment still records the money.
 * Returns how to read the completed payments, in the order given, from the batch's results.
 *
 * However many payments there are, this is at most six statements (the ledger completes a page of
 * payments in one batch, and on PostgreSQL each statement is a round trip): one update each of the
 * payments, their sessions and their invoices, one insert of their hashes' search terms, one insert of every event, written per payment
 * in that order, and one insert of every notice mail. Events are built from the rows the updates return, so their snapshots are what was
 * written. `relations` decides which updates there are: should one no longer apply when the batch
 * runs (its row moved meanwhile), the batch fails with 409 and changes nothing.
 */
export function appendCompletions(
  steps: BatchStep[],
  deps: MoveDeps & Pick<Deps, "db">,
  completions: Completion[],
): (results: StatementResult[]) => Payment[] {
  const { db } = deps;
  const now = deps.clock.now();
  const { publicUrl } = deps.config;
  const movedMeanwhile = () => conflict("Payment changed while it was being completed");

  const paymentsAt = steps.length;
  const changes = completions.map(({ paymentId, details }) => ({ ...details, paymentId, from: details.from ?? "pending" }));
  steps.push(completePaymentsStatement(db, changes, now));
  const completed = (results: StatementResult[]) => {
    const byId = new Map(completedPaymentsOf(db, results[paymentsAt]!.rows).map((payment) => [payment.id, payment]));
    return completions.map(({ paymentId }) => byId.get(paymentId)!);
  };
  // the transaction hash's search terms (payment-search.ts), in the completion's own transaction
  steps.push((results) => insertSearchTermsStatement(db, completed(results), hashTermsOf));

  /** The rows step `at` wrote, by payment id (none when there is no such step). */
  const writtenAt = <T extends { paymentId: string | null }>(at: number, read: (rows: StatementResult["rows"]) => T[]) => (results: StatementResult[]) =>
    new Map(at < 0 ? [] : read(results[at]!.rows).map((row) => [row.paymentId!, row]));

  const sessions = completions.flatMap(({ relations: { session } }) => (session && checkoutSessionMoves("complete", session.status) ? [session.id] : []));
  const sessionsAt = sessions.length ? steps.length : -1;
  if (sessions.length) steps.push(completeCheckoutSessionsStatement(db, sessions, now, { changes: sessions.length, error: movedMeanwhile }));
  const completedSessions = writtenAt(sessionsAt, (rows) => completedCheckoutSessionsOf(db, rows));

  const invoices = completions.flatMap(({ relations: { openInvoice } }) => (openInvoice ? [openInvoice.id] : []));
  const invoicesAt = invoices.length ? steps.length : -1;
  if (invoices.length) steps.push(payInvoicesStatement(db, invoices, now, { changes: invoices.length, error: movedMeanwhile }));
  const paidInvoices = writtenAt(invoicesAt, (rows) => paidInvoicesOf(db, rows));

  steps.push((before) => {
    const payments = completed(before);
    const sessionsWritten = completedSessions(before);
    const invoicesWritten = paidInvoices(before);
    const events = completions.flatMap(({ relations }, i) => {
      const payment = payments[i]!;
      const rows = [eventRow(deps, payment, paymentEvent(payment, "payment.completed", publicUrl))];
      const completedSession = sessionsWritten.get(payment.id);
      if (completedSession) {
        const data = checkoutSessionJson({ ...completedSession, payment }, publicUrl);
        rows.push(eventRow(deps, completedSession, { type: "checkout.session.completed", resourceId: completedSession.id, data }));
      }
      const invoice = invoicesWritten.get(payment.id);
      if (invoice) {
        // An invoice's checkout session is its payment's (finalizeInvoice creates them together).
        const paid = { ...invoice, items: relations.openInvoice!.items, payment, checkoutSession: completedSession ?? relations.session };
        rows.push(eventRow(deps, paid, { type: "invoice.paid", resourceId: paid.id, data: invoiceJson(paid, publicUrl) }));
      }
      return rows;
    });
    return insertEventsStatement(db, events);
  });

  const told = (kind: NoticeKind) => completions.some(({ relations }) => noticeRecipients(relations.audience ?? undefined, kind).length > 0);
  if (told("payment_received") || (told("invoice_paid") && invoices.length > 0)) {
    steps.push((before) => {
      const payments = completed(before);
      const invoicesWritten = paidInvoices(before);
      const mails = completions.flatMap(({ relations: { audience } }, i) => {
        const payment = payments[i]!;
        if (!audience) return [];
        const invoice = invoicesWritten.get(payment.id);
        return [
          ...noticeRecipients(audience, "payment_received").map((to) => paymentReceivedMail(deps, payment, audience, to)),
          ...(invoice ? noticeRecipients(audience, "invoice_paid").map((to) => invoicePaidMail(deps, invoice, payment, audience, to)) : []),
        ].map((mail) => ({ scope: payment, mail }));
      });
      return queueMailsStatement(deps, mails);
    });
  }
  return completed;
}

/** Completes one payment in a batch of its own (see appendCompletions), with `alongside` (its audit entry). Returns the completed payment. */
export async function completePayment(
  deps: MoveDeps & Pick<Deps, "db">,
  payment: Pick<Payment, "id">,
  details: CompletionDetails = {},
  alongside: Statement[] = [],
): Promise<Payment> {
  const relations = await loadCompletionRelations(deps.db, [payment.id]);
  const steps: BatchStep[] = [];
  const completed = appendCompletions(steps, deps, [{ paymentId: payment.id, relations: relations.get(payment.id)!, details }]);
  return completed(await directSql(deps.db).batch([...steps, ...alongside]))[0]!;
}

/**
 * Moves a payment awaiting payment (`pending`, or `failed`: its failure reason stays) to `expired`
 * (`payment.expired`) and its open checkout session to `expired` (`checkout.session.expired`). For
 * the expiry sweeper and for voiding an invoice; an invoice itself stays as it is. Any other move:
 * 409 "Payment is not pending".
 */
export async function expirePayment(tx: Tx, deps: MoveDeps, payment: Pick<Payment, "id">): Promise<Payment> {
  const now = deps.clock.now();
  const expired = await expireAwaitingPayment(tx, payment.id, now);
  if (!expired) throw conflict("Payment is not pending");
  await recordPaymentEvent(tx, deps, expired, "payment.expired");
  const session = await expireOpenCheckoutSessionOf(tx, expired.id, now);
  if (session) await recordEvent(tx, deps, session, sessionExpiredEvent(session, expired, deps.config.publicUrl));
  return expired;
}

const sessionExpiredEvent = (session: CheckoutSession, payment: Payment, publicUrl: string) => ({
  type: "checkout.session.expired" as const,
  resourceId: session.id,
  data: checkoutSessionJson({ ...session, payment }, publicUrl),
});

/**
 * The expiry sweeper's move, a set at a time: up to `limit` payments due to expire at the clock's now
 * move to `expired` (`payment.expired`) with their open checkout sessions (`checkout.session.expired`),
 * as expirePayment moves one, in one transaction of three statements: the conditional update of the
 * payments, that of their sessions, and one insert of all their events. Safe with other sweepers at
 * once: a payment moves, and has its events written, in exactly one of them. Returns the payments moved.
 */
export async function expireDuePayments(deps: MoveDeps & Pick<Deps, "db">, limit: number): Promise<Payment[]> {
  const { db } = deps;
  const now = deps.clock.now();
  const { publicUrl } = deps.config;
  let expired: Payment[] = [];
  const steps: BatchStep[] = [
    expireDuePaymentsStatement(db, now, limit),
    (before) => {
      expired = expiredPaymentsOf(db, before[0]!.rows);
      return expireOpenCheckoutSessionsOfStatement(db, expired.map((payment) => payment.id), now);
    },
    (before) => {
      const sessions = new Map(expiredCheckoutSessionsOf(db, before[1]!.rows).map((session) => [session.paymentId, session]));
      const events = expired.flatMap((payment) => {
        const session = sessions.get(payment.id);
        const paymentRow = eventRow(deps, payment, paymentEvent(payment, "payment.expired", publicUrl));
        return session ? [paymentRow, eventRow(deps, session, sessionExpiredEvent(session, payment, publicUrl))] : [paymentRow];
      });
      return insertEventsStatement(db, events);
    },
  ];
  await directSql(db).batch(steps);
  return expired;
}

/**
 * REST `POST /payments/{id}/complete` and GraphQL `markPaymentCompleted`: pending -> completed. Only
 * GraphQL takes a reason (the dashboard asks for one); REST's body is the spec's.
 */
export async function markPaymentCompleted(ctx: ServiceContext, id: string, input: ManualCompletionInput): Promise<Payment> {
  const payment = await paymentById(ctx.db, id);
  if (!payment || !isInScope(payment, ctx.scope)) throw notFound();
  const audit = auditStatement(ctx, await actorOf(ctx), { action: "payment.marked_completed", resourceId: payment.id, detail: input.reason ?? null });
  return completePayment(ctx, payment, { txHash: input.tx_hash, payerAddress: input.payer_address, manualCompletionReason: input.reason }, [audit]);
}

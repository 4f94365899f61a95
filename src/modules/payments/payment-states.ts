// Which status each move of a payment may start from, decided here once for every caller: the
// checkout's mutations, the ledger streamer and verifier, the expiry sweeper, voiding an invoice.
//
//   from              event                                                     to          emits
//   (none)            create                                                    pending     payment.created
//   pending           verified ledger payment covering the amount, or manual   completed   payment.completed
//   pending           the payer's own submitted transaction fails on the ledger failed      payment.failed
//   failed            another such failed attempt (failure_reason updated)      failed      (nothing)
//   failed            verified ledger payment covering the amount               completed   payment.completed
//   pending, failed   expires_at passes (failure_reason kept)                   expired     payment.expired
//   expired           verified ledger payment arriving late                     completed   payment.completed (late: true)
//
// `failed` is therefore not final while the payment is unexpired: the payer may pay again, and the
// ledger completes it. Money arriving for a payment that does not complete (partial, or completed
// already) is counted in amount_received; nothing that reaches the merchant is dropped.
import type { Payment } from "../../generated/sqlite/client.ts";
import type { PaymentStatus } from "./payments.inputs.ts";

/** Still waiting for its money: the checkout takes payment, a failed attempt may be recorded, expiry applies. */
export const AWAITING_PAYMENT = ["pending", "failed"] as const satisfies readonly PaymentStatus[];

/** The statuses a verified ledger payment covering the amount completes (expired ones late). */
const LEDGER_COMPLETES = [...AWAITING_PAYMENT, "expired"] as const satisfies readonly PaymentStatus[];

/** How long after its expiry the ledger still watches a payment's wallet for late money. */
export const LATE_WINDOW_MS = 24 * 60 * 60_000;

export const isAwaitingPayment = (status: string): boolean => (AWAITING_PAYMENT as readonly string[]).includes(status);

export const ledgerCompletes = (status: string): boolean => (LEDGER_COMPLETES as readonly string[]).includes(status);

/** A completion from this status is late: the payment had expired. */
export const completesLate = (status: string): boolean => status === "expired";

/**
 * Due to expire: still awaiting payment with expires_at passed. The sweeper moves it to `expired`
 * within a second or so, and until then every reader treats it as expired (payments.store.ts
 * `dueToExpire` is this rule as a query condition).
 */
export const isDueToExpire = (payment: Pick<Payment, "status" | "expiresAt">, now: Date): boolean =>
  isAwaitingPayment(payment.status) && payment.expiresAt !== null && payment.expiresAt <= now;

/** Expired for whoever looks: moved to `expired` already, or due to be. */
export const hasExpired = (payment: Pick<Payment, "status" | "expiresAt">, now: Date): boolean =>
  payment.status === "expired" || isDueToExpire(payment, now);

/**
 * Open for the ledger: the payments whose settlement wallet the ledger watches for their money.
 * Each status the ledger completes, the late one (expired) only while it expired since `lateSince`
 * (LATE_WINDOW_MS ago). The window bounds the watching only: money seen for a payment expired
 * longer ago (its wallet streamed for another payment, or resumed from its cursor) still completes
 * it late, as ledgerCompletes says. One entry per status, so a reader may seek status by status
 * down the index (payments.store.ts `openForLedger` makes it a query condition).
 */
export const openForLedger = (lateSince: Date): { status: PaymentStatus; expiredSince: Date | null }[] =>
  LEDGER_COMPLETES.map((status) => ({ status, expiredSince: completesLate(status) ? lateSince : null }));

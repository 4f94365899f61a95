// Turns payment operations to watched wallets seen on the ledger into their effect on our payments,
// in ONE database transaction together with the network stream's cursor: either both are written or
// neither, so a restart resumes exactly after the last operation that counted, and the LedgerPayment
// key (network + operation id) makes a replayed operation count once.
import type { Deps } from "../context.ts";
import { directSql } from "../db/client.ts";
import type { BatchStep } from "../db/direct-sql.ts";
import type { LedgerPayment, Payment } from "../generated/sqlite/client.ts";
import { type Asset, sameAsset } from "../shared/assets.ts";
import { moveNetworkCursorStatement, recordLedgerPaymentsStatement, recordedOperations } from "../modules/ledger-payments/ledger-payments.store.ts";
import { appendCompletions, type Completion, loadCompletionRelations } from "../modules/payments/payment-completion.ts";
import { ledgerCompletes } from "../modules/payments/payment-states.ts";
import { creditPaymentsStatement, paymentsByMemoIds } from "../modules/payments/payments.store.ts";
import { appendRecognizedRefunds } from "../modules/refunds/refunds.recognition.ts";
import { crashPoint } from "../shared/crash-point.ts";
import type { LedgerPaymentRecord, PaymentBatch } from "./ledger-source.ts";

export type VerificationOutcome =
  /** not money arriving at this account: outgoing, failed transaction, other operation */
  | "ignored"
  /** this operation was already recorded */
  | "duplicate"
  /** kept as an unmatched ledger payment: no payment of ours, or not in its settlement asset */
  | "unmatched"
  /** counted toward the payment, which still waits for the rest */
  | "partial"
  | "completed"
  /** counted toward a payment the ledger no longer completes (completed already: an overpayment) */
  | "credited";

/** What a record is not counted as, whatever it is. */
export const isSilent = (outcome: VerificationOutcome) => outcome === "ignored" || outcome === "duplicate";

/** The correlation the payer attached: the muxed id of an M... destination, else an id memo. */
function correlationOf(record: LedgerPaymentRecord): string | null {
  if (record.toMuxedId !== null) return record.toMuxedId;
  if (record.memoType === "id" && record.memo) return record.memo;
  return null;
}


const settlementAssetOf = (p: { settlementAssetCode: string; settlementAssetIssuer: string | null }): Asset => ({
  code: p.settlementAssetCode,
  issuer: p.settlementAssetIssuer,
});

/**
 * Applies a batch's records (payments to watched wallets, in ledger order) in one transaction that
 * also moves the network's cursor past the batch. Returns each record's outcome. A few reads decide
 * everything, then one batch of prepared statements writes it, a few statements however many
 * payments the records complete. The reads are not in the transaction: its writes hold only if what
 * they were decided on still holds (each operation is inserted once, a payment completes only from
 * the status it was read in), else the batch fails, changes nothing, and the stream resumes from the
 * cursor and decides again.
 */
export async function verifyLedgerPayments(
  deps: Pick<Deps, "db" | "clock" | "ids" | "config">,
  networkPassphrase: string,
  { records, outgoing = [], cursor: nextCursor }: Pick<PaymentBatch, "records" | "cursor"> & Partial<Pick<PaymentBatch, "outgoing">>,
): Promise<VerificationOutcome[]> {
  const { db } = deps;
  // Money arriving: not other operations or failed transactions.
  const incoming = new Set(records.filter((r) => r.kind !== "other" && r.transactionSuccessful));
  const seen = incoming.size ? await recordedOperations(db, networkPassphrase, [...incoming].map((r) => r.operationId)) : new Set<string>();
  const correlations = [...new Set([...incoming].map(correlationOf).filter((c): c is string => c !== null))];
  const byMemo = correlations.length ? await paymentsByMemoIds(db, networkPassphrase, correlations) : [];
  // A correlation counts only on the wallet its payment settles to.
  const payments = new Map(byMemo.map((payment) => [`${payment.settlementAddress}|${payment.memoId}`, payment]));

  const now = deps.clock.now();
  const outcomes: VerificationOutcome[] = [];
  const steps: BatchStep[] = [];
  /** what each payment received in this batch, and the record that made it whole */
  const credits = new Map<string, { payment: Payment; amount: bigint; completedBy: LedgerPaymentRecord | null }>();
  const recorded: LedgerPayment[] = [];
  for (const record of records) {
    if (!incoming.has(record)) {
      outcomes.push("ignored");
      continue;
    }
    if (seen.has(record.operationId)) {
      outcomes.push("duplicate");
      continue;
    }
    seen.add(record.operationId);
    const correlation = correlationOf(record);
    const payment = correlation ? payments.get(`${record.to}|${correlation}`) : undefined;
    const counts = payment !== undefined && sameAsset(record.asset, settlementAssetOf(payment));
    // A concurrent insert of the same operation fails the batch: it counts once.
    recorded.push(ledgerPaymentRow(networkPassphrase, record, counts ? payment.id : null, now));
    if (!counts) {
      outcomes.push("unmatched");
      continue;
    }
    const credit = credits.get(payment.id) ?? { payment, amount: 0n, completedBy: null };
    credit.amount += record.amount;
    credits.set(payment.id, credit);
    if (!ledgerCompletes(payment.status) || credit.completedBy) outcomes.push("credited");
    else if (payment.amountReceived + credit.amount < payment.amount) outcomes.push("partial");
    else {
      credit.completedBy = record;
      outcomes.push("completed");
    }
  }

  if (recorded.length > 0) steps.push(recordLedgerPaymentsStatement(db, recorded));
  const completing = [...credits.values()].filter((c) => c.completedBy).map((c) => c.payment.id);
  const relations = await loadCompletionRelations(db, completing);
  const completions: Completion[] = [];
  const partial: { paymentId: string; stroops: bigint }[] = [];
  for (const { payment, amount, completedBy } of credits.values()) {
    if (!completedBy) {
      partial.push({ paymentId: payment.id, stroops: amount });
      continue;
    }
    // From the status it was read in only: one that moved meanwhile fails the batch.
    completions.push({
      paymentId: payment.id,
      relations: relations.get(payment.id)!,
      details: {
        txHash: completedBy.txHash,
        payerAddress: completedBy.from,
        paidAsset: completedBy.sourceAsset ?? completedBy.asset,
        received: amount,
        from: payment.status,
      },
    });
  }
  if (partial.length > 0) steps.push(creditPaymentsStatement(db, partial, now));
  if (completions.length > 0) appendCompletions(steps, deps, completions);
  const refunded = await appendRecognizedRefunds(steps, deps, networkPassphrase, outgoing);
  const cursor = moveNetworkCursorStatement(db, networkPassphrase, nextCursor, now);
  // Test hooks (TEST_CRASH_AT, set by tests only): the process dies inside the transaction, with the
  // completions (or the refunds' ends) written and not committed, after the ledger closed their
  // transactions. A refund's submit dies at the same point of its own (refunds.service.ts), so
  // whichever of the two would record the refund's end first, nothing of it commits.
  const dieBeforeCommit = () => {
    if (completing.length > 0) crashPoint(deps.config, "completion-before-commit");
    if (refunded > 0) crashPoint(deps.config, "refund-before-answer");
    return cursor;
  };
  steps.push(completing.length > 0 || refunded > 0 ? dieBeforeCommit : cursor);
  await directSql(db).batch(steps);
  return outcomes;
}

function ledgerPaymentRow(networkPassphrase: string, record: LedgerPaymentRecord, paymentId: string | null, now: Date): LedgerPayment {
  return {
    networkPassphrase,
    operationId: record.operationId,
    txHash: record.txHash,
    account: record.to,
    sourceAccount: record.from,
    amount: record.amount,
    assetCode: record.asset.code,
    assetIssuer: record.asset.issuer,
    sourceAssetCode: record.sourceAsset?.code ?? null,
    sourceAssetIssuer: record.sourceAsset?.issuer ?? null,
    memoType: record.memoType,
    memo: record.memo,
    muxedId: record.toMuxedId,
    paymentId,
    refundId: null,
    ledgerCreatedAt: record.ledgerCreatedAt,
    createdAt: now,
  };
}

// Turns payment operations seen on the ledger into their effect on our payments, in ONE database
// transaction together with the stream's cursor: either both are written or neither, so a restart
// resumes exactly after the last operation that counted, and the LedgerPayment key (network +
// operation id) makes a replayed operation count once.
import type { Deps } from "../context.ts";
import type { Payment } from "../generated/sqlite/client.ts";
import { type Asset, sameAsset } from "../shared/assets.ts";
import { completePayment } from "../modules/payments/payment-completion.ts";
import type { LedgerPaymentRecord } from "./ledger-source.ts";

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
  /** counted toward a payment that had already completed (an overpayment) or failed */
  | "credited";

export interface StreamPosition {
  networkPassphrase: string;
  /** the settlement wallet being streamed */
  account: string;
}

/** The correlation the payer attached: the muxed id of an M... destination, else an id memo. */
export function correlationOf(record: LedgerPaymentRecord): string | null {
  if (record.toMuxedId !== null) return record.toMuxedId;
  if (record.memoType === "id" && record.memo) return record.memo;
  return null;
}

const settlementAssetOf = (p: { settlementAssetCode: string; settlementAssetIssuer: string | null }): Asset => ({
  code: p.settlementAssetCode,
  issuer: p.settlementAssetIssuer,
});

/**
 * Applies `records` (in ledger order) in one transaction that also moves the stream's cursor past
 * the last of them. Returns each record's outcome. The reads and the LedgerPayment inserts are done
 * for the whole batch at once: a busy ledger costs a few queries plus one completion per payment.
 */
export async function verifyLedgerPayments(
  deps: Pick<Deps, "db" | "clock" | "ids" | "config">,
  position: StreamPosition,
  records: LedgerPaymentRecord[],
): Promise<VerificationOutcome[]> {
  const last = records.at(-1);
  if (!last) return [];
  const { networkPassphrase, account } = position;
  return deps.db.$transaction(async (tx) => {
    // Money arriving: not outgoing payments, other operations or failed transactions.
    const incoming = new Set(records.filter((r) => r.kind !== "other" && r.to === account && r.transactionSuccessful));
    const seen = new Set(
      (
        await tx.ledgerPayment.findMany({
          where: { networkPassphrase, operationId: { in: [...incoming].map((r) => r.operationId) } },
          select: { operationId: true },
        })
      ).map((row) => row.operationId),
    );
    const correlations = [...new Set([...incoming].map(correlationOf).filter((c): c is string => c !== null))];
    const payments = new Map(
      (await tx.payment.findMany({ where: { memoId: { in: correlations }, settlementAddress: account, networkPassphrase } })).map((p) => [p.memoId, p]),
    );

    const now = deps.clock.now();
    const outcomes: VerificationOutcome[] = [];
    const rows = [];
    /** what each payment received in this batch, and the record that made it whole */
    const credits = new Map<string, { payment: Payment; amount: bigint; completedBy: LedgerPaymentRecord | null }>();
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
      const payment = correlation ? payments.get(correlation) : undefined;
      const counts = payment !== undefined && sameAsset(record.asset, settlementAssetOf(payment));
      rows.push(ledgerPaymentRow(networkPassphrase, account, record, counts ? payment.id : null, now));
      if (!counts) {
        outcomes.push("unmatched");
        continue;
      }
      const credit = credits.get(payment.id) ?? { payment, amount: 0n, completedBy: null };
      credit.amount += record.amount;
      credits.set(payment.id, credit);
      const open = payment.status === "pending" || payment.status === "expired";
      if (!open || credit.completedBy) outcomes.push("credited");
      else if (payment.amountReceived + credit.amount < payment.amount) outcomes.push("partial");
      else {
        credit.completedBy = record;
        outcomes.push("completed");
      }
    }
    if (rows.length) await tx.ledgerPayment.createMany({ data: rows });

    for (const { payment, amount, completedBy } of credits.values()) {
      const amountReceived = payment.amountReceived + amount;
      if (!completedBy) {
        await tx.payment.update({ where: { id: payment.id }, data: { amountReceived: { increment: amount }, updatedAt: now } });
        continue;
      }
      await completePayment(tx, deps, payment, {
        txHash: completedBy.txHash,
        payerAddress: completedBy.from,
        paidAsset: completedBy.sourceAsset ?? completedBy.asset,
        amountReceived,
        late: payment.status === "expired",
      });
    }
    await tx.ledgerCursor.upsert({
      where: { networkPassphrase_account: { networkPassphrase, account } },
      create: { networkPassphrase, account, cursor: last.pagingToken },
      update: { cursor: last.pagingToken },
    });
    return outcomes;
  });
}

function ledgerPaymentRow(networkPassphrase: string, account: string, record: LedgerPaymentRecord, paymentId: string | null, now: Date) {
  return {
    networkPassphrase,
    operationId: record.operationId,
    txHash: record.txHash,
    account,
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
    ledgerCreatedAt: record.ledgerCreatedAt,
    createdAt: now,
  };
}

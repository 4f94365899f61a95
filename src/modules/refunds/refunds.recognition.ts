// A refund is recognized on the ledger, whoever sent its transaction: the network stream hands the
// verifier the payments leaving watched settlement wallets, and a payment that pays a refund in
// flight exactly (destination, asset, amount) and names it (its transaction's hash as submitted, its
// memo text, or the destination's own memo) ends it as succeeded, in the verifier's transaction with
// the stream's cursor: a restart replays the operation and finds the refund ended, so it ends once.
// Claimable balances are not on Horizon's payment stream: the streamer follows the operations of
// each wallet with refunds awaiting the ledger from before the oldest of them, and ends a refund its
// claimable balance pays here, each in a transaction of its own (a replay finds it ended).
import type { Refund } from "../../generated/sqlite/client.ts";
import type { BatchStep } from "../../db/direct-sql.ts";
import { directSql } from "../../db/client.ts";
import { DomainError, conflict } from "../../errors.ts";
import type { LedgerPaymentRecord } from "../../ledger/ledger-source.ts";
import { sameAsset } from "../../shared/assets.ts";
import { type RefundDeps, appendRefundEnd } from "./refunds.service.ts";
import { refundsInFlightFrom } from "./refunds.store.ts";

/** The memo as the refund keeps it: Horizon shows a hash memo in base64, the refund in hex. */
const memoOf = (record: LedgerPaymentRecord) => (record.memoType === "hash" && record.memo ? Buffer.from(record.memo, "base64").toString("hex") : record.memo);

/** Whether `record` is the payment of `refund`. */
function pays(record: LedgerPaymentRecord, refund: Refund): boolean {
  if (record.to !== refund.destinationAddress || record.amount !== refund.amount) return false;
  if (!sameAsset(record.asset, { code: refund.assetCode, issuer: refund.assetIssuer })) return false;
  if (refund.txHash !== null && record.txHash === refund.txHash) return true;
  if (refund.destinationMemo === null) return record.memoType === "text" && record.memo === refund.id;
  return record.memoType === refund.destinationMemoType && memoOf(record) === refund.destinationMemo;
}

/**
 * Appends to `steps` the end (succeeded) of every refund in flight that one of `outgoing` (payments
 * from watched wallets, in ledger order) pays; returns how many.
 */
export async function appendRecognizedRefunds(
  steps: BatchStep[],
  deps: Pick<RefundDeps, "db" | "clock" | "ids" | "config">,
  networkPassphrase: string,
  outgoing: LedgerPaymentRecord[],
): Promise<number> {
  const sent = outgoing.filter((record) => (record.kind === "payment" || record.kind === "create_claimable_balance") && record.transactionSuccessful);
  if (sent.length === 0) return 0;
  const inFlight = await refundsInFlightFrom(deps.db, networkPassphrase, [...new Set(sent.map((record) => record.from))]);
  let recognized = 0;
  for (const record of sent) {
    const index = inFlight.findIndex((refund) => record.from === refund.sourceAddress && pays(record, refund));
    if (index < 0) continue;
    const [refund] = inFlight.splice(index, 1);
    // Ended meanwhile (its submit's answer): the batch fails, and the stream decides again from its cursor.
    appendRefundEnd(steps, deps, refund!, { status: "succeeded", txHash: record.txHash }, () => conflict("Refund ended while the ledger stream settled it"));
    recognized++;
  }
  return recognized;
}

/**
 * Ends the refunds that `created` (claimable balances a settlement wallet created, in ledger order)
 * pay, each in its own transaction; a refund ended meanwhile (by its submit's answer, or an earlier
 * pass over the same operations) is left as it is. Returns how many ended here.
 */
export async function recognizeClaimableBalanceRefunds(
  deps: Pick<RefundDeps, "db" | "clock" | "ids" | "config">,
  networkPassphrase: string,
  created: LedgerPaymentRecord[],
): Promise<number> {
  let ended = 0;
  for (const record of created) {
    const steps: BatchStep[] = [];
    if ((await appendRecognizedRefunds(steps, deps, networkPassphrase, [record])) === 0) continue;
    try {
      await directSql(deps.db).batch(steps);
      ended++;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === "CONFLICT")) throw error;
    }
  }
  return ended;
}

// The desk for money that reached a settlement wallet without matching a payment (wrong or missing
// memo, unknown muxed id, wrong asset, after the payment was settled): the merchant applies it to a
// payment they pick, or sends it back with a refund (src/modules/refunds/, refundUnmatchedLedgerPayment).
import type { LedgerPayment, Payment } from "../../generated/sqlite/client.ts";
import { type ServiceContext, isInScope } from "../../context.ts";
import { directSql } from "../../db/client.ts";
import { type FieldProblem, badRequest, conflict } from "../../errors.ts";
import { assetKey, sameAsset } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { networkPassphraseFor } from "../../shared/network.ts";
import { actorOf, auditStatement } from "../audit/audit.service.ts";
import { loadSettings } from "../organizations/organizations.service.ts";
import { completePayment } from "../payments/payment-completion.ts";
import { ledgerCompletes } from "../payments/payment-states.ts";
import { creditPaymentStatement, paymentById } from "../payments/payments.store.ts";
import { applyLedgerPaymentStatement, ledgerPaymentByOperation } from "./ledger-payments.store.ts";

/** payment_id naming no payment of the caller's (the desk's and a refund's), in a person's words. */
export const NOT_A_PAYMENT: FieldProblem = { path: ["payment_id"], problem: "", words: "Payment: none of your payments has this id; copy it from the Payments screen" };

/** An unmatched ledger payment to this environment's settlement wallet, not being sent back; else a 400 naming operation_id. */
export async function unmatchedLedgerPaymentInScope(ctx: ServiceContext, operationId: string): Promise<LedgerPayment> {
  const { settlementAddress } = await loadSettings(ctx, ctx.scope);
  const found = await ledgerPaymentByOperation(ctx.db, networkPassphraseFor(ctx.scope.environment), operationId);
  const refuse = (message: string, words: string) => badRequest(message, { path: ["operation_id"], problem: "", words });
  if (!found || found.account !== settlementAddress) {
    throw refuse("operation_id does not name a payment to this environment's settlement wallet", "This money is not among the payments your settlement wallet received here");
  }
  if (found.paymentId !== null) throw refuse(`operation_id counts toward ${found.paymentId} already`, `This money counts toward ${found.paymentId} already`);
  if (found.refundId !== null) throw refuse(`operation_id is being sent back already (${found.refundId})`, `This money is being sent back already (${found.refundId})`);
  return found;
}

/**
 * GraphQL `applyUnmatchedLedgerPayment`: counts an unmatched ledger payment toward a payment of the
 * same wallet and asset, completing it when that covers its amount (from any status the ledger
 * completes, as if it had matched), with the merchant's reason in the activity log.
 */
export async function applyUnmatchedLedgerPayment(ctx: ServiceContext, input: { operationId: string; paymentId: string; reason: string }): Promise<Payment> {
  const unmatched = await unmatchedLedgerPaymentInScope(ctx, input.operationId);
  const payment = await paymentById(ctx.db, input.paymentId);
  if (!payment || !isInScope(payment, ctx.scope)) throw badRequest("payment_id does not name a payment", NOT_A_PAYMENT);
  if (payment.settlementAddress !== unmatched.account) {
    throw badRequest("payment_id settles to another wallet than the one operation_id paid", { path: ["payment_id"], problem: "settles to another wallet than the one this money arrived in" });
  }
  const arrived = { code: unmatched.assetCode, issuer: unmatched.assetIssuer };
  const settles = { code: payment.settlementAssetCode, issuer: payment.settlementAssetIssuer };
  if (!sameAsset(arrived, settles)) {
    throw badRequest(`operation_id arrived in ${assetKey(arrived)}, payment_id settles in ${assetKey(settles)}: send it back instead`, {
      path: ["payment_id"],
      problem: `settles in ${settles.code}, and this money arrived in ${arrived.code}: choose a ${arrived.code} payment, or send the money back`,
    });
  }

  const now = ctx.clock.now();
  const audit = auditStatement(ctx, await actorOf(ctx), {
    action: "ledger_payment.applied",
    resourceId: payment.id,
    detail: `${formatStroops(unmatched.amount)} ${unmatched.assetCode} of operation ${unmatched.operationId}: ${input.reason}`,
  });
  const applied = applyLedgerPaymentStatement(ctx.db, unmatched.networkPassphrase, unmatched.operationId, payment.id, () => conflict("operation_id was applied or sent back meanwhile"));
  if (ledgerCompletes(payment.status) && payment.amountReceived + unmatched.amount >= payment.amount) {
    const details = { txHash: unmatched.txHash, payerAddress: unmatched.sourceAccount, paidAsset: arrived, received: unmatched.amount, from: payment.status };
    return completePayment(ctx, payment, details, [applied, audit]);
  }
  await directSql(ctx.db).batch([applied, creditPaymentStatement(ctx.db, payment.id, unmatched.amount, now), audit]);
  return (await paymentById(ctx.db, payment.id))!;
}

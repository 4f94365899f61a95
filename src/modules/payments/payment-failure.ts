// pending -> failed: the payer's transaction, submitted through the checkout, failed on the ledger.
// The result codes are kept in failure_reason; payment.failed is written in the same transaction.
// `failed` is not final (payment-states.ts): the payer may try again until the payment expires, and
// another failed attempt only updates failure_reason (the merchant was told once).
import type { Payment } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { conflict } from "../../errors.ts";
import { recordPaymentEvent } from "./payments.service.ts";

export async function failPayment(
  tx: Tx,
  deps: Pick<Deps, "clock" | "ids" | "config">,
  payment: Pick<Payment, "id">,
  failureReason: string,
): Promise<Payment> {
  const data = { status: "failed", failureReason, updatedAt: deps.clock.now() };
  const first = await tx.payment.updateMany({ where: { id: payment.id, status: "pending" }, data });
  if (first.count === 0) {
    const again = await tx.payment.updateMany({ where: { id: payment.id, status: "failed" }, data });
    if (again.count === 0) throw conflict("Payment is not pending");
  }
  const failed = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
  if (first.count === 1) await recordPaymentEvent(tx, deps, failed, "payment.failed");
  return failed;
}

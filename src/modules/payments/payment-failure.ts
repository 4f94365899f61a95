// pending -> failed: the payer's transaction, submitted through the checkout, failed on the ledger.
// The result codes are kept in failure_reason; payment.failed is written in the same transaction.
// `failed` is not final (payment-states.ts): the payer may try again until the payment expires, and
// another failed attempt only updates failure_reason (the merchant was told once).
import type { Payment } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { conflict } from "../../errors.ts";
import { recordPaymentEvent } from "./payments.service.ts";
import { recordFailedAttempt } from "./payments.store.ts";

export async function failPayment(
  tx: Tx,
  deps: Pick<Deps, "clock" | "ids" | "config">,
  payment: Pick<Payment, "id">,
  failureReason: string,
): Promise<Payment> {
  const attempt = await recordFailedAttempt(tx, payment.id, failureReason, deps.clock.now());
  if (!attempt) throw conflict("Payment is not pending");
  if (attempt.first) await recordPaymentEvent(tx, deps, attempt.payment, "payment.failed");
  return attempt.payment;
}

// The persistence of checkout sessions: reads and writes of the CheckoutSession table. A session
// moves with its payment (payments/payment-completion.ts): these builders are composed into the
// payment's batch or run in its Prisma transaction.
import type { CheckoutSession } from "../../generated/sqlite/client.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { inListParam, preparedQuery } from "../../db/typed-sql.ts";

const ofPayments = preparedQuery((q, p: { paymentIds: unknown }) =>
  q.selectFrom("CheckoutSession").selectAll().where(inListParam(q, "paymentId", p.paymentIds)),
);

/** The checkout sessions of these payments (a payment has at most one). */
export function checkoutSessionsOfPayments(db: Db, paymentIds: string[]): Promise<CheckoutSession[]> {
  const typed = typedSql(db);
  return ofPayments.all(typed, { paymentIds: typed.direct.listParam(paymentIds) });
}

const complete = preparedQuery((q, p: { id: string; now: Date }) =>
  q.updateTable("CheckoutSession").set({ status: "complete", updatedAt: p.now }).where("id", "=", p.id).where("status", "<>", "complete").returningAll(),
);

/** -> complete, from any other status; `expect` says what fails the batch (see Statement). */
export const completeCheckoutSessionStatement = (db: Db, id: string, now: Date, expect: NonNullable<Statement["expect"]>): Statement =>
  complete.statement(typedSql(db), { id, now }, { expect });

/** The session completeCheckoutSessionStatement wrote, from its step's rows. */
export const completedCheckoutSessionOf = (db: Db, rows: Row[]): CheckoutSession => complete.rowsOf(typedSql(db), rows)[0]!;

/** The payment's session moved open -> expired; null when it has none or it was not open. */
export async function expireOpenCheckoutSessionOf(tx: Tx, paymentId: string, now: Date): Promise<CheckoutSession | null> {
  const session = await tx.checkoutSession.findUnique({ where: { paymentId } });
  if (!session || session.status !== "open") return null;
  return tx.checkoutSession.update({ where: { id: session.id }, data: { status: "expired", updatedAt: now } });
}

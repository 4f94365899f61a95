// The persistence of checkout sessions: reads and writes of the CheckoutSession table. A session
// moves with its payment (payments/payment-completion.ts): these builders are composed into the
// payment's batch or run in its Prisma transaction.
import type { CheckoutSession } from "../../generated/sqlite/client.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { inListParam, preparedQuery, type TypedSql } from "../../db/typed-sql.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type Page, type PageRequest } from "../../db/list-page.ts";
import { paymentsByIds } from "../payments/payments.store.ts";
import type { CheckoutSessionStatus } from "./checkout-sessions.inputs.ts";
import type { CheckoutSessionWithPayment } from "./checkout-sessions.view.ts";

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

// ---- Lists (db/list-page.ts)

export interface CheckoutSessionFilters {
  status?: CheckoutSessionStatus | null;
  customerId?: string | null;
  /** the sessions a payment link opened (GraphQL's PaymentLink.checkoutSessions) */
  paymentLinkId?: string | null;
}

/** The sessions a list shows: the caller's, of the status, customer and link asked for (REST and GraphQL). */
const sessionsMatching = listOf<"CheckoutSession", InScope<CheckoutSessionFilters>>({
  table: "CheckoutSession",
  where: (eb, f) => eb.and({ ...inScope(f), status: f.status, customerId: f.customerId, paymentLinkId: f.paymentLinkId }),
});

/** A page of sessions, each with its payment (what a session's JSON shows). */
export async function listCheckoutSessions(
  ctx: ServiceContext,
  filters: CheckoutSessionFilters,
  page: PageRequest,
): Promise<Page<CheckoutSessionWithPayment>> {
  const sql = typedSql(ctx.db);
  const sessions = await sessionsMatching(sql, { ...inScope(ctx.scope), ...filters }, page);
  const payments = await paymentsByIds(sql, sessions.items.map((s) => s.paymentId));
  return { ...sessions, items: sessions.items.map((s) => ({ ...s, payment: payments.get(s.paymentId)! })) };
}

/** These sessions with what a GraphQL selection includes (a Prisma include), for the rows of a page. */
export const checkoutSessionsIncluding = (ctx: Pick<ServiceContext, "db">, ids: string[], query: object): Promise<CheckoutSession[]> =>
  ctx.db.checkoutSession.findMany({ ...query, where: { id: { in: ids } } });

const sessionsWithIds = preparedQuery((q, p: { ids: unknown }) => q.selectFrom("CheckoutSession").selectAll().where(inListParam(q, "id", p.ids)));

/** The sessions of these ids (for the rows of another list that show their session), by id. */
export async function checkoutSessionsByIds(sql: TypedSql, ids: string[]) {
  const rows = ids.length ? await sessionsWithIds.all(sql, { ids: sql.direct.listParam(ids) }) : [];
  return new Map(rows.map((session) => [session.id, session]));
}

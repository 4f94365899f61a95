// Every read and write of the CheckoutSession table. A session is created with its payment (its
// statement is composed into the payment's batch) and moves when its payment does
// (payments/payment-completion.ts): completion is the ledger's hot path, so these are prepared
// statements appended to the payment's batch; so is the expiry sweeper's, a set of payments at a time;
// voiding an invoice expires its payment in a Prisma transaction.
import type { ExpressionBuilder } from "kysely";
import type { CheckoutSession } from "../../generated/sqlite/client.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { type DB, everyColumn, inListParam, preparedQuery, type TypedSql } from "../../db/typed-sql.ts";
import type { CheckoutSessionStatus } from "./checkout-sessions.inputs.ts";
import type { CheckoutSessionWithPayment } from "./checkout-sessions.view.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type Page, type PageRequest } from "../../db/list-page.ts";
import { paymentsByIds } from "../payments/payments.store.ts";

// open -> complete (its payment completed, late ones included) | expired (its payment expired).
const MOVES = {
  complete: ["open", "expired"],
  expire: ["open"],
} as const satisfies Record<string, readonly CheckoutSessionStatus[]>;
type Move = keyof typeof MOVES;

/** Whether a session in `status` takes `move`: what a batch is built from; its statement checks it again. */
export const checkoutSessionMoves = (move: Move, status: string) => (MOVES[move] as readonly string[]).includes(status);
const movesFrom = (move: Move) => (eb: ExpressionBuilder<DB, "CheckoutSession">) => eb("status", "in", [...MOVES[move]]);

const byId = preparedQuery((q, p: { id: string }) => q.selectFrom("CheckoutSession").selectAll().where("id", "=", p.id));
/** The payment of a session, read beside the session in the same round trip. */
const paymentOfSession = preparedQuery((q, p: { id: string }) =>
  q.selectFrom("Payment").innerJoin("CheckoutSession", "CheckoutSession.paymentId", "Payment.id").selectAll("Payment").where("CheckoutSession.id", "=", p.id),
);
const ofPayments = preparedQuery((q, p: { paymentIds: unknown }) =>
  q.selectFrom("CheckoutSession").selectAll().where(inListParam(q, "paymentId", p.paymentIds)),
);
const insert = preparedQuery((q, p: CheckoutSession) => q.insertInto("CheckoutSession").values(everyColumn("CheckoutSession", p)));
const complete = preparedQuery((q, p: { ids: unknown; now: Date }) =>
  q.updateTable("CheckoutSession").set({ status: "complete", updatedAt: p.now }).where(inListParam(q, "id", p.ids)).where(movesFrom("complete")).returningAll(),
);

/** The session `id` of any organization (callers check the scope) with its payment, or null. */
export async function findCheckoutSessionWithPayment(db: Db, id: string): Promise<CheckoutSessionWithPayment | null> {
  const typed = typedSql(db);
  const [session, payment] = await Promise.all([byId.first(typed, { id }), paymentOfSession.first(typed, { id })]);
  return session && payment ? { ...session, payment } : null;
}

/** The checkout sessions of these payments (a payment has at most one). */
export function checkoutSessionsOfPayments(db: Db, paymentIds: string[]): Promise<CheckoutSession[]> {
  const typed = typedSql(db);
  return ofPayments.all(typed, { paymentIds: typed.direct.listParam(paymentIds) });
}

/** The statement that writes a new session (its payment's statements come before it in the batch). */
export const insertCheckoutSessionStatement = (db: Db, session: CheckoutSession): Statement => insert.statement(typedSql(db), session);

/** These sessions -> complete, those that take the move; `expect` says what fails the batch (see Statement). */
export function completeCheckoutSessionsStatement(db: Db, ids: string[], now: Date, expect: NonNullable<Statement["expect"]>): Statement {
  const typed = typedSql(db);
  return complete.statement(typed, { ids: typed.direct.listParam(ids), now }, { expect });
}

/** The sessions completeCheckoutSessionsStatement wrote, from its step's rows. */
export const completedCheckoutSessionsOf = (db: Db, rows: Row[]): CheckoutSession[] => complete.rowsOf(typedSql(db), rows);

/** The payment's session moved open -> expired, in the payment's Prisma transaction; null when it has none that takes the move. */
export async function expireOpenCheckoutSessionOf(tx: Tx, paymentId: string, now: Date): Promise<CheckoutSession | null> {
  const { count } = await tx.checkoutSession.updateMany({
    where: { paymentId, status: { in: [...MOVES.expire] } },
    data: { status: "expired", updatedAt: now },
  });
  return count ? tx.checkoutSession.findUnique({ where: { paymentId } }) : null;
}

const expireOfPayments = preparedQuery((q, p: { paymentIds: unknown; now: Date }) =>
  q
    .updateTable("CheckoutSession")
    .set({ status: "expired", updatedAt: p.now })
    .where(inListParam(q, "paymentId", p.paymentIds))
    .where(movesFrom("expire"))
    .returningAll(),
);

/** The sessions of these payments that take the move, open -> expired, as one batch step (the expiry sweeper's). */
export function expireOpenCheckoutSessionsOfStatement(db: Db, paymentIds: string[], now: Date): Statement {
  const typed = typedSql(db);
  return expireOfPayments.statement(typed, { paymentIds: typed.direct.listParam(paymentIds), now });
}

/** The sessions an expireOpenCheckoutSessionsOfStatement step moved, from its rows. */
export const expiredCheckoutSessionsOf = (db: Db, rows: Row[]): CheckoutSession[] => expireOfPayments.rowsOf(typedSql(db), rows);

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

// The CheckoutSession aggregate's reads and writes.
import type { ServiceContext } from "../../context.ts";
import type { CheckoutSession } from "../../generated/sqlite/client.ts";
import { inScope } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { type InScope, type Page, type PageRequest, listOf } from "../../db/list-page.ts";
import { type TypedSql, inList, preparedQuery } from "../../db/typed-sql.ts";
import { paymentsByIds } from "../payments/payments.store.ts";
import type { CheckoutSessionStatus } from "./checkout-sessions.inputs.ts";
import type { CheckoutSessionWithPayment } from "./checkout-sessions.view.ts";

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

const sessionsWithIds = preparedQuery((q, p: { ids: unknown }) => q.selectFrom("CheckoutSession").selectAll().where(inList(q, "id", p.ids)));

/** The sessions of these ids (for the rows of another list that show their session), by id. */
export async function checkoutSessionsByIds(sql: TypedSql, ids: string[]) {
  const rows = ids.length ? await sessionsWithIds.all(sql, { ids: sql.direct.listParam(ids) }) : [];
  return new Map(rows.map((session) => [session.id, session]));
}

// The Payment aggregate's reads and writes.
import type { ServiceContext } from "../../context.ts";
import type { Payment } from "../../generated/sqlite/client.ts";
import { inScope } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { type InScope, type PageRequest, listOf } from "../../db/list-page.ts";
import { type TypedSql, inList, preparedQuery } from "../../db/typed-sql.ts";
import type { PaymentStatus } from "./payments.inputs.ts";

export interface PaymentFilters {
  status?: PaymentStatus | null;
  customerId?: string | null;
}

/** The payments a list shows: the caller's, of the status and customer asked for (REST and GraphQL). */
const paymentsMatching = listOf<"Payment", InScope<PaymentFilters>>({
  table: "Payment",
  where: (eb, f) => eb.and({ ...inScope(f), status: f.status, customerId: f.customerId }),
});

export const listPayments = (ctx: ServiceContext, filters: PaymentFilters, page: PageRequest) =>
  paymentsMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);

/** These payments with what a GraphQL selection includes (a Prisma include), for the rows of a page. */
export const paymentsIncluding = (ctx: Pick<ServiceContext, "db">, ids: string[], query: object): Promise<Payment[]> =>
  ctx.db.payment.findMany({ ...query, where: { id: { in: ids } } });

const paymentsWithIds = preparedQuery((q, p: { ids: unknown }) => q.selectFrom("Payment").selectAll().where(inList(q, "id", p.ids)));

/** The payments of these ids (for the rows of another list that show their payment), by id. */
export async function paymentsByIds(sql: TypedSql, ids: string[]) {
  const rows = ids.length ? await paymentsWithIds.all(sql, { ids: sql.direct.listParam(ids) }) : [];
  return new Map(rows.map((payment) => [payment.id, payment]));
}

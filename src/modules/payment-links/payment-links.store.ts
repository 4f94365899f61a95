// Every read and write of the PaymentLink table. Every visit of a link reads it by id: prepared.
import type { PaymentLink } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import { everyColumn, preparedQuery } from "../../db/typed-sql.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type PageRequest } from "../../db/list-page.ts";

const byId = preparedQuery((q, p: { id: string }) => q.selectFrom("PaymentLink").selectAll().where("id", "=", p.id));
const insert = preparedQuery((q, p: PaymentLink) => q.insertInto("PaymentLink").values(everyColumn("PaymentLink", p)));

/** The link `id` of any organization (callers check the scope), or null. */
export const findPaymentLink = (db: Db, id: string): Promise<PaymentLink | null> => byId.first(typedSql(db), { id });

export async function insertPaymentLink(db: Db, row: PaymentLink): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([insert.statement(typed, row)]);
}

/** Sets `active`; returns the link as it is now, or null if there is none. */
export async function savePaymentLinkActive(db: Db, id: string, active: boolean, now: Date): Promise<PaymentLink | null> {
  const typed = typedSql(db);
  const update = typed.q.updateTable("PaymentLink").set({ active, updatedAt: now }).where("id", "=", id).returningAll();
  const [result] = await typed.direct.batch([typed.statement(update)]);
  return typed.rowsOf(update, result!.rows)[0] ?? null;
}

// ---- Lists (db/list-page.ts)

export interface PaymentLinkFilters {
  active?: boolean | null;
}

/** The payment links a list shows: the caller's, active or not as asked (REST and GraphQL). */
const paymentLinksMatching = listOf<"PaymentLink", InScope<PaymentLinkFilters>>({
  table: "PaymentLink",
  where: (eb, f) => eb.and({ ...inScope(f), active: f.active }),
});

export const listPaymentLinks = (ctx: ServiceContext, filters: PaymentLinkFilters, page: PageRequest) =>
  paymentLinksMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);

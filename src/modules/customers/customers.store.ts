// Every read and write of the Customer table. Creates that name a customer read it by id: prepared.
import type { Updateable } from "kysely";
import type { Customer } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import { type DB, everyColumn, preparedQuery } from "../../db/typed-sql.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type PageRequest } from "../../db/list-page.ts";

const byId = preparedQuery((q, p: { id: string }) => q.selectFrom("Customer").selectAll().where("id", "=", p.id));
const insert = preparedQuery((q, p: Customer) => q.insertInto("Customer").values(everyColumn("Customer", p)));

/** The customer `id` of any organization (callers check the scope), or null. */
export const findCustomer = (db: Db, id: string): Promise<Customer | null> => byId.first(typedSql(db), { id });

export async function insertCustomer(db: Db, row: Customer): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([insert.statement(typed, row)]);
}

/** Sets the given columns; returns the customer as it is now, or null if there is none. */
export async function updateCustomerRow(db: Db, id: string, changes: Updateable<DB["Customer"]>): Promise<Customer | null> {
  const typed = typedSql(db);
  const update = typed.q.updateTable("Customer").set(changes).where("id", "=", id).returningAll();
  const [result] = await typed.direct.batch([typed.statement(update)]);
  return typed.rowsOf(update, result!.rows)[0] ?? null;
}

// ---- Lists (db/list-page.ts)

/** Customers have no list filters (yet): the caller's are listed. */
export type CustomerFilters = Record<never, never>;

/** The customers a list shows: the caller's. */
const customersMatching = listOf<"Customer", InScope<CustomerFilters>>({
  table: "Customer",
  where: (eb, f) => eb.and(inScope(f)),
});

export const listCustomers = (ctx: ServiceContext, filters: CustomerFilters, page: PageRequest) =>
  customersMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);

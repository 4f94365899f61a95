// Every read and write of the Customer table. Creates that name a customer read it by id: prepared.
import type { ExpressionBuilder, Updateable } from "kysely";
import type { Customer } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import { type DB, everyColumn, preparedQuery } from "../../db/typed-sql.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { badRequest } from "../../errors.ts";
import { type InScope, listOf, type PageRequest } from "../../db/list-page.ts";
import { containing, holdsLower } from "../../db/like.ts";

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

export interface CustomerFilters {
  /** part of the name or the email, in any case (a picker's search as the merchant types) */
  search?: string | null;
}

/** The customer's name or email holds what `pattern` (db/like.ts containing()) matches. */
const nameOrEmailHolds = (eb: ExpressionBuilder<DB, "Customer">, pattern: unknown) =>
  eb.or([holdsLower(eb.ref("Customer.name"), pattern), holdsLower(eb.ref("Customer.email"), pattern)]);

/**
 * The ids of the caller's customers whose name or email holds `pattern`, for a search of what they
 * bought (payments, invoices): their current name, whatever it was then. A scan of the caller's
 * customers, never of what they bought.
 */
export const customersHolding = (eb: Pick<ExpressionBuilder<DB, never>, "selectFrom">, scope: { organizationId: unknown; environment: unknown }, pattern: unknown) =>
  eb
    .selectFrom("Customer")
    .select("Customer.id")
    .where("Customer.organizationId", "=", scope.organizationId as string)
    .where("Customer.environment", "=", scope.environment as string)
    .where((c) => nameOrEmailHolds(c, pattern));

/**
 * The customers a list shows: the caller's, those whose name or email holds the search if one is
 * given. A merchant's customers are scanned within the scope's index; a picker asks for a page of them.
 */
const customersMatching = listOf<"Customer", InScope<{ pattern?: string | null }>>({
  table: "Customer",
  where: (eb, { pattern, ...f }) => {
    const scoped = eb.and(inScope(f));
    return pattern === undefined ? scoped : eb.and([scoped, nameOrEmailHolds(eb, pattern)]);
  },
});

/** Longer than any name (256) or email (320) a customer may have: a search past it finds nothing anyway. */
const MAX_SEARCH = 320;

export const listCustomers = (ctx: ServiceContext, { search }: CustomerFilters, page: PageRequest) => {
  if (search && search.length > MAX_SEARCH) {
    throw badRequest(`search must be at most ${MAX_SEARCH} characters`, { path: ["search"], problem: `must be at most ${MAX_SEARCH} characters` });
  }
  return customersMatching(typedSql(ctx.db), { ...inScope(ctx.scope), pattern: search?.trim() ? containing(search.trim()) : null }, page);
};

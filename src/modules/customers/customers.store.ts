// The Customer aggregate's reads and writes.
import type { ServiceContext } from "../../context.ts";
import { inScope } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { type InScope, type PageRequest, listOf } from "../../db/list-page.ts";

/** Customers have no list filters (yet): the caller's are listed. */
export type CustomerFilters = Record<never, never>;

/** The customers a list shows: the caller's. */
const customersMatching = listOf<"Customer", InScope<CustomerFilters>>({
  table: "Customer",
  where: (eb, f) => eb.and(inScope(f)),
});

export const listCustomers = (ctx: ServiceContext, filters: CustomerFilters, page: PageRequest) =>
  customersMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);

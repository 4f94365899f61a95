// The PaymentLink aggregate's reads and writes.
import type { ServiceContext } from "../../context.ts";
import { inScope } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { type InScope, type PageRequest, listOf } from "../../db/list-page.ts";

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

// The Invoice aggregate's reads and writes (with its items).
import type { ServiceContext } from "../../context.ts";
import type { Invoice } from "../../generated/sqlite/client.ts";
import { inScope } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { type InScope, type Page, type PageRequest, listOf } from "../../db/list-page.ts";
import { inList, preparedQuery } from "../../db/typed-sql.ts";
import { checkoutSessionsByIds } from "../checkout-sessions/checkout-sessions.store.ts";
import { paymentsByIds } from "../payments/payments.store.ts";
import type { InvoiceStatus } from "./invoices.inputs.ts";
import type { InvoiceWithDetails } from "./invoices.view.ts";

export interface InvoiceFilters {
  status?: InvoiceStatus | null;
  customerId?: string | null;
}

/** The invoices a list shows: the caller's, of the status and customer asked for (REST and GraphQL). */
const invoicesMatching = listOf<"Invoice", InScope<InvoiceFilters>>({
  table: "Invoice",
  where: (eb, f) => eb.and({ ...inScope(f), status: f.status, customerId: f.customerId }),
});

/** These invoices with what a GraphQL selection includes (a Prisma include), for the rows of a page. */
export const invoicesIncluding = (ctx: Pick<ServiceContext, "db">, ids: string[], query: object): Promise<Invoice[]> =>
  ctx.db.invoice.findMany({ ...query, where: { id: { in: ids } } });

const itemsOfInvoices = preparedQuery((q, p: { ids: unknown }) =>
  q.selectFrom("InvoiceItem").selectAll().where(inList(q, "invoiceId", p.ids)).orderBy("invoiceId").orderBy("position"),
);

/** A page of invoices with their details (items in order, payment, checkout session), as an invoice's JSON shows them. */
export async function listInvoices(ctx: ServiceContext, filters: InvoiceFilters, page: PageRequest): Promise<Page<InvoiceWithDetails>> {
  const sql = typedSql(ctx.db);
  const invoices = await invoicesMatching(sql, { ...inScope(ctx.scope), ...filters }, page);
  const present = (ids: (string | null)[]) => ids.filter((id): id is string => id !== null);
  const [items, payments, sessions] = await Promise.all([
    invoices.items.length ? itemsOfInvoices.all(sql, { ids: sql.direct.listParam(invoices.items.map((i) => i.id)) }) : [],
    paymentsByIds(sql, present(invoices.items.map((i) => i.paymentId))),
    checkoutSessionsByIds(sql, present(invoices.items.map((i) => i.checkoutSessionId))),
  ]);
  return {
    ...invoices,
    items: invoices.items.map((invoice) => ({
      ...invoice,
      items: items.filter((item) => item.invoiceId === invoice.id),
      payment: invoice.paymentId ? (payments.get(invoice.paymentId) ?? null) : null,
      checkoutSession: invoice.checkoutSessionId ? (sessions.get(invoice.checkoutSessionId) ?? null) : null,
    })),
  };
}

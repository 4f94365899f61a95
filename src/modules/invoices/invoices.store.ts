// The persistence of invoices: reads and writes of the Invoice and InvoiceItem tables. An open
// invoice is paid with its payment (payments/payment-completion.ts): these builders are composed
// into the payment's batch.
import type { Invoice, InvoiceItem } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { inListParam, preparedQuery } from "../../db/typed-sql.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type Page, type PageRequest } from "../../db/list-page.ts";
import { checkoutSessionsByIds } from "../checkout-sessions/checkout-sessions.store.ts";
import { paymentsByIds } from "../payments/payments.store.ts";
import type { InvoiceStatus } from "./invoices.inputs.ts";
import type { InvoiceWithDetails } from "./invoices.view.ts";

const openOfPayments = preparedQuery((q, p: { paymentIds: unknown }) =>
  q.selectFrom("Invoice").selectAll().where(inListParam(q, "paymentId", p.paymentIds)).where("status", "=", "open"),
);

const itemsOf = preparedQuery((q, p: { invoiceIds: unknown }) =>
  q.selectFrom("InvoiceItem").selectAll().where(inListParam(q, "invoiceId", p.invoiceIds)).orderBy("position"),
);

/** The open invoices of these payments, each with its items in order. */
export async function openInvoicesOfPayments(db: Db, paymentIds: string[]): Promise<(Invoice & { items: InvoiceItem[] })[]> {
  const typed = typedSql(db);
  const invoices = await openOfPayments.all(typed, { paymentIds: typed.direct.listParam(paymentIds) });
  if (invoices.length === 0) return [];
  const items = await itemsOf.all(typed, { invoiceIds: typed.direct.listParam(invoices.map((invoice) => invoice.id)) });
  return invoices.map((invoice) => ({ ...invoice, items: items.filter((item) => item.invoiceId === invoice.id) }));
}

const ofPayment = preparedQuery((q, p: { paymentId: string }) => q.selectFrom("Invoice").selectAll().where("paymentId", "=", p.paymentId));

const itemsOfPayment = preparedQuery((q, p: { paymentId: string }) =>
  q
    .selectFrom("InvoiceItem")
    .selectAll()
    .where("invoiceId", "in", (eb) => eb.selectFrom("Invoice").select("id").where("paymentId", "=", p.paymentId))
    .orderBy("position"),
);

/** The invoice a payment pays, whatever its status, with its items in order; null when it has none. */
export async function invoiceOfPayment(db: Db, paymentId: string): Promise<(Invoice & { items: InvoiceItem[] }) | null> {
  const typed = typedSql(db);
  const [invoice, items] = await Promise.all([ofPayment.first(typed, { paymentId }), itemsOfPayment.all(typed, { paymentId })]);
  return invoice && { ...invoice, items };
}

const pay = preparedQuery((q, p: { id: string; now: Date }) =>
  q.updateTable("Invoice").set({ status: "paid", paidAt: p.now, updatedAt: p.now }).where("id", "=", p.id).where("status", "=", "open").returningAll(),
);

/** open -> paid with paid_at; `expect` says what fails the batch (see Statement). */
export const payInvoiceStatement = (db: Db, id: string, now: Date, expect: NonNullable<Statement["expect"]>): Statement =>
  pay.statement(typedSql(db), { id, now }, { expect });

/** The invoice payInvoiceStatement wrote, from its step's rows. */
export const paidInvoiceOf = (db: Db, rows: Row[]): Invoice => pay.rowsOf(typedSql(db), rows)[0]!;

// ---- Lists (db/list-page.ts)

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
  q.selectFrom("InvoiceItem").selectAll().where(inListParam(q, "invoiceId", p.ids)).orderBy("invoiceId").orderBy("position"),
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

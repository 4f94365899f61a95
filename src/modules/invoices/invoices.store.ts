// The persistence of invoices: reads and writes of the Invoice and InvoiceItem tables. An open
// invoice is paid with its payment (payments/payment-completion.ts): these builders are composed
// into the payment's batch.
import type { Invoice, InvoiceItem } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { inListParam, preparedQuery } from "../../db/typed-sql.ts";

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

// Every read and write of the Invoice and InvoiceItem tables. Reads by id (GET, finalize, the public
// invoice page) and the moves to open and paid (paid with its payment, on the ledger's hot path:
// payments/payment-completion.ts composes it into the payment's batch) are prepared statements;
// voiding runs in a Prisma transaction with its payment's expiry.
import type { ExpressionBuilder } from "kysely";
import type { Invoice, InvoiceItem } from "../../generated/sqlite/client.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import type { BatchStep, Row, Statement } from "../../db/direct-sql.ts";
import { type DB, everyColumn, inListParam, preparedQuery } from "../../db/typed-sql.ts";
import { nextInvoiceSequence } from "../organizations/organizations.store.ts";
import type { InvoiceStatus } from "./invoices.inputs.ts";
import { invoiceInclude, type InvoiceWithDetails } from "./invoices.view.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type Page, type PageRequest } from "../../db/list-page.ts";
import { checkoutSessionsByIds } from "../checkout-sessions/checkout-sessions.store.ts";
import { paymentsByIds } from "../payments/payments.store.ts";
import { type SearchFilters, invoiceSearchFilters, matchesSearch } from "./invoice-search.ts";

// draft -> open (finalize) -> paid (its payment completed); draft | open -> void. Sending (by mail)
// is no move: an open invoice stays open, and may be sent again.
const MOVES = {
  finalize: ["draft"],
  pay: ["open"],
  void: ["draft", "open"],
  send: ["open"],
} as const satisfies Record<string, readonly InvoiceStatus[]>;
type Move = keyof typeof MOVES;

/** Whether an invoice in `status` takes `move`; the statement that makes the move checks it again. */
export const invoiceMoves = (move: Move, status: string) => (MOVES[move] as readonly string[]).includes(status);
const movesFrom = (move: Move) => (eb: ExpressionBuilder<DB, "Invoice">) => eb("status", "in", [...MOVES[move]]);

export type InvoiceWithItems = Invoice & { items: InvoiceItem[] };

const byId = preparedQuery((q, p: { id: string }) => q.selectFrom("Invoice").selectAll().where("id", "=", p.id));
const itemsOfInvoice = preparedQuery((q, p: { invoiceId: string }) =>
  q.selectFrom("InvoiceItem").selectAll().where("invoiceId", "=", p.invoiceId).orderBy("position"),
);
const itemsOfInvoices = preparedQuery((q, p: { invoiceIds: unknown }) =>
  q.selectFrom("InvoiceItem").selectAll().where(inListParam(q, "invoiceId", p.invoiceIds)).orderBy("position"),
);
// An invoice's payment and checkout session, read beside it in the same round trip.
const paymentOf = preparedQuery((q, p: { id: string }) =>
  q.selectFrom("Payment").innerJoin("Invoice", "Invoice.paymentId", "Payment.id").selectAll("Payment").where("Invoice.id", "=", p.id),
);
const sessionOf = preparedQuery((q, p: { id: string }) =>
  q
    .selectFrom("CheckoutSession")
    .innerJoin("Invoice", "Invoice.checkoutSessionId", "CheckoutSession.id")
    .selectAll("CheckoutSession")
    .where("Invoice.id", "=", p.id),
);
const ofSession = preparedQuery((q, p: { checkoutSessionId: string }) =>
  q.selectFrom("Invoice").selectAll().where("checkoutSessionId", "=", p.checkoutSessionId),
);
const itemsOfSession = preparedQuery((q, p: { checkoutSessionId: string }) =>
  q
    .selectFrom("InvoiceItem")
    .selectAll()
    .where("invoiceId", "in", (eb) => eb.selectFrom("Invoice").select("id").where("checkoutSessionId", "=", p.checkoutSessionId))
    .orderBy("position"),
);
const ofPayment = preparedQuery((q, p: { paymentId: string }) => q.selectFrom("Invoice").selectAll().where("paymentId", "=", p.paymentId));
const itemsOfPayment = preparedQuery((q, p: { paymentId: string }) =>
  q
    .selectFrom("InvoiceItem")
    .selectAll()
    .where("invoiceId", "in", (eb) => eb.selectFrom("Invoice").select("id").where("paymentId", "=", p.paymentId))
    .orderBy("position"),
);
const payableOfPayments = preparedQuery((q, p: { paymentIds: unknown }) =>
  q.selectFrom("Invoice").selectAll().where(inListParam(q, "paymentId", p.paymentIds)).where(movesFrom("pay")),
);
const insertInvoice = preparedQuery((q, p: Invoice) => q.insertInto("Invoice").values(everyColumn("Invoice", p)));
const insertItem = preparedQuery((q, p: InvoiceItem) => q.insertInto("InvoiceItem").values(everyColumn("InvoiceItem", p)));
const finalize = preparedQuery((q, p: { id: string; checkoutSessionId: string; paymentId: string; now: Date }) =>
  q
    .updateTable("Invoice")
    .set({ status: "open", checkoutSessionId: p.checkoutSessionId, paymentId: p.paymentId, finalizedAt: p.now, updatedAt: p.now })
    .where("id", "=", p.id)
    .where(movesFrom("finalize")),
);
const pay = preparedQuery((q, p: { ids: unknown; now: Date }) =>
  q.updateTable("Invoice").set({ status: "paid", paidAt: p.now, updatedAt: p.now }).where(inListParam(q, "id", p.ids)).where(movesFrom("pay")).returningAll(),
);
const markSent = preparedQuery((q, p: { id: string; now: Date }) =>
  q.updateTable("Invoice").set({ sentAt: p.now, updatedAt: p.now }).where("id", "=", p.id).where(movesFrom("send")),
);

/** The statement that sets an open invoice's sent_at; the batch fails with `notOpen()` otherwise. */
export const markInvoiceSentStatement = (db: Db, id: string, now: Date, notOpen: () => Error): Statement =>
  markSent.statement(typedSql(db), { id, now }, { expect: { changes: 1, error: notOpen } });

/** The invoice `id` of any organization (callers check the scope) with its items in order, payment and checkout session; or null. */
export async function findInvoiceWithDetails(db: Db, id: string): Promise<InvoiceWithDetails | null> {
  const typed = typedSql(db);
  const [invoice, items, payment, checkoutSession] = await Promise.all([
    byId.first(typed, { id }),
    itemsOfInvoice.all(typed, { invoiceId: id }),
    paymentOf.first(typed, { id }),
    sessionOf.first(typed, { id }),
  ]);
  return invoice && { ...invoice, items, payment, checkoutSession };
}

/** The invoice a checkout session was opened for, whatever its status, with its items in order; null for other sessions. */
export async function invoiceOfCheckoutSession(db: Db, checkoutSessionId: string): Promise<InvoiceWithItems | null> {
  const typed = typedSql(db);
  const [invoice, items] = await Promise.all([ofSession.first(typed, { checkoutSessionId }), itemsOfSession.all(typed, { checkoutSessionId })]);
  return invoice && { ...invoice, items };
}

/** The invoice a payment pays, whatever its status, with its items in order; null when it has none. */
export async function invoiceOfPayment(db: Db, paymentId: string): Promise<InvoiceWithItems | null> {
  const typed = typedSql(db);
  const [invoice, items] = await Promise.all([ofPayment.first(typed, { paymentId }), itemsOfPayment.all(typed, { paymentId })]);
  return invoice && { ...invoice, items };
}

/** Of these payments, the invoices their completion pays (payInvoicesStatement), each with its items in order. */
export async function openInvoicesOfPayments(db: Db, paymentIds: string[]): Promise<InvoiceWithItems[]> {
  const typed = typedSql(db);
  const invoices = await payableOfPayments.all(typed, { paymentIds: typed.direct.listParam(paymentIds) });
  if (invoices.length === 0) return [];
  const items = await itemsOfInvoices.all(typed, { invoiceIds: typed.direct.listParam(invoices.map((invoice) => invoice.id)) });
  return invoices.map((invoice) => ({ ...invoice, items: items.filter((item) => item.invoiceId === invoice.id) }));
}

/**
 * The batch steps that write a new invoice and its items, numbered with the environment's next
 * invoice sequence (organizations.store.ts): `numbered(sequence)` is its invoice number, set on
 * `invoice` when the batch runs. Without settings for the environment the batch fails with `missingSettings()`.
 */
export function newInvoiceSteps(
  db: Db,
  invoice: Invoice,
  items: InvoiceItem[],
  numbered: (sequence: number) => string,
  missingSettings: () => Error,
): BatchStep[] {
  const typed = typedSql(db);
  const sequence = nextInvoiceSequence(db, { organizationId: invoice.organizationId, environment: invoice.environment }, missingSettings);
  return [
    sequence.statement,
    ([taken]) => {
      invoice.invoiceNumber = numbered(sequence.numberOf(taken!));
      return insertInvoice.statement(typed, invoice);
    },
    ...items.map((item) => insertItem.statement(typed, item)),
  ];
}

/** The statement that opens a draft invoice with its checkout session and payment; the batch fails with `notDraft()` otherwise. */
export function finalizeInvoiceStatement(
  db: Db,
  opened: { id: string; checkoutSessionId: string; paymentId: string; now: Date },
  notDraft: () => Error,
): Statement {
  return finalize.statement(typedSql(db), opened, { expect: { changes: 1, error: notDraft } });
}

/** These invoices open -> paid with paid_at; `expect` says what fails the batch (see Statement). */
export function payInvoicesStatement(db: Db, ids: string[], now: Date, expect: NonNullable<Statement["expect"]>): Statement {
  const typed = typedSql(db);
  return pay.statement(typed, { ids: typed.direct.listParam(ids), now }, { expect });
}

/** The invoices payInvoicesStatement wrote, from its step's rows. */
export const paidInvoicesOf = (db: Db, rows: Row[]): Invoice[] => pay.rowsOf(typedSql(db), rows);

/** Moves an invoice to `void` in a Prisma transaction; false if it does not take the move. */
export async function voidInvoiceIn(tx: Tx, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.invoice.updateMany({
    where: { id, status: { in: [...MOVES.void] } },
    data: { status: "void", voidedAt: now, updatedAt: now },
  });
  return count === 1;
}

/**
 * As findInvoiceWithDetails, inside a Prisma transaction: one read after the other. Prisma reads an
 * include's relations side by side, which sends them at once on the transaction's one connection
 * (node-postgres deprecates that, and pg 9 drops the queue that makes it work).
 */
export async function findInvoiceWithDetailsIn(tx: Tx, id: string): Promise<InvoiceWithDetails | null> {
  const invoice = await tx.invoice.findUnique({ where: { id } });
  if (!invoice) return null;
  const items = await tx.invoiceItem.findMany({ where: { invoiceId: id }, orderBy: invoiceInclude.items.orderBy });
  const payment = invoice.paymentId ? await tx.payment.findUnique({ where: { id: invoice.paymentId } }) : null;
  const checkoutSession = invoice.checkoutSessionId ? await tx.checkoutSession.findUnique({ where: { id: invoice.checkoutSessionId } }) : null;
  return { ...invoice, items, payment, checkoutSession };
}

// ---- Lists (db/list-page.ts)

export interface InvoiceFilters {
  status?: InvoiceStatus | null;
  customerId?: string | null;
  /** what a merchant types (invoice-search.ts says what it finds) */
  search?: string | null;
}

/** The invoices a list shows: the caller's, of the status and customer asked for, holding the search's words (REST and GraphQL). */
const invoicesMatching = listOf<"Invoice", InScope<Omit<InvoiceFilters, "search"> & SearchFilters>>({
  table: "Invoice",
  where: (eb, f) => eb.and([eb.and({ ...inScope(f), status: f.status, customerId: f.customerId }), ...matchesSearch(eb, f)]),
});

/** These invoices with what a GraphQL selection includes (a Prisma include), for the rows of a page. */
export const invoicesIncluding = (ctx: Pick<ServiceContext, "db">, ids: string[], query: object): Promise<Invoice[]> =>
  ctx.db.invoice.findMany({ ...query, where: { id: { in: ids } } });


/** A page of invoices with their details (items in order, payment, checkout session), as an invoice's JSON shows them. */
export async function listInvoices(ctx: ServiceContext, filters: InvoiceFilters, page: PageRequest): Promise<Page<InvoiceWithDetails>> {
  const sql = typedSql(ctx.db);
  const { search, ...others } = filters;
  const invoices = await invoicesMatching(sql, { ...inScope(ctx.scope), ...others, ...invoiceSearchFilters(search) }, page);
  const present = (ids: (string | null)[]) => ids.filter((id): id is string => id !== null);
  const [items, payments, sessions] = await Promise.all([
    invoices.items.length ? itemsOfInvoices.all(sql, { invoiceIds: sql.direct.listParam(invoices.items.map((i) => i.id)) }) : [],
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

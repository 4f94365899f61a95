// The persistence of payments: every read and write of the Payment table is here, and with them the
// payment rules that are query conditions (due to expire, open for the ledger), built from
// payment-states.ts, which decides every move. Hot paths (creation, GET by id, the checkout's reads,
// the ledger's completions) are typed queries prepared once (db/typed-sql.ts says why); the rest is
// Prisma, where it reads better and is not hot. Batch writes are statement builders, so a caller
// composes them with other resources' writes in one transaction.
import { type Expression, type ExpressionBuilder, sql, type SqlBool } from "kysely";
import type { Payment } from "../../generated/sqlite/client.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { type DB, dialectOf, everyColumn, inListParam, jsonRows, preparedQuery, type TypedSql } from "../../db/typed-sql.ts";
import { conflict } from "../../errors.ts";
import type { Asset } from "../../shared/assets.ts";
import { capStroops, MAX_STROOPS } from "../../shared/money.ts";
import { AWAITING_PAYMENT, completesLate, ledgerCompletes, openForLedger as openForLedgerClauses } from "./payment-states.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type PageRequest } from "../../db/list-page.ts";
import type { PaymentStatus } from "./payments.inputs.ts";
import { type OtherFilters, searchPayments } from "./payment-search.ts";

/** References to the Payment table's columns (unqualified: a subquery's own table comes first). */
type PaymentColumns = ExpressionBuilder<DB, "Payment">;
type Clause = ReturnType<typeof openForLedgerClauses>[number];

/** payment-states.ts `isDueToExpire` as a query condition. */
const dueToExpire = (eb: PaymentColumns, now: Date) =>
  eb.and([eb("status", "in", [...AWAITING_PAYMENT]), eb("expiresAt", "<=", now)]);

const openForLedgerClause = (eb: PaymentColumns, { status, expiredSince }: Clause): Expression<SqlBool> =>
  expiredSince === null ? eb("status", "=", status) : eb.and([eb("status", "=", status), eb("expiresAt", ">=", expiredSince)]);

/** payment-states.ts `openForLedger` as a query condition. */
const openForLedger = (eb: PaymentColumns, lateSince: Date) =>
  eb.or(openForLedgerClauses(lateSince).map((clause) => openForLedgerClause(eb, clause)));

/**
 * `column` + `stroops` (at most MAX_STROOPS), stopping at MAX_STROOPS: one ledger amount never
 * passes int64, but a running total of what arrived can, and an overflow would fail the ledger's
 * batch on PostgreSQL (stalling the stream) or turn the column into a float on SQLite.
 */
const addStroops = (column: "Payment.amountReceived", stroops: Expression<unknown>) => {
  const max = sql.raw(String(MAX_STROOPS));
  return sql<bigint>`CASE WHEN ${sql.ref(column)} > ${max} - ${stroops} THEN ${max} ELSE ${sql.ref(column)} + ${stroops} END`;
};

// ---- reads

const byId = preparedQuery((q, p: { id: string }) => q.selectFrom("Payment").selectAll().where("id", "=", p.id));

/** The payment, whoever's it is: callers check its scope (isInScope) or hold its id as the capability. */
export const paymentById = (db: Db, id: string): Promise<Payment | null> => byId.first(typedSql(db), { id });

const byMemoIds = preparedQuery((q, p: { memoIds: unknown; network: string }) =>
  q.selectFrom("Payment").selectAll().where(inListParam(q, "memoId", p.memoIds)).where("networkPassphrase", "=", p.network),
);

/**
 * The payments of a network whose memo id (the payer's correlation) is one of `memoIds`, whichever
 * wallet they settle to: the caller checks the wallet that was paid is the payment's.
 */
export function paymentsByMemoIds(db: Db, networkPassphrase: string, memoIds: string[]): Promise<Payment[]> {
  const typed = typedSql(db);
  return byMemoIds.all(typed, { memoIds: typed.direct.listParam(memoIds), network: networkPassphrase });
}

const settlementWallets = preparedQuery((q, p: { ids: unknown }) =>
  q.selectFrom("Payment").select(["settlementAddress", "networkPassphrase"]).where(inListParam(q, "id", p.ids)),
);

const scopes = preparedQuery((q, p: { ids: unknown }) => q.selectFrom("Payment").select(["id", "organizationId", "environment"]).where(inListParam(q, "id", p.ids)));

/** Whose these payments are (their organization and environment). */
export async function scopesOfPayments(db: Db, ids: string[]): Promise<Pick<Payment, "id" | "organizationId" | "environment">[]> {
  const typed = typedSql(db);
  return scopes.all(typed, { ids: typed.direct.listParam(ids) });
}

/** The settlement wallets of these payments, as "passphrase|G...". */
export async function walletsOfPayments(db: Db, ids: string[]): Promise<Set<string>> {
  const typed = typedSql(db);
  const rows = await settlementWallets.all(typed, { ids: typed.direct.listParam(ids) });
  return new Set(rows.map((row) => `${row.networkPassphrase}|${row.settlementAddress}`));
}


// One query per status the ledger completes, seeking down Payment_wallets_idx ("status",
// "settlementAddress", "networkPassphrase", "expiresAt"): the next wallet after `after` with a payment
// in that status, and whether one of those is open for the ledger (a second seek on the same index).
const nextWalletOfStatus = openForLedgerClauses(new Date(0)).map((_, i) =>
  preparedQuery((q, p: { lateSince: Date; address: string; network: string }) => {
    const clause = openForLedgerClauses(p.lateSince)[i]!;
    return q
      .selectFrom("Payment as candidate")
      .select(["candidate.settlementAddress", "candidate.networkPassphrase"])
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom("Payment")
              .select(sql.lit(1).as("one"))
              .whereRef("Payment.settlementAddress", "=", "candidate.settlementAddress")
              .whereRef("Payment.networkPassphrase", "=", "candidate.networkPassphrase")
              .where((inner) => openForLedgerClause(inner as unknown as PaymentColumns, clause)),
          )
          .as("open"),
      )
      .where("candidate.status", "=", clause.status)
      .where((eb) => eb(eb.refTuple("candidate.settlementAddress", "candidate.networkPassphrase"), ">", eb.tuple(p.address, p.network)))
      .orderBy("candidate.status")
      .orderBy("candidate.settlementAddress")
      .orderBy("candidate.networkPassphrase")
      .limit(1);
  }),
);

/**
 * The settlement wallets of payments open for the ledger, as "passphrase|G...". Read wallet by
 * wallet, status by status: the process watching a network reads it at start and then now and then as
 * a safety net (payments created meanwhile reach it as events), and its cost grows with the number
 * of wallets, not of payments (old expired payments pile up, and are skipped a wallet at a time).
 */
export async function walletsOpenForLedger(db: Db, lateSince: Date): Promise<Set<string>> {
  const typed = typedSql(db);
  const wallets = new Set<string>();
  for (const nextWallet of nextWalletOfStatus) {
    let after = { address: "", network: "" };
    for (;;) {
      const next = await nextWallet.first(typed, { lateSince, ...after });
      if (!next) break;
      after = { address: next.settlementAddress, network: next.networkPassphrase };
      // SQLite answers 1 (a bigint here), PostgreSQL true.
      if (Number(next.open) === 1) wallets.add(`${after.network}|${after.address}`);
    }
  }
  return wallets;
}

const oldestOpenWithoutCursor = preparedQuery((q, p: { network: string; lateSince: Date }) =>
  q
    .selectFrom("Payment")
    // named after the column, so it comes back as a Date like the column
    .select((eb) => eb.fn.min("createdAt").as("createdAt"))
    .where("networkPassphrase", "=", p.network)
    .where((eb) => openForLedger(eb, p.lateSince))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("LedgerCursor")
            .select(sql.lit(1).as("one"))
            .whereRef("LedgerCursor.networkPassphrase", "=", "Payment.networkPassphrase")
            .whereRef("LedgerCursor.account", "=", "Payment.settlementAddress")
            .where("LedgerCursor.cursor", "<>", "0"),
        ),
      ),
    ),
);

/**
 * When the oldest payment open for the ledger on this network was created, among wallets that no
 * per-wallet stream (before #16) had followed past the start of the ledger: where a network's first
 * stream must start to see all their money. Null when there is none.
 */
export async function oldestOpenForLedgerUnfollowed(db: Db, networkPassphrase: string, lateSince: Date): Promise<Date | null> {
  const row = await oldestOpenWithoutCursor.first(typedSql(db), { network: networkPassphrase, lateSince });
  return (row?.createdAt as Date | null | undefined) ?? null;
}

// ---- writes in a batch (statement builders)

const insert = preparedQuery((q, p: Payment) => q.insertInto("Payment").values(everyColumn("Payment", p)));

/** INSERT of a new payment's complete row. */
export const insertPaymentStatement = (db: Db, payment: Payment): Statement => insert.statement(typedSql(db), payment);

/** One payment's credit, a row of creditPaymentsStatement's JSON (bigints as strings). */
type CreditRow = { id: string; stroops: string };

const credit = preparedQuery((q, p: { credits: unknown; now: Date }) =>
  q
    .updateTable("Payment")
    .from(jsonRows<CreditRow>(q, p.credits, { id: "text", stroops: "bigint" }).as("c"))
    .set({ amountReceived: addStroops("Payment.amountReceived", sql.ref("c.stroops")), updatedAt: p.now })
    .whereRef("Payment.id", "=", "c.id"),
);

/**
 * Counts the stroops that arrived on the ledger toward each payment, whatever its status: one
 * statement however many payments (a payment appears once; its stroops are what it received in all).
 */
export function creditPaymentsStatement(db: Db, credits: { paymentId: string; stroops: bigint }[], now: Date): Statement {
  const rows = credits.map((c): CreditRow => ({ id: c.paymentId, stroops: capStroops(c.stroops).toString() }));
  return credit.statement(typedSql(db), { credits: JSON.stringify(rows), now });
}

/** One payment's completion, a row of completePaymentsStatement's JSON (bigints as strings). */
type CompletionRow = {
  id: string;
  txHash: string | null;
  payerAddress: string | null;
  paidAssetCode: string | null;
  paidAssetIssuer: string | null;
  received: string;
  from: string;
  late: boolean;
  manualCompletionReason: string | null;
};

const COMPLETION_COLUMNS: Record<keyof CompletionRow, string> = {
  id: "text",
  txHash: "text",
  payerAddress: "text",
  paidAssetCode: "text",
  paidAssetIssuer: "text",
  received: "bigint",
  from: "text",
  late: "boolean",
  manualCompletionReason: "text",
};

const complete = preparedQuery((q, p: { completions: unknown; now: Date }) => {
  const update = q
    .updateTable("Payment")
    .from(jsonRows<CompletionRow>(q, p.completions, COMPLETION_COLUMNS).as("c"))
    .set((eb) => ({
      status: "completed",
      confirmedAt: p.now,
      updatedAt: p.now,
      txHash: eb.fn.coalesce("c.txHash", "Payment.txHash"),
      payerAddress: eb.fn.coalesce("c.payerAddress", "Payment.payerAddress"),
      // A paid asset replaces both columns (XLM's issuer is null).
      paidAssetCode: eb.fn.coalesce("c.paidAssetCode", "Payment.paidAssetCode"),
      paidAssetIssuer: eb.case().when("c.paidAssetCode", "is", null).then(eb.ref("Payment.paidAssetIssuer")).else(eb.ref("c.paidAssetIssuer")).end(),
      amountReceived: addStroops("Payment.amountReceived", sql.ref("c.received")),
      late: sql<boolean>`${sql.ref("Payment.late")} OR ${sql.ref("c.late")}`,
      failureReason: null,
      manualCompletionReason: eb.ref("c.manualCompletionReason"),
    }))
    .whereRef("Payment.id", "=", "c.id")
    .whereRef("Payment.status", "=", "c.from");
  // PostgreSQL's `RETURNING *` would add the columns of `c`; SQLite returns only the updated table's
  // and takes no "Payment".* there.
  return dialectOf(q) === "postgresql" ? update.returningAll("Payment") : update.returningAll();
});

export interface CompletionChange {
  paymentId: string;
  /** the status it was read in: the completion holds only if it still is (payment-states.ts says which the ledger completes) */
  from: string;
  txHash?: string | null;
  payerAddress?: string | null;
  paidAsset?: Asset | null;
  /** stroops that arrived with this completion, added to amount_received */
  received?: bigint;
  /** why a person completed it by hand; null for the ledger's completions */
  manualCompletionReason?: string | null;
}

/**
 * Each payment `from` -> completed (late from expired), as one statement however many there are:
 * confirmed_at, the ledger details given, what arrived, and the failure reason of an earlier attempt
 * cleared. The batch fails with 409 "Payment is not pending" unless every payment is still in its
 * `from`; `completedPaymentsOf` reads the completed rows from its result.
 */
export function completePaymentsStatement(db: Db, changes: CompletionChange[], now: Date): Statement {
  const notPending = () => conflict("Payment is not pending");
  if (changes.some((change) => !ledgerCompletes(change.from))) throw notPending();
  const rows = changes.map(
    (change): CompletionRow => ({
      id: change.paymentId,
      txHash: change.txHash ?? null,
      payerAddress: change.payerAddress ?? null,
      paidAssetCode: change.paidAsset?.code ?? null,
      paidAssetIssuer: change.paidAsset?.issuer ?? null,
      received: capStroops(change.received ?? 0n).toString(),
      from: change.from,
      late: completesLate(change.from),
      manualCompletionReason: change.manualCompletionReason ?? null,
    }),
  );
  return complete.statement(typedSql(db), { completions: JSON.stringify(rows), now }, { expect: { changes: changes.length, error: notPending } });
}

/** The payments completePaymentsStatement wrote, from its step's rows (in no particular order). */
export const completedPaymentsOf = (db: Db, rows: Row[]): Payment[] => complete.rowsOf(typedSql(db), rows);

const expireDue = preparedQuery((q, p: { now: Date; limit: number }) => {
  const due = q.selectFrom("Payment").select("id").where((eb) => dueToExpire(eb, p.now)).orderBy("expiresAt").limit(p.limit);
  // Another sweeper's rows are skipped, not waited for (SQLite has one writer and no such clause).
  const claimable = dialectOf(q) === "postgresql" ? due.forUpdate().skipLocked() : due;
  // The condition again on the row being written: only a payment still due moves, so of two
  // sweepers that picked the same payment one changes it and the other changes nothing.
  return q
    .updateTable("Payment")
    .set({ status: "expired", updatedAt: p.now })
    .where("id", "in", claimable)
    .where((eb) => dueToExpire(eb, p.now))
    .returningAll();
});

/**
 * Awaiting payment -> expired (payment-states.ts) for up to `limit` payments due at `now`, the longest
 * overdue first, as one batch step; `expiredPaymentsOf` reads the payments it moved, and only those.
 */
export const expireDuePaymentsStatement = (db: Db, now: Date, limit: number): Statement => expireDue.statement(typedSql(db), { now, limit });

/** The payments an expireDuePaymentsStatement step moved, from its rows. */
export const expiredPaymentsOf = (db: Db, rows: Row[]): Payment[] => expireDue.rowsOf(typedSql(db), rows);

// ---- writes in the caller's Prisma transaction (not hot: voiding an invoice, a failed attempt)

/** Awaiting payment -> expired (payment-states.ts); null when it no longer awaits payment. */
export async function expireAwaitingPayment(tx: Tx, paymentId: string, now: Date): Promise<Payment | null> {
  const { count } = await tx.payment.updateMany({
    where: { id: paymentId, status: { in: [...AWAITING_PAYMENT] } },
    data: { status: "expired", updatedAt: now },
  });
  return count === 0 ? null : tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
}

/**
 * A failed attempt of the payer's: awaiting payment -> failed with its reason (payment-states.ts).
 * `first`: it was pending, so the merchant is told; from failed only the reason changes. Null when it
 * no longer awaits payment.
 */
export async function recordFailedAttempt(
  tx: Tx,
  paymentId: string,
  failureReason: string,
  now: Date,
): Promise<{ payment: Payment; first: boolean } | null> {
  for (const from of AWAITING_PAYMENT) {
    const { count } = await tx.payment.updateMany({
      where: { id: paymentId, status: from },
      data: { status: "failed", failureReason, updatedAt: now },
    });
    if (count === 1) return { payment: await tx.payment.findUniqueOrThrow({ where: { id: paymentId } }), first: from === "pending" };
  }
  return null;
}

// ---- Lists (db/list-page.ts)

export interface PaymentFilters extends OtherFilters {
  status?: PaymentStatus | null;
  /** what a merchant types (payment-search.ts says what it finds) */
  search?: string | null;
}

/**
 * The payments a list shows: the caller's, of the status, customer and creation period asked for
 * (REST and GraphQL). The period bounds the list's order (list-page.ts merges it with the cursors).
 */
const paymentsMatching = listOf<"Payment", InScope<OtherFilters>>({
  table: "Payment",
  where: (eb, f) => eb.and({ ...inScope(f), status: f.status, customerId: f.customerId }),
  period: { from: "createdFrom", to: "createdTo" },
});

/** A page of the caller's payments: a search reads its own way (payment-search.ts), the rest the list's index. */
export const listPayments = (ctx: ServiceContext, { search, ...filters }: PaymentFilters, page: PageRequest) =>
  search ? searchPayments(ctx, { ...filters, search }, page) : paymentsMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);

/** These payments with what a GraphQL selection includes (a Prisma include), for the rows of a page. */
export const paymentsIncluding = (ctx: Pick<ServiceContext, "db">, ids: string[], query: object): Promise<Payment[]> =>
  ctx.db.payment.findMany({ ...query, where: { id: { in: ids } } });

const paymentsWithIds = preparedQuery((q, p: { ids: unknown }) => q.selectFrom("Payment").selectAll().where(inListParam(q, "id", p.ids)));

/** The payments of these ids (for the rows of another list that show their payment), by id. */
export async function paymentsByIds(sql: TypedSql, ids: string[]) {
  const rows = ids.length ? await paymentsWithIds.all(sql, { ids: sql.direct.listParam(ids) }) : [];
  return new Map(rows.map((payment) => [payment.id, payment]));
}

/**
 * The caller's payments created in [from, to): how many per status, and the amount of the completed
 * ones per settlement asset (stroops), in all and per UTC day. Three grouped reads on the list's index.
 */
export async function paymentTotals(ctx: ServiceContext, range: { from: Date; to: Date }) {
  const typed = typedSql(ctx.db);
  const inRange = typed.q
    .selectFrom("Payment")
    .where("organizationId", "=", ctx.scope.organizationId)
    .where("environment", "=", ctx.scope.environment)
    .where("createdAt", ">=", range.from)
    .where("createdAt", "<", range.to);
  const completed = inRange.where("status", "=", "completed" satisfies PaymentStatus);
  // The UTC day of createdAt: SQLite stores ISO text (its first 10 characters), PostgreSQL UTC timestamps.
  const day = typed.dialect === "postgresql" ? sql<string>`to_char("createdAt", 'YYYY-MM-DD')` : sql<string>`substr("createdAt", 1, 10)`;
  const [counts, volumes, daily] = await Promise.all([
    typed.all(inRange.select((eb) => ["status", eb.fn.countAll().as("count")]).groupBy("status")),
    typed.all(
      completed
        .select((eb) => ["settlementAssetCode", "settlementAssetIssuer", eb.fn.sum("amount").as("amount")])
        .groupBy(["settlementAssetCode", "settlementAssetIssuer"]),
    ),
    typed.all(
      completed
        .select((eb) => [day.as("day"), "settlementAssetCode", "settlementAssetIssuer", eb.fn.sum("amount").as("amount")])
        .groupBy([day, "settlementAssetCode", "settlementAssetIssuer"])
        .orderBy(day),
    ),
  ]);
  const assetOf = (row: { settlementAssetCode: string; settlementAssetIssuer: string | null }): Asset => ({
    code: row.settlementAssetCode,
    issuer: row.settlementAssetIssuer,
  });
  return {
    // PostgreSQL answers counts and sums of bigint as text, SQLite as numbers.
    counts: counts.map((row) => ({ status: row.status as PaymentStatus, count: Number(row.count) })),
    volumes: volumes.map((row) => ({ asset: assetOf(row), amount: BigInt(String(row.amount)) })),
    daily: daily.map((row) => ({ day: row.day, asset: assetOf(row), amount: BigInt(String(row.amount)) })),
  };
}

// ---- refunds: what is refundable is received - refunded - refunding (src/modules/refunds/)

const reserveRefund = preparedQuery((q, p: { id: string; amount: bigint }) =>
  q
    .updateTable("Payment")
    .set({ amountRefunding: sql<bigint>`${sql.ref("amountRefunding")} + ${p.amount}` })
    .where("id", "=", p.id)
    .where(sql<SqlBool>`${sql.ref("amountReceived")} - ${sql.ref("amountRefunded")} - ${sql.ref("amountRefunding")} >= ${p.amount}`),
);

/**
 * Holds `amount` of the payment for a refund in flight, if that much is still refundable; else the
 * batch fails with `error`. One conditional update: on PostgreSQL it waits for a concurrent one's row
 * lock and checks the row as that one left it, on SQLite writes are one at a time, so two refunds at
 * once never hold more than arrived.
 */
export const reserveRefundStatement = (db: Db, paymentId: string, amount: bigint, error: () => Error): Statement =>
  reserveRefund.statement(typedSql(db), { id: paymentId, amount }, { expect: { changes: 1, error } });

const endRefund = preparedQuery((q, p: { id: string; amount: bigint; refunded: bigint; now: Date }) =>
  q
    .updateTable("Payment")
    .set({
      amountRefunding: sql<bigint>`${sql.ref("amountRefunding")} - ${p.amount}`,
      amountRefunded: sql<bigint>`${sql.ref("amountRefunded")} + ${p.refunded}`,
      updatedAt: p.now,
    })
    .where("id", "=", p.id),
);

/** A refund in flight ends: its `amount` is held no longer, and counts as refunded if it `succeeded`. */
export const endRefundStatement = (db: Db, paymentId: string, amount: bigint, succeeded: boolean, now: Date): Statement =>
  endRefund.statement(typedSql(db), { id: paymentId, amount, refunded: succeeded ? amount : 0n, now });

const applyLedgerCredit = preparedQuery((q, p: { id: string; amount: bigint; now: Date }) =>
  q
    .updateTable("Payment")
    .set({ amountReceived: addStroops("Payment.amountReceived", sql`${p.amount}`), updatedAt: p.now })
    .where("id", "=", p.id),
);

/** Counts `amount` that arrived unmatched toward the payment (the desk's apply), whatever its status. */
export const creditPaymentStatement = (db: Db, paymentId: string, amount: bigint, now: Date): Statement =>
  applyLedgerCredit.statement(typedSql(db), { id: paymentId, amount, now });

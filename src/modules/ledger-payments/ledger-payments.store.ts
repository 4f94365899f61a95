// The persistence of what the ledger streams: LedgerPayment (every payment operation that reached a
// watched settlement wallet, recorded once, matched to a payment or not) and NetworkCursor (where
// each network's stream resumes). The verifier writes both in the batch that completes payments, so a
// restart resumes exactly after the last operation that counted; those writes are prepared typed
// statements (db/typed-sql.ts), the rest reads better in Prisma.
import type { LedgerPayment } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { inListParam, insertJsonRows, preparedQuery } from "../../db/typed-sql.ts";
import type { ServiceContext } from "../../context.ts";
import { listOf, type PageRequest } from "../../db/list-page.ts";

/** A settlement wallet on one network: what one stream follows. */
export interface StreamPosition {
  networkPassphrase: string;
  /** the settlement wallet being streamed */
  account: string;
}

// ---- LedgerPayment

const recorded = preparedQuery((q, p: { network: string; operationIds: unknown }) =>
  q
    .selectFrom("LedgerPayment")
    .select("operationId")
    .where("networkPassphrase", "=", p.network)
    .where(inListParam(q, "operationId", p.operationIds)),
);

/** Which of `operationIds` are recorded already on this network. */
export async function recordedOperations(db: Db, networkPassphrase: string, operationIds: string[]): Promise<Set<string>> {
  const typed = typedSql(db);
  const rows = await recorded.all(typed, { network: networkPassphrase, operationIds: typed.direct.listParam(operationIds) });
  return new Set(rows.map((row) => row.operationId));
}

const LEDGER_PAYMENT_COLUMNS = {
  networkPassphrase: "text", operationId: "text", txHash: "text", account: "text", sourceAccount: "text", amount: "bigint",
  assetCode: "text", assetIssuer: "text", sourceAssetCode: "text", sourceAssetIssuer: "text", memoType: "text", memo: "text",
  muxedId: "text", paymentId: "text", refundId: "text", ledgerCreatedAt: "timestamp", createdAt: "timestamp",
} satisfies Record<keyof LedgerPayment, string>;
const insertLedgerPayments = insertJsonRows("LedgerPayment", LEDGER_PAYMENT_COLUMNS);

/**
 * One INSERT of the operations seen in a batch (one statement, not one per operation: on PostgreSQL
 * each is a round trip). An operation inserted before fails the whole batch, so it counts once.
 */
export function recordLedgerPaymentsStatement(db: Db, rows: LedgerPayment[]): Statement {
  const { direct } = typedSql(db);
  const stored = rows.map((row) => ({
    ...row,
    amount: String(row.amount), // exact past 2^53
    ledgerCreatedAt: direct.storedDate(row.ledgerCreatedAt),
    createdAt: direct.storedDate(row.createdAt),
  }));
  return insertLedgerPayments.statement(typedSql(db), { rows: JSON.stringify(stored) });
}

// ---- NetworkCursor: where a network's ledger-wide stream resumes

const cursorOf = preparedQuery((q, p: { network: string }) =>
  q.selectFrom("NetworkCursor").select("cursor").where("networkPassphrase", "=", p.network),
);

/** Where the network's stream resumes; null before its first stream. */
export async function savedNetworkCursor(db: Db, networkPassphrase: string): Promise<string | null> {
  const row = await cursorOf.first(typedSql(db), { network: networkPassphrase });
  return row?.cursor ?? null;
}

const firstCursor = preparedQuery((q, p: { network: string; cursor: string; now: Date }) =>
  q
    .insertInto("NetworkCursor")
    .values({ networkPassphrase: p.network, cursor: p.cursor, updatedAt: p.now })
    .onConflict((conflict) => conflict.column("networkPassphrase").doNothing()),
);

const forgetWalletCursors = preparedQuery((q, p: { network: string }) => q.deleteFrom("LedgerCursor").where("networkPassphrase", "=", p.network));

/**
 * Saves the network's first cursor, unless another process saved one meanwhile, and drops the
 * per-wallet cursors it was started from (in the same transaction); returns the cursor saved.
 */
export async function keepFirstNetworkCursor(db: Db, networkPassphrase: string, cursor: string, now: Date): Promise<string> {
  const typed = typedSql(db);
  await typed.direct.batch([
    firstCursor.statement(typed, { network: networkPassphrase, cursor, now }),
    forgetWalletCursors.statement(typed, { network: networkPassphrase }),
  ]);
  return (await savedNetworkCursor(db, networkPassphrase))!;
}

const moveCursor = preparedQuery((q, p: { network: string; cursor: string; now: Date }) =>
  q
    .insertInto("NetworkCursor")
    .values({ networkPassphrase: p.network, cursor: p.cursor, updatedAt: p.now })
    .onConflict((conflict) =>
      conflict.column("networkPassphrase").doUpdateSet((eb) => ({ cursor: eb.ref("excluded.cursor"), updatedAt: eb.ref("excluded.updatedAt") })),
    ),
);

/** The network's stream resumes after `cursor` (a paging token): written in the batch of what it verified. */
export const moveNetworkCursorStatement = (db: Db, networkPassphrase: string, cursor: string, now: Date): Statement =>
  moveCursor.statement(typedSql(db), { network: networkPassphrase, cursor, now });

// ---- LedgerCursor: the per-wallet cursors of the streams before #16, read once per network

/** The per-wallet cursors a deployment upgrading from per-wallet streams left, by wallet. */
export async function walletCursors(db: Db, networkPassphrase: string): Promise<Map<string, string>> {
  const rows = await db.ledgerCursor.findMany({ where: { networkPassphrase }, select: { account: true, cursor: true } });
  return new Map(rows.map((row) => [row.account, row.cursor]));
}

/**
 * Drops the cursors and operations recorded from these networks: a simulated ledger lives only as
 * long as its process and starts again at ledger 1, so what an earlier one left would hide the new
 * one's payments.
 */
export async function forgetLedgers(db: Db, networkPassphrases: string[]): Promise<void> {
  const where = { networkPassphrase: { in: networkPassphrases } };
  await db.$transaction([db.networkCursor.deleteMany({ where }), db.ledgerCursor.deleteMany({ where }), db.ledgerPayment.deleteMany({ where })]);
}

// ---- Lists (db/list-page.ts)

export interface UnmatchedLedgerPaymentFilters {
  /** the settlement wallet they paid */
  account: string;
  networkPassphrase: string;
}

/**
 * Payments to a wallet on a network that matched no payment, newest on the ledger first. Paged by
 * operation id, which is unique on one network.
 */
const unmatchedPaymentsOf = listOf<"LedgerPayment", UnmatchedLedgerPaymentFilters>({
  table: "LedgerPayment",
  where: (eb, f) => eb.and({ paymentId: null, account: f.account, networkPassphrase: f.networkPassphrase }),
  order: { time: "ledgerCreatedAt", key: "operationId" },
});

export const listUnmatchedLedgerPayments = (ctx: Pick<ServiceContext, "db">, filters: UnmatchedLedgerPaymentFilters, page: PageRequest) =>
  unmatchedPaymentsOf(typedSql(ctx.db), filters, page);

// ---- the desk: an unmatched payment applied to a payment, or sent back by a refund

const byOperation = preparedQuery((q, p: { network: string; operationId: string }) =>
  q.selectFrom("LedgerPayment").selectAll().where("networkPassphrase", "=", p.network).where("operationId", "=", p.operationId),
);

/** The ledger payment `operationId` of a network, matched or not, or null. */
export const ledgerPaymentByOperation = (db: Db, networkPassphrase: string, operationId: string): Promise<LedgerPayment | null> =>
  byOperation.first(typedSql(db), { network: networkPassphrase, operationId });

const payersOf = preparedQuery((q, p: { paymentId: string }) =>
  q.selectFrom("LedgerPayment").select("sourceAccount").distinct().where("paymentId", "=", p.paymentId).limit(2),
);

/** The accounts that paid toward a payment on the ledger: one, several (at most two are read), or none. */
export async function payersOfPayment(db: Db, paymentId: string): Promise<string[]> {
  return (await payersOf.all(typedSql(db), { paymentId })).map((row) => row.sourceAccount);
}

const holdForRefund = preparedQuery((q, p: { network: string; operationId: string; refundId: string }) =>
  q
    .updateTable("LedgerPayment")
    .set({ refundId: p.refundId })
    .where("networkPassphrase", "=", p.network)
    .where("operationId", "=", p.operationId)
    .where("paymentId", "is", null)
    .where("refundId", "is", null),
);

/** The unmatched payment is being sent back by `refundId`: unless it still is unmatched and not being sent back already, the batch fails with `error`. */
export const holdLedgerPaymentForRefundStatement = (db: Db, networkPassphrase: string, operationId: string, refundId: string, error: () => Error): Statement =>
  holdForRefund.statement(typedSql(db), { network: networkPassphrase, operationId, refundId }, { expect: { changes: 1, error } });

const releaseFromRefund = preparedQuery((q, p: { network: string; operationId: string; refundId: string }) =>
  q
    .updateTable("LedgerPayment")
    .set({ refundId: null })
    .where("networkPassphrase", "=", p.network)
    .where("operationId", "=", p.operationId)
    .where("refundId", "=", p.refundId),
);

/** The refund that held it was canceled or failed: the unmatched payment may be applied or sent back again. */
export const releaseLedgerPaymentStatement = (db: Db, networkPassphrase: string, operationId: string, refundId: string): Statement =>
  releaseFromRefund.statement(typedSql(db), { network: networkPassphrase, operationId, refundId });

const applyToPayment = preparedQuery((q, p: { network: string; operationId: string; paymentId: string }) =>
  q
    .updateTable("LedgerPayment")
    .set({ paymentId: p.paymentId })
    .where("networkPassphrase", "=", p.network)
    .where("operationId", "=", p.operationId)
    .where("paymentId", "is", null)
    .where("refundId", "is", null),
);

/** The unmatched payment counts toward `paymentId` from now on: unless it still is unmatched and not being sent back, the batch fails with `error`. */
export const applyLedgerPaymentStatement = (db: Db, networkPassphrase: string, operationId: string, paymentId: string, error: () => Error): Statement =>
  applyToPayment.statement(typedSql(db), { network: networkPassphrase, operationId, paymentId }, { expect: { changes: 1, error } });

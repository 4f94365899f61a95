// The persistence of what the ledger streams: LedgerPayment (every payment operation that reached a
// settlement wallet, recorded once, matched to a payment or not) and LedgerCursor (where each
// wallet's stream resumes). The verifier writes both in the batch that completes payments, so a
// restart resumes exactly after the last operation that counted; those writes are prepared typed
// statements (db/typed-sql.ts), the rest reads better in Prisma.
import type { LedgerPayment } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { everyColumn, inListParam, preparedQuery } from "../../db/typed-sql.ts";
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

const insert = preparedQuery((q, p: LedgerPayment) => q.insertInto("LedgerPayment").values(everyColumn("LedgerPayment", p)));

/** INSERT of an operation seen: a second insert of the same one fails its batch, so it counts once. */
export const recordLedgerPaymentStatement = (db: Db, row: LedgerPayment): Statement => insert.statement(typedSql(db), row);

// ---- LedgerCursor

const cursorOf = preparedQuery((q, p: { network: string; account: string }) =>
  q.selectFrom("LedgerCursor").select("cursor").where("networkPassphrase", "=", p.network).where("account", "=", p.account),
);

/** Where the wallet's stream resumes; null before its first stream. */
export async function savedCursor(db: Db, position: StreamPosition): Promise<string | null> {
  const row = await cursorOf.first(typedSql(db), { network: position.networkPassphrase, account: position.account });
  return row?.cursor ?? null;
}

const firstCursor = preparedQuery((q, p: { network: string; account: string; cursor: string; now: Date }) =>
  q
    .insertInto("LedgerCursor")
    .values({ networkPassphrase: p.network, account: p.account, cursor: p.cursor, updatedAt: p.now })
    .onConflict((conflict) => conflict.columns(["networkPassphrase", "account"]).doNothing()),
);

/** Saves the first cursor of a wallet, unless another process saved one meanwhile; returns the one saved. */
export async function keepFirstCursor(db: Db, position: StreamPosition, cursor: string, now: Date): Promise<string> {
  const typed = typedSql(db);
  await typed.direct.batch([firstCursor.statement(typed, { network: position.networkPassphrase, account: position.account, cursor, now })]);
  return (await savedCursor(db, position))!;
}

const moveCursor = preparedQuery((q, p: { network: string; account: string; cursor: string; now: Date }) =>
  q
    .insertInto("LedgerCursor")
    .values({ networkPassphrase: p.network, account: p.account, cursor: p.cursor, updatedAt: p.now })
    .onConflict((conflict) =>
      conflict.columns(["networkPassphrase", "account"]).doUpdateSet((eb) => ({ cursor: eb.ref("excluded.cursor"), updatedAt: eb.ref("excluded.updatedAt") })),
    ),
);

/** The wallet's stream resumes after `cursor` (a paging token): written in the batch of what it verified. */
export const moveCursorStatement = (db: Db, position: StreamPosition, cursor: string, now: Date): Statement =>
  moveCursor.statement(typedSql(db), { network: position.networkPassphrase, account: position.account, cursor, now });

/**
 * Drops the cursors and operations recorded from these networks: a simulated ledger lives only as
 * long as its process and starts again at ledger 1, so what an earlier one left would hide the new
 * one's payments.
 */
export async function forgetLedgers(db: Db, networkPassphrases: string[]): Promise<void> {
  const where = { networkPassphrase: { in: networkPassphrases } };
  await db.$transaction([db.ledgerCursor.deleteMany({ where }), db.ledgerPayment.deleteMany({ where })]);
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

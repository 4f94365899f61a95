// Every read and write of the Refund table. Writes are statement builders, so that a refund's move,
// the payment (or unmatched ledger payment) it holds money of and its outbox event commit together.
import type { Refund } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { everyColumn, inListParam, preparedQuery } from "../../db/typed-sql.ts";
import { inScope, type ServiceContext } from "../../context.ts";
import { type InScope, listOf, type PageRequest } from "../../db/list-page.ts";
import type { RefundStatus } from "./refunds.inputs.ts";

/** A refund whose money may still leave: the ledger stream watches its wallet for it. */
const REFUNDS_IN_FLIGHT = ["pending_claim", "requires_signature", "submitted"] as const satisfies readonly RefundStatus[];

const byId = preparedQuery((q, p: { id: string }) => q.selectFrom("Refund").selectAll().where("id", "=", p.id));
const insert = preparedQuery((q, p: Refund) => q.insertInto("Refund").values(everyColumn("Refund", p)));

/** The refund `id` of any organization (callers check the scope, or hold the id as the payer's capability), or null. */
export const refundById = (db: Db, id: string): Promise<Refund | null> => byId.first(typedSql(db), { id });

export const insertRefundStatement = (db: Db, row: Refund): Statement => insert.statement(typedSql(db), row);

type RefundChange = Pick<Refund, "status" | "destinationAddress" | "destinationMemo" | "destinationMemoType" | "txHash" | "failureReason" | "completedAt">;

const move = preparedQuery((q, p: RefundChange & { id: string; from: unknown; now: Date }) =>
  q
    .updateTable("Refund")
    .set({
      status: p.status,
      destinationAddress: p.destinationAddress,
      destinationMemo: p.destinationMemo,
      destinationMemoType: p.destinationMemoType,
      txHash: p.txHash,
      failureReason: p.failureReason,
      completedAt: p.completedAt,
      updatedAt: p.now,
    })
    .where("id", "=", p.id)
    .where(inListParam(q, "status", p.from))
    .returningAll(),
);

/**
 * Moves `refund` (as read) to `change.status` with the changed fields, if its status is still one of
 * `from`; else the batch fails with `error` and changes nothing. Its step returns the refund as written.
 */
export function moveRefundStatement(db: Db, refund: Refund, change: Partial<RefundChange> & Pick<RefundChange, "status">, from: readonly RefundStatus[], now: Date, error: () => Error): Statement {
  const typed = typedSql(db);
  const next = { ...refund, ...change };
  return move.statement(
    typed,
    {
      id: refund.id,
      from: typed.direct.listParam([...from]),
      now,
      status: next.status,
      destinationAddress: next.destinationAddress,
      destinationMemo: next.destinationMemo,
      destinationMemoType: next.destinationMemoType,
      txHash: next.txHash,
      failureReason: next.failureReason,
      completedAt: next.completedAt,
    },
    { expect: { changes: 1, error } },
  );
}

/** The refund a moveRefundStatement step wrote. */
export const movedRefundOf = (db: Db, rows: Row[]): Refund => move.rowsOf(typedSql(db), rows)[0]!;

const inFlightFrom = preparedQuery((q, p: { network: string; accounts: unknown; statuses: unknown }) =>
  q
    .selectFrom("Refund")
    .selectAll()
    .where("networkPassphrase", "=", p.network)
    .where(inListParam(q, "sourceAddress", p.accounts))
    .where(inListParam(q, "status", p.statuses)),
);

/** The refunds in flight from these wallets of a network: what their outgoing payments on the ledger may be. */
export async function refundsInFlightFrom(db: Db, networkPassphrase: string, accounts: string[]): Promise<Refund[]> {
  const typed = typedSql(db);
  const { listParam } = typed.direct;
  return inFlightFrom.all(typed, { network: networkPassphrase, accounts: listParam(accounts), statuses: listParam([...REFUNDS_IN_FLIGHT]) });
}

const walletsInFlight = preparedQuery((q, p: { statuses: unknown }) =>
  q.selectFrom("Refund").select(["sourceAddress", "networkPassphrase"]).distinct().where(inListParam(q, "status", p.statuses)),
);

/** The settlement wallets with refunds in flight, as "passphrase|G...": the ledger stream watches them. */
export async function walletsWithRefundsInFlight(db: Db): Promise<Set<string>> {
  const typed = typedSql(db);
  const rows = await walletsInFlight.all(typed, { statuses: typed.direct.listParam([...REFUNDS_IN_FLIGHT]) });
  return new Set(rows.map((row) => `${row.networkPassphrase}|${row.sourceAddress}`));
}

/** A refund whose transaction may be on the ledger now: built (requires_signature) or sent (submitted). */
const REFUNDS_AWAITING_LEDGER = ["requires_signature", "submitted"] as const satisfies readonly RefundStatus[];

const awaitingLedger = preparedQuery((q, p: { statuses: unknown }) =>
  q
    .selectFrom("Refund")
    // named after the column, so it comes back as a Date like the column
    .select((eb) => ["sourceAddress", "networkPassphrase", eb.fn.min("createdAt").as("createdAt")])
    .where(inListParam(q, "status", p.statuses))
    .groupBy(["sourceAddress", "networkPassphrase"]),
);

/**
 * The settlement wallets whose refunds' transactions may reach the ledger (their claimable
 * balances are followed on the wallet's operations), each with the creation of its oldest such
 * refund: none of their transactions can be older.
 */
export async function walletsAwaitingRefundTransactions(db: Db): Promise<{ networkPassphrase: string; account: string; since: Date }[]> {
  const typed = typedSql(db);
  const rows = await awaitingLedger.all(typed, { statuses: typed.direct.listParam([...REFUNDS_AWAITING_LEDGER]) });
  return rows.map((row) => ({ networkPassphrase: row.networkPassphrase, account: row.sourceAddress, since: row.createdAt }));
}

const walletsOf = preparedQuery((q, p: { ids: unknown }) =>
  q.selectFrom("Refund").select(["sourceAddress", "networkPassphrase"]).distinct().where(inListParam(q, "id", p.ids)),
);

/** The settlement wallets of these refunds, as "passphrase|G...". */
export async function walletsOfRefunds(db: Db, ids: string[]): Promise<Set<string>> {
  const typed = typedSql(db);
  const rows = await walletsOf.all(typed, { ids: typed.direct.listParam(ids) });
  return new Set(rows.map((row) => `${row.networkPassphrase}|${row.sourceAddress}`));
}

// ---- Lists (db/list-page.ts)

export interface RefundFilters {
  paymentId?: string | null;
  status?: RefundStatus | null;
}

/** The refunds a list shows: the caller's, of a payment and in a status as asked (REST and GraphQL). */
const refundsMatching = listOf<"Refund", InScope<RefundFilters>>({
  table: "Refund",
  where: (eb, f) => eb.and({ ...inScope(f), paymentId: f.paymentId, status: f.status }),
});

export const listRefunds = (ctx: ServiceContext, filters: RefundFilters, page: PageRequest) =>
  refundsMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);

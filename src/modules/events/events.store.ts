// Every read and write of the Event table (the outbox): its inserts, the live feed's reads
// (events.feed.ts), the dashboard's replay (checkout.live.ts) and the webhook worker's fan-out
// (webhooks/dispatcher.ts). All typed and prepared (db/typed-sql.ts): the feed and the worker read
// after every write, and the inserts are part of the hot writes. The insert inside a Prisma
// transaction (recordEvent's callers hold one) is the one Prisma write left.
import type { ExpressionBuilder } from "kysely";
import type { Event } from "../../generated/sqlite/client.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { type DB, type TypedSql, dialectOf, everyColumn, inListParam, preparedQuery } from "../../db/typed-sql.ts";

/** An event as written: every column but `seq`, which the database hands out. */
export type EventRow = Omit<Event, "seq">;

/** The columns the live feed hands to its listeners. */
export type OutboxEvent = Pick<Event, "seq" | "id" | "organizationId" | "environment" | "type" | "resourceId" | "data" | "createdAt">;

const insert = preparedQuery((q, p: EventRow) => {
  // Every column but seq, so a column added to the model is written too.
  const { seq: _handedOut, ...columns } = everyColumn("Event", p);
  return q.insertInto("Event").values(columns);
});

/** The insert of an event, as one statement of a caller's batch (in the transaction of its change). */
export const insertEventStatement = (db: Db, row: EventRow): Statement => insert.statement(typedSql(db), row);

/** Columns of a multi-row insert, with their PostgreSQL types (SQLite takes the JSON values as they are). */
const EVENT_COLUMNS = {
  id: "text",
  organizationId: "text",
  environment: "text",
  type: "text",
  resourceId: "text",
  data: "text",
  createdAt: "timestamp",
  fannedOutAt: "timestamp",
} satisfies Record<keyof EventRow, string>;

/** The insert of any number of events as one statement of a caller's batch (in the transaction of their changes). */
export function insertEventsStatement(db: Db, rows: EventRow[]): Statement {
  const { direct } = typedSql(db);
  const stored = rows.map((row) => ({
    ...row,
    createdAt: direct.storedDate(row.createdAt),
    fannedOutAt: row.fannedOutAt && direct.storedDate(row.fannedOutAt),
  }));
  return { text: direct.insertJsonRows("Event", EVENT_COLUMNS), params: [JSON.stringify(stored)] };
}

/** Inserts an event in a Prisma transaction, for callers whose change is written through Prisma. */
export const insertEventInTransaction = (tx: Tx, row: EventRow): Promise<Event> => tx.event.create({ data: row });

// ---- the live feed (events.feed.ts)

const newestSeq = preparedQuery((q) => q.selectFrom("Event").select("seq").orderBy("seq", "desc").limit(1));

/** The highest seq committed, or 0 when there is no event. */
export const newestEventSeq = async (db: Db): Promise<number> => (await newestSeq.first(typedSql(db), {}))?.seq ?? 0;

const seqsAfter = preparedQuery((q, p: { after: number }) => q.selectFrom("Event").select("seq").where("seq", ">", p.after));

/** The seqs committed above `after`. */
export const eventSeqsAfter = async (db: Db, after: number): Promise<number[]> =>
  (await seqsAfter.all(typedSql(db), { after })).map((row) => row.seq);

const outboxColumns = ["seq", "id", "organizationId", "environment", "type", "resourceId", "data", "createdAt"] as const;

const afterOrIn = preparedQuery((q, p: { after: number; seqs: unknown; limit: number }) =>
  q
    .selectFrom("Event")
    .select(outboxColumns)
    .where((eb) => eb.or([eb("seq", ">", p.after), inListParam(q, "seq", p.seqs)]))
    .orderBy("seq", "asc")
    .limit(p.limit),
);

/** Up to `limit` events, in seq order, above `after` or among `seqs` (the gaps the feed re-reads). */
export function outboxEventsAfter(db: Db, after: number, seqs: number[], limit: number): Promise<OutboxEvent[]> {
  const typed = typedSql(db);
  return afterOrIn.all(typed, { after, seqs: typed.direct.listParam(seqs), limit });
}

// ---- the dashboard's replay (checkout.live.ts)

type Scope = { organizationId: string; environment: string };

const newestSeqIn = preparedQuery((q, p: Scope) =>
  q
    .selectFrom("Event")
    .select("seq")
    .where("organizationId", "=", p.organizationId)
    .where("environment", "=", p.environment)
    .orderBy("seq", "desc")
    .limit(1),
);

/** The highest seq of the scope's events, or 0. */
export const newestEventSeqIn = async (db: Db, scope: Scope): Promise<number> =>
  (await newestSeqIn.first(typedSql(db), { organizationId: scope.organizationId, environment: scope.environment }))?.seq ?? 0;

const paymentEventsAfter = preparedQuery((q, p: Scope & { after: number; limit: number }) =>
  q
    .selectFrom("Event")
    .selectAll()
    .where("organizationId", "=", p.organizationId)
    .where("environment", "=", p.environment)
    .where("seq", ">", p.after)
    .where("type", "like", "payment.%")
    .orderBy("seq", "asc")
    .limit(p.limit),
);

/** Up to `limit` payment events of the scope above `after`, in seq order. */
export const paymentEventsOfScopeAfter = (db: Db, scope: Scope, after: number, limit: number): Promise<Event[]> =>
  paymentEventsAfter.all(typedSql(db), { organizationId: scope.organizationId, environment: scope.environment, after, limit });

// ---- one resource's timeline (the dashboard's payment detail)

const ofResource = preparedQuery((q, p: Scope & { resourceId: string }) =>
  q
    .selectFrom("Event")
    .select(["id", "type", "createdAt"])
    // seeks the ("resourceId", "seq") index; the scope keeps another organization's id out
    .where("resourceId", "=", p.resourceId)
    .where("organizationId", "=", p.organizationId)
    .where("environment", "=", p.environment)
    .orderBy("seq", "asc"),
);

/** The events of one resource of the scope (its id, kind and time), oldest first. */
export const eventsOfResource = (db: Db, scope: Scope, resourceId: string): Promise<Pick<Event, "id" | "type" | "createdAt">[]> =>
  ofResource.all(typedSql(db), { organizationId: scope.organizationId, environment: scope.environment, resourceId });

// ---- fan-out (webhooks/dispatcher.ts)

/** An event no worker has turned into deliveries yet. */
export const notFannedOut = (eb: ExpressionBuilder<DB, "Event">) => eb("Event.fannedOutAt", "is", null);

const notFannedOutCount = preparedQuery((q) => q.selectFrom("Event").select((eb) => eb.fn.countAll().as("count")).where(notFannedOut));

/** How many events wait for fan-out (the outbox backlog, for /metrics): the ("fannedOutAt", "seq") index answers it. */
export const countEventsNotFannedOut = async (db: Db): Promise<number> => Number((await notFannedOutCount.first(typedSql(db), {}))?.count ?? 0);

const toFanOut = preparedQuery((q, p: { limit: number }) => {
  // Ordered as the ("fannedOutAt", "seq") index is: by "seq" alone, PostgreSQL may walk the whole
  // table in primary-key order looking for the few rows not fanned out yet.
  const query = q.selectFrom("Event").selectAll().where(notFannedOut).orderBy("fannedOutAt").orderBy("seq").limit(p.limit);
  // Another worker's rows are skipped, not waited for (SQLite has one writer and no such clause).
  return dialectOf(q) === "postgresql" ? query.forUpdate().skipLocked() : query;
});

/** Claims up to `limit` events not fanned out yet, oldest first, as a batch step. */
export const eventsToFanOutStatement = (sql: TypedSql, limit: number): Statement => toFanOut.statement(sql, { limit });

/** The events a batch step of eventsToFanOutStatement returned. */
export const eventsToFanOutRows = (sql: TypedSql, rows: Row[]): Event[] => toFanOut.rowsOf(sql, rows);

const markFannedOut = preparedQuery((q, p: { seqs: unknown; at: Date }) =>
  q.updateTable("Event").set({ fannedOutAt: p.at }).where(inListParam(q, "seq", p.seqs)).where(notFannedOut),
);

/**
 * Marks the events fanned out at `at`, as a batch step that fails with `concurrently()` unless it
 * marked every one of them (another SQLite process got there first: the batch rolls back).
 */
export function markFannedOutStatement(sql: TypedSql, events: Pick<Event, "seq">[], at: Date, concurrently: () => Error): Statement {
  const seqs = sql.direct.listParam(events.map((e) => e.seq));
  return markFannedOut.statement(sql, { seqs, at }, { expect: { changes: events.length, error: concurrently } });
}

// ---- retention (modules/retention/retention-purger.ts)

const prunable = preparedQuery((q, p: { cutoff: Date; limit: number }) =>
  q.deleteFrom("Event").where(
    "seq",
    "in",
    q
      .selectFrom("Event")
      .select("seq")
      .where("createdAt", "<", p.cutoff)
      // never one still waiting for fan-out, nor one whose deliveries are kept (pending, failed, or younger)
      .where((eb) => eb.not(notFannedOut(eb)))
      .where((eb) => eb.not(eb.exists(eb.selectFrom("WebhookDelivery").select("WebhookDelivery.id").whereRef("WebhookDelivery.eventId", "=", "Event.id"))))
      .orderBy("seq")
      .limit(p.limit),
  ),
);

/**
 * Deletes up to `limit` events created before `cutoff`, the oldest first, that are fanned out and
 * have no delivery left; returns how many.
 */
export async function deleteFannedOutEventsBefore(db: Db, cutoff: Date, limit: number): Promise<number> {
  const typed = typedSql(db);
  const [result] = await typed.direct.batch([prunable.statement(typed, { cutoff, limit })]);
  return result!.changes;
}

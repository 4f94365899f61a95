// Every read and write of the Event table (the outbox): its inserts, the live feed's reads
// (events.feed.ts), the dashboard's replay (checkout.live.ts) and the webhook worker's fan-out
// (webhooks/dispatcher.ts). All typed and prepared (db/typed-sql.ts): the feed and the worker read
// after every write, and the inserts are part of the hot writes. The insert inside a Prisma
// transaction (recordEvent's callers hold one) is the one Prisma write left.
import { type ExpressionBuilder, sql } from "kysely";
import type { Event } from "../../generated/sqlite/client.ts";
import { type Scope as CallerScope, inScope } from "../../context.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import { type InScope, type Page, type PageRequest, listOf } from "../../db/list-page.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { type DB, type TypedSql, dialectOf, everyColumn, inListParam, insertJsonRows, preparedQuery } from "../../db/typed-sql.ts";
import { liveEndpoint } from "../webhook-endpoints/webhook-endpoints.store.ts";

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

/**
 * The insert of an event that no live webhook endpoint of its environment takes, as it stands when
 * the statement runs, written as fanned out already (`fannedOutAt` = `createdAt`): the webhook worker
 * then has nothing to do for it. Asked in the insert itself, not read before it: creates do not wait
 * for a read (group commit), and an endpoint made a moment before gets the event. The endpoint's
 * events are a JSON list of types or "*" (webhook-endpoints.service.ts subscribedEvents).
 */
const insertUnlessUntaken = preparedQuery((q, p: EventRow & { typeInList: string }) => {
  const postgres = dialectOf(q) === "postgresql";
  const createdAt = postgres ? sql<Date>`cast(${p.createdAt} as timestamp(3))` : sql<Date>`${p.createdAt}`;
  return q
    .insertInto("Event")
    .columns(["id", "organizationId", "environment", "type", "resourceId", "data", "createdAt", "fannedOutAt"])
    .expression(
      q.selectNoFrom((eb) => [
        sql<string>`${p.id}`.as("id"),
        sql<string>`${p.organizationId}`.as("organizationId"),
        sql<string>`${p.environment}`.as("environment"),
        sql<string>`${p.type}`.as("type"),
        sql<string>`${p.resourceId}`.as("resourceId"),
        sql<string>`${p.data}`.as("data"),
        createdAt.as("createdAt"),
        eb
          .case()
          .when(
            eb.exists(
              eb
                .selectFrom("WebhookEndpoint")
                .select(sql.lit(1).as("one"))
                .where("WebhookEndpoint.organizationId", "=", p.organizationId)
                .where("WebhookEndpoint.environment", "=", p.environment)
                .where(liveEndpoint)
                .where((eb) => eb.or([eb("WebhookEndpoint.enabledEvents", "like", '%"*"%'), eb("WebhookEndpoint.enabledEvents", "like", p.typeInList)])),
            ),
          )
          .then(sql<Date | null>`null`)
          .else(createdAt)
          .end()
          .as("fannedOutAt"),
      ]) as never,
    );
});

/** insertUnlessUntaken's statement for `row` (its fannedOutAt is the statement's to decide). */
export const insertEventUnlessUntakenStatement = (db: Db, row: EventRow): Statement =>
  insertUnlessUntaken.statement(typedSql(db), { ...row, typeInList: `%${JSON.stringify(row.type)}%` });

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
const insertEvents = insertJsonRows("Event", EVENT_COLUMNS);

/** The insert of any number of events as one statement of a caller's batch (in the transaction of their changes). */
export function insertEventsStatement(db: Db, rows: EventRow[]): Statement {
  const { direct } = typedSql(db);
  const stored = rows.map((row) => ({
    ...row,
    createdAt: direct.storedDate(row.createdAt),
    fannedOutAt: row.fannedOutAt && direct.storedDate(row.fannedOutAt),
  }));
  return insertEvents.statement(typedSql(db), { rows: JSON.stringify(stored) });
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

// Two reads, not one with `seq > after OR seq IN (gaps)`: SQLite answers that OR by scanning the
// whole table in seq order (every 100 ms, blocking the process for seconds at millions of events).
const eventsAfter = preparedQuery((q, p: { after: number; limit: number }) =>
  q.selectFrom("Event").select(outboxColumns).where("seq", ">", p.after).orderBy("seq", "asc").limit(p.limit),
);
const eventsIn = preparedQuery((q, p: { seqs: unknown }) => q.selectFrom("Event").select(outboxColumns).where(inListParam(q, "seq", p.seqs)).orderBy("seq", "asc"));

/**
 * The events among `gaps` (seqs below `after` that the feed re-reads), then up to `limit` events
 * above `after`, in seq order.
 */
export async function outboxEventsAfter(db: Db, after: number, gaps: number[], limit: number): Promise<OutboxEvent[]> {
  const typed = typedSql(db);
  const filled = gaps.length > 0 ? await eventsIn.all(typed, { seqs: typed.direct.listParam(gaps) }) : [];
  return [...filled, ...(await eventsAfter.all(typed, { after, limit }))];
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

/** An event that may go: created before the cutoff, fanned out, with no delivery kept (pending, failed or younger). */
const prunable = (eb: ExpressionBuilder<DB, "Event">, cutoff: Date) =>
  eb.and([
    eb("createdAt", "<", cutoff),
    eb.not(notFannedOut(eb)),
    eb.not(eb.exists(eb.selectFrom("WebhookDelivery").select("WebhookDelivery.id").whereRef("WebhookDelivery.eventId", "=", "Event.id"))),
  ]);

// The purge walks the outbox in seq order a window at a time, resuming after the previous window:
// asking for "the first N prunable events" instead would walk again, on every chunk, over all the
// kept ones before them (events with a failed delivery stay for good), which at a few million
// events held SQLite for seconds per chunk.
const windowAfter = preparedQuery((q, p: { after: number; cutoff: Date; limit: number }) =>
  q
    .selectFrom("Event")
    .select((eb) => ["seq", "createdAt", prunable(eb, p.cutoff).as("prunable")])
    .where("seq", ">", p.after)
    .orderBy("seq")
    .limit(p.limit),
);
const deletePrunable = preparedQuery((q, p: { seqs: unknown; cutoff: Date }) =>
  q.deleteFrom("Event").where(inListParam(q, "seq", p.seqs)).where((eb) => prunable(eb as never, p.cutoff)),
);

export interface PurgeWindow {
  deleted: number;
  /** the last seq looked at, to resume after */
  lastSeq: number;
  /** nothing past this window can go yet: the end of the outbox, or events created after the cutoff */
  done: boolean;
}

/**
 * Looks at up to `limit` events after seq `after`, the oldest first, and deletes those created
 * before `cutoff` that are fanned out and have no delivery left, in one transaction.
 */
export async function deleteFannedOutEventsBefore(db: Db, cutoff: Date, after: number, limit: number): Promise<PurgeWindow> {
  const typed = typedSql(db);
  let window: { seq: number; createdAt: Date; prunable: unknown }[] = [];
  const [, deleted] = await typed.direct.batch([
    windowAfter.statement(typed, { after, cutoff, limit }),
    (before) => {
      window = windowAfter.rowsOf(typed, before[0]!.rows) as typeof window;
      // The same conditions again: an event changed since the window was read stays.
      return deletePrunable.statement(typed, { seqs: typed.direct.listParam(window.filter((e) => e.prunable).map((e) => e.seq)), cutoff });
    },
  ]);
  // Events come in about the order they were created: the first one past the cutoff ends the walk.
  const done = window.length < limit || window.some((e) => e.createdAt >= cutoff);
  return { deleted: deleted!.changes, lastSeq: window.at(-1)?.seq ?? after, done };
}

// ---- the Events screen (events.graphql.ts)

/** The scope's event `id`, or null. */
export const findEvent = (db: Db, scope: Pick<CallerScope, "organizationId" | "environment">, id: string): Promise<Event | null> =>
  db.event.findFirst({ where: { id, ...inScope(scope) } });

export interface EventFilters {
  /** the event kind */
  type?: string | null;
}

/** The scope's events, newest first (by seq, which is commit order near enough), of one kind if asked. */
const eventsMatching = listOf<"Event", InScope<EventFilters>>({
  table: "Event",
  where: (eb, f) => eb.and({ ...inScope(f), type: f.type }),
  order: { time: "seq", key: "id" },
});

/** A page of the scope's events. */
export const listEvents = (db: Db, scope: Pick<CallerScope, "organizationId" | "environment">, filters: EventFilters, page: PageRequest): Promise<Page<Event>> =>
  eventsMatching(typedSql(db), { ...inScope(scope), ...filters }, page);

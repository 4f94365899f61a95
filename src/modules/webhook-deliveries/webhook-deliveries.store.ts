// Every read and write of the WebhookDelivery table and its WebhookAttempt rows. The API's reads of
// one delivery are Prisma; the lists and the webhook worker's statements (webhooks/dispatcher.ts,
// which runs after every write) are typed and prepared (db/typed-sql.ts). Rows of any number travel
// as one JSON parameter (typed-sql's insertJsonRows), so those statements stay prepared too.
//
// When a delivery is due is ONE condition, `dueForDelivery`, and whether a worker holds it is ONE,
// `leaseFree`: the worker's "anything to do?", its claim and the manual retry all use them.
import type { ExpressionBuilder } from "kysely";
import type { Prisma, WebhookAttempt, WebhookDelivery } from "../../generated/sqlite/client.ts";
import { type ServiceContext, type Scope, inScope } from "../../context.ts";
import { type Db, type Tx, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { type InScope, type Page, type PageRequest, listOf } from "../../db/list-page.ts";
import { type DB, type TypedSql, dialectOf, inListParam, insertJsonRows, preparedQuery } from "../../db/typed-sql.ts";
import { notFannedOut } from "../events/events.store.ts";
import type { DeliveryStatus } from "./webhook-deliveries.inputs.ts";

/** A delivery with its attempts in order, as the delivery log shows it. */
export type DeliveryWithAttempts = WebhookDelivery & { attempts: WebhookAttempt[] };

type Deliveries = ExpressionBuilder<DB, "WebhookDelivery">;

/** No worker holds the delivery: never leased, or its lease ran out (the worker died) at `now` or before. */
const leaseFree = (eb: Deliveries, now: Date) =>
  eb.or([eb("WebhookDelivery.leaseUntil", "is", null), eb("WebhookDelivery.leaseUntil", "<=", now)]);

/** Due for delivery at `now`: pending with its (retry) time reached, or asked for by hand; and no worker holding it. */
const dueForDelivery = (eb: Deliveries, now: Date) =>
  eb.and([
    eb.or([
      eb.and([eb("WebhookDelivery.status", "=", "pending" satisfies DeliveryStatus), eb("WebhookDelivery.nextRetryAt", "<=", now)]),
      eb("WebhookDelivery.manualRetryAt", "<=", now),
    ]),
    leaseFree(eb, now),
  ]);

// ---- one delivery (the API)

const withAttempts = { attempts: { orderBy: { number: "asc" } } } satisfies Prisma.WebhookDeliveryInclude;

/** The scope's delivery `id` with its attempts, or null. */
export const findWebhookDelivery = (db: Db, scope: Pick<Scope, "organizationId" | "environment">, id: string): Promise<DeliveryWithAttempts | null> =>
  db.webhookDelivery.findFirst({ where: { id, ...inScope(scope) }, include: withAttempts });

/** The delivery of event `eventId` to endpoint `endpointId`, if one was made (the pair is unique). */
export const findDeliveryOf = (db: Db, endpointId: string, eventId: string): Promise<WebhookDelivery | null> =>
  db.webhookDelivery.findUnique({ where: { endpointId_eventId: { endpointId, eventId } } });

/** Inserts a delivery in a Prisma transaction (the test webhook's, with its event). */
export const insertDeliveryInTransaction = (tx: Tx, row: Prisma.WebhookDeliveryUncheckedCreateInput): Promise<WebhookDelivery> =>
  tx.webhookDelivery.create({ data: row });

// A manual attempt leaves nextRetryAt (the automatic schedule's next time) as it is: the worker
// sends it because manualRetryAt is due, and its result does not count in the schedule.
const askManualAttempt = preparedQuery((q, p: { id: string; now: Date }) =>
  q
    .updateTable("WebhookDelivery")
    .set({ status: "pending" satisfies DeliveryStatus, manualRetryAt: p.now, leaseUntil: null, updatedAt: p.now })
    .where("id", "=", p.id)
    .where("manualRetryAt", "is", null)
    .where((eb) => leaseFree(eb, p.now)),
);

/**
 * Asks for one manual attempt of the delivery now (pending until it is made), unless a worker holds
 * it or one is asked for already (requests made together make one attempt in all); whether it did.
 */
export async function askForManualAttempt(db: Db, id: string, now: Date): Promise<boolean> {
  const typed = typedSql(db);
  const [result] = await typed.direct.batch([askManualAttempt.statement(typed, { id, now })]);
  return result!.changes === 1;
}

// ---- the webhook worker

const pendingCount = preparedQuery((q) =>
  q
    .selectFrom("WebhookDelivery")
    .select((eb) => eb.fn.countAll().as("count"))
    .where("status", "=", "pending" satisfies DeliveryStatus),
);

/** How many deliveries are pending, due or waiting for a retry (the delivery backlog, for /metrics): the ("status", "nextRetryAt") index answers it. */
export const countPendingDeliveries = async (db: Db): Promise<number> => Number((await pendingCount.first(typedSql(db), {}))?.count ?? 0);

const workWaiting = preparedQuery((q, p: { now: Date }) =>
  q.selectNoFrom((eb) => [
    eb.exists(eb.selectFrom("Event").select("Event.seq").where(notFannedOut)).as("events"),
    eb.exists(eb.selectFrom("WebhookDelivery").select("WebhookDelivery.id").where((d) => dueForDelivery(d, p.now))).as("due"),
  ]),
);

/** Whether events wait for fan-out and deliveries are due: what a worker's cycle starts with, one read. */
export async function webhookWorkWaiting(sql: TypedSql, now: Date): Promise<{ events: boolean; due: boolean }> {
  const [work] = await workWaiting.all(sql, { now });
  // PostgreSQL answers booleans, SQLite 0 or 1.
  return { events: Boolean(Number(work!.events)), due: Boolean(Number(work!.due)) };
}

const claim = preparedQuery((q, p: { now: Date; leaseUntil: Date; limit: number }) => {
  const due = q
    .selectFrom("WebhookDelivery")
    .select("id")
    .where((eb) => dueForDelivery(eb, p.now))
    .orderBy("nextRetryAt")
    .limit(p.limit);
  // One conditional UPDATE: SQLite runs it atomically; PostgreSQL skips rows another worker is claiming.
  const claimable = dialectOf(q) === "postgresql" ? due.forUpdate().skipLocked() : due;
  return q.updateTable("WebhookDelivery").set({ leaseUntil: p.leaseUntil }).where("id", "in", claimable).returningAll();
});

/** Leases up to `limit` due deliveries until `leaseUntil`, as a batch step returning them. */
export const claimDueDeliveriesStatement = (sql: TypedSql, now: Date, leaseUntil: Date, limit: number): Statement =>
  claim.statement(sql, { now, leaseUntil, limit });

/** The deliveries a claimDueDeliveriesStatement step returned. */
export const claimedDeliveryRows = (sql: TypedSql, rows: Row[]): WebhookDelivery[] => claim.rowsOf(sql, rows);

/** A delivery as fan-out creates it: pending and due at once. */
export type NewDelivery = Pick<
  WebhookDelivery,
  "id" | "organizationId" | "environment" | "endpointId" | "eventId" | "eventType" | "requestPayload" | "createdAt"
>;

/** Columns written from JSON rows, with their PostgreSQL types (SQLite takes the JSON values as they are). */
const DELIVERY_COLUMNS = {
  id: "text",
  organizationId: "text",
  environment: "text",
  endpointId: "text",
  eventId: "text",
  eventType: "text",
  status: "text",
  nextRetryAt: "timestamp",
  requestPayload: "text",
  createdAt: "timestamp",
  updatedAt: "timestamp",
};
const ATTEMPT_COLUMNS = {
  deliveryId: "text",
  number: "integer",
  startedAt: "timestamp",
  durationMs: "integer",
  responseCode: "integer",
  responseBody: "text",
  error: "text",
  manual: "boolean",
};
const insertDeliveries = insertJsonRows("WebhookDelivery", DELIVERY_COLUMNS);
const insertAttempts = insertJsonRows("WebhookAttempt", ATTEMPT_COLUMNS);

/** Inserts the deliveries, any number, as one batch step. */
export function insertDeliveriesStatement(sql: TypedSql, deliveries: NewDelivery[]): Statement {
  const rows = deliveries.map((d): Record<keyof typeof DELIVERY_COLUMNS, string> => {
    const stamp = sql.direct.storedDate(d.createdAt);
    return { ...d, status: "pending" satisfies DeliveryStatus, nextRetryAt: stamp, createdAt: stamp, updatedAt: stamp };
  });
  return insertDeliveries.statement(sql, { rows: JSON.stringify(rows) });
}

/** Inserts the attempts, any number, as one batch step. */
export function insertAttemptsStatement(sql: TypedSql, attempts: WebhookAttempt[]): Statement {
  const rows = attempts.map((a) => ({ ...a, startedAt: sql.direct.storedDate(a.startedAt) }));
  return insertAttempts.statement(sql, { rows: JSON.stringify(rows) });
}

/** What an attempt's result sets on its delivery. */
export type DeliveryResult = {
  status: DeliveryStatus;
  attemptCount: number;
  manualAttempts: number;
  nextRetryAt: Date | null;
  responseCode: number | null;
  responseBody: string | null;
  lastError: string | null;
  updatedAt: Date;
};

const record = preparedQuery((q, p: DeliveryResult & { ids: unknown; attemptsBefore: number }) =>
  q
    .updateTable("WebhookDelivery")
    .set({
      status: p.status,
      attemptCount: p.attemptCount,
      manualAttempts: p.manualAttempts,
      manualRetryAt: null,
      nextRetryAt: p.nextRetryAt,
      responseCode: p.responseCode,
      responseBody: p.responseBody,
      lastError: p.lastError,
      leaseUntil: null,
      updatedAt: p.updatedAt,
    })
    .where(inListParam(q, "id", p.ids))
    .where("attemptCount", "=", p.attemptsBefore),
);

/**
 * Writes one result to these deliveries and releases them, as a batch step, where they still have
 * `attemptsBefore` attempts (a worker that took a delivery over may have recorded this attempt).
 */
export const recordResultStatement = (
  sql: TypedSql,
  ids: string[],
  attemptsBefore: number,
  result: DeliveryResult,
  options?: Pick<Statement, "expect">,
): Statement => record.statement(sql, { ...result, ids: sql.direct.listParam(ids), attemptsBefore }, options);

const failWithoutAttempt = preparedQuery((q, p: { id: string; attemptsBefore: number; reason: string; now: Date }) =>
  q
    .updateTable("WebhookDelivery")
    .set({ status: "failed" satisfies DeliveryStatus, nextRetryAt: null, manualRetryAt: null, lastError: p.reason, leaseUntil: null, updatedAt: p.now })
    .where("id", "=", p.id)
    .where("attemptCount", "=", p.attemptsBefore),
);

/** Fails a claimed delivery that is not sent (its endpoint is no longer live), releasing it. */
export async function failDeliveryWithoutAttempt(sql: TypedSql, delivery: Pick<WebhookDelivery, "id" | "attemptCount">, reason: string, now: Date) {
  await sql.direct.batch([failWithoutAttempt.statement(sql, { id: delivery.id, attemptsBefore: delivery.attemptCount, reason, now })]);
}

// ---- retention (modules/retention/retention-purger.ts)

const oldSucceeded = preparedQuery((q, p: { cutoff: Date; limit: number }) => {
  const query = q
    .selectFrom("WebhookDelivery")
    .select("id")
    .where("status", "=", "succeeded" satisfies DeliveryStatus)
    .where("createdAt", "<", p.cutoff)
    .orderBy("createdAt")
    .limit(p.limit);
  // Locked until the chunk commits, so a manual retry made meanwhile waits and then finds it gone.
  return dialectOf(q) === "postgresql" ? query.forUpdate().skipLocked() : query;
});
const deleteAttemptsOf = preparedQuery((q, p: { ids: unknown }) => q.deleteFrom("WebhookAttempt").where(inListParam(q, "deliveryId", p.ids)));
// By id alone: the ids were read in this transaction (on PostgreSQL locked FOR UPDATE), so they are
// still succeeded; with `AND status = ?` SQLite walks the status index instead, all of the
// succeeded deliveries for each chunk (0.4-0.6 s a chunk at a million).
const deleteSucceeded = preparedQuery((q, p: { ids: unknown }) => q.deleteFrom("WebhookDelivery").where(inListParam(q, "id", p.ids)));

/**
 * Deletes up to `limit` succeeded deliveries created before `cutoff`, the oldest first, with their
 * attempts, in one transaction; returns how many. Pending and failed ones are never deleted: they
 * may still be sent, or retried by hand, and the log must show why they failed.
 */
export async function deleteSucceededDeliveriesBefore(sql: TypedSql, cutoff: Date, limit: number): Promise<number> {
  let ids: unknown = null;
  const results = await sql.direct.batch([
    oldSucceeded.statement(sql, { cutoff, limit }),
    (before) => {
      ids = sql.direct.listParam(before[0]!.rows.map((row) => row.id as string));
      return deleteAttemptsOf.statement(sql, { ids });
    },
    () => deleteSucceeded.statement(sql, { ids }),
  ]);
  return results[2]!.changes;
}

// ---- the deliveries of one resource's events (the dashboard's payment detail)

const ofResource = preparedQuery((q, p: { organizationId: string; environment: string; resourceId: string }) =>
  q
    .selectFrom("WebhookDelivery")
    .innerJoin("Event", "Event.id", "WebhookDelivery.eventId")
    .selectAll("WebhookDelivery")
    .where("Event.resourceId", "=", p.resourceId)
    .where("Event.organizationId", "=", p.organizationId)
    .where("Event.environment", "=", p.environment)
    .orderBy("Event.seq", "asc")
    .orderBy("WebhookDelivery.endpointId", "asc"),
);

/** The scope's deliveries of the events of `resourceId` (a payment's, say), in the order of its events. */
export const deliveriesOfResource = (db: Db, scope: Pick<Scope, "organizationId" | "environment">, resourceId: string): Promise<WebhookDelivery[]> =>
  ofResource.all(typedSql(db), { organizationId: scope.organizationId, environment: scope.environment, resourceId });

// ---- lists (db/list-page.ts)

export interface WebhookDeliveryFilters {
  endpointId?: string | null;
  status?: DeliveryStatus | null;
  /** the event kind */
  event?: string | null;
}

/** The deliveries a list shows: the caller's, of the endpoint, status and event kind asked for (REST and GraphQL). */
const deliveriesMatching = listOf<"WebhookDelivery", InScope<WebhookDeliveryFilters>>({
  table: "WebhookDelivery",
  where: (eb, f) => eb.and({ ...inScope(f), endpointId: f.endpointId, status: f.status, eventType: f.event }),
});

/** These deliveries with what a GraphQL selection includes (a Prisma include), for the rows of a page. */
export const webhookDeliveriesIncluding = (ctx: Pick<ServiceContext, "db">, ids: string[], query: object): Promise<WebhookDelivery[]> =>
  ctx.db.webhookDelivery.findMany({ ...query, where: { id: { in: ids } } });

const attemptsOfDeliveries = preparedQuery((q, p: { ids: unknown }) =>
  q.selectFrom("WebhookAttempt").selectAll().where(inListParam(q, "deliveryId", p.ids)).orderBy("deliveryId").orderBy("number"),
);

/** A page of deliveries, each with its attempts in order (the delivery log). */
export async function listWebhookDeliveries(
  ctx: ServiceContext,
  filters: WebhookDeliveryFilters,
  page: PageRequest,
): Promise<Page<DeliveryWithAttempts>> {
  const sql = typedSql(ctx.db);
  const deliveries = await deliveriesMatching(sql, { ...inScope(ctx.scope), ...filters }, page);
  const ids = deliveries.items.map((d) => d.id);
  const attempts = ids.length ? await attemptsOfDeliveries.all(sql, { ids: sql.direct.listParam(ids) }) : [];
  return { ...deliveries, items: deliveries.items.map((d) => ({ ...d, attempts: attempts.filter((a) => a.deliveryId === d.id) })) };
}

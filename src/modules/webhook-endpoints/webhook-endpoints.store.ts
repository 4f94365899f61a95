// Every read and write of the WebhookEndpoint table. The API's reads and writes of one endpoint are
// not hot: Prisma. The webhook worker's reads (webhooks/dispatcher.ts) run in its batches: typed and
// prepared (db/typed-sql.ts). Which endpoints are live is one condition here, used by the worker
// and by the settings read of every create (organizations.store.ts).
import type { ExpressionBuilder } from "kysely";
import type { Prisma, WebhookEndpoint } from "../../generated/sqlite/client.ts";
import { type Scope, type ServiceContext, inScope } from "../../context.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Row, Statement } from "../../db/direct-sql.ts";
import { type InScope, type PageRequest, listOf } from "../../db/list-page.ts";
import { type DB, type TypedSql, inListParam, preparedQuery } from "../../db/typed-sql.ts";
import { conflict } from "../../errors.ts";

/** An endpoint that receives events: enabled and not deleted (webhook-endpoints.service.ts `isLive`). */
export const liveEndpoint = (eb: ExpressionBuilder<DB, "WebhookEndpoint">) =>
  eb.and([eb("WebhookEndpoint.enabled", "=", true), eb("WebhookEndpoint.deletedAt", "is", null)]);

// ---- one endpoint (the API)

export const insertWebhookEndpoint = (db: Db, row: Prisma.WebhookEndpointUncheckedCreateInput): Promise<WebhookEndpoint> =>
  db.webhookEndpoint.create({ data: row });

/** The scope's endpoint `id` unless deleted, or null. */
export const findWebhookEndpoint = (db: Db, scope: Pick<Scope, "organizationId" | "environment">, id: string): Promise<WebhookEndpoint | null> =>
  db.webhookEndpoint.findFirst({ where: { id, ...inScope(scope), deletedAt: null } });

/** Sets the given columns; returns the endpoint as it is now. */
export const updateWebhookEndpointRow = (db: Db, id: string, changes: Prisma.WebhookEndpointUncheckedUpdateInput): Promise<WebhookEndpoint> =>
  db.webhookEndpoint.update({ where: { id }, data: changes });

/** The new secrets of a rotation. */
export type RotatedSecrets = Pick<WebhookEndpoint, "secret" | "previousSecret" | "previousSecretExpiresAt" | "updatedAt">;

/**
 * Writes a rotation over the endpoint's secret if it is still `current` (two rotations at once: the
 * second is refused rather than dropping the first's secret), with `alongside` (its audit entry) in
 * the same transaction; returns the endpoint as it is now.
 */
export async function rotateSecretsIfCurrent(db: Db, id: string, current: string, rotated: RotatedSecrets, alongside: Statement[]): Promise<WebhookEndpoint> {
  const typed = typedSql(db);
  const rotate = typed.q.updateTable("WebhookEndpoint").set(rotated).where("id", "=", id).where("secret", "=", current);
  await typed.direct.batch([
    typed.statement(rotate, { expect: { changes: 1, error: () => conflict("The webhook endpoint's secret was rotated meanwhile; try again") } }),
    ...alongside,
  ]);
  return db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
}

// ---- secrets (resealWebhookSecrets)

export type StoredSecrets = Pick<WebhookEndpoint, "id" | "secret" | "previousSecret">;

/** The endpoints with a secret (current or previous) not sealed under `prefix`, the current key's. */
export const endpointsWithSecretsNotSealedWith = (db: Db, prefix: string): Promise<StoredSecrets[]> =>
  db.webhookEndpoint.findMany({
    where: { OR: [{ NOT: { secret: { startsWith: prefix } } }, { previousSecret: { not: null }, NOT: { previousSecret: { startsWith: prefix } } }] },
    select: { id: true, secret: true, previousSecret: true },
  });

/** Writes `sealed` over the endpoint's secrets if they are still `stored`; whether it did. */
export async function replaceSecretsIfUnchanged(db: Db, stored: StoredSecrets, sealed: Omit<StoredSecrets, "id">): Promise<boolean> {
  const { count } = await db.webhookEndpoint.updateMany({
    where: { id: stored.id, secret: stored.secret, previousSecret: stored.previousSecret },
    data: sealed,
  });
  return count === 1;
}

// ---- the webhook worker's batch steps

const liveOfOrganizations = preparedQuery((q, p: { organizationIds: unknown }) =>
  q.selectFrom("WebhookEndpoint").selectAll().where(inListParam(q, "organizationId", p.organizationIds)).where(liveEndpoint),
);

/** The live endpoints of these organizations, as a batch step (fan-out). */
export const liveEndpointsOfStatement = (sql: TypedSql, organizationIds: string[]): Statement =>
  liveOfOrganizations.statement(sql, { organizationIds: sql.direct.listParam(organizationIds) });

const byIds = preparedQuery((q, p: { ids: unknown }) => q.selectFrom("WebhookEndpoint").selectAll().where(inListParam(q, "id", p.ids)));

/** These endpoints, live or not, as a batch step (the endpoints of claimed deliveries). */
export const endpointsByIdStatement = (sql: TypedSql, ids: string[]): Statement => byIds.statement(sql, { ids: sql.direct.listParam(ids) });

/** The endpoints a batch step of this store returned. */
export const endpointRows = (sql: TypedSql, rows: Row[]): WebhookEndpoint[] => byIds.rowsOf(sql, rows);

// ---- lists (db/list-page.ts)

/** Endpoints have no list filters (yet): the caller's are listed. */
export type WebhookEndpointFilters = Record<never, never>;

/** The endpoints a list shows: the caller's that are not deleted. */
const endpointsMatching = listOf<"WebhookEndpoint", InScope<WebhookEndpointFilters>>({
  table: "WebhookEndpoint",
  where: (eb, f) => eb.and({ ...inScope(f), deletedAt: null }),
});

export const listWebhookEndpoints = (ctx: ServiceContext, filters: WebhookEndpointFilters, page: PageRequest) =>
  endpointsMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);

// ---- failing episodes (endpoint-health.ts): since when its attempts fail, and its one notice

/** Ends the failing episode of `ids` (an attempt succeeded): the next failure starts a new one. */
export function endFailingEpisodes(sql: TypedSql, ids: string[]): Statement {
  return sql.statement(
    sql.q
      .updateTable("WebhookEndpoint")
      .set({ failingSince: null, failingNoticeAt: null })
      .where(inListParam(sql.q, "id", sql.direct.listParam(ids)))
      .where("failingSince", "is not", null),
  );
}

/** Starts the failing episode of `ids` at `at`, for those not failing already. */
export function startFailingEpisodes(sql: TypedSql, ids: string[], at: Date): Statement {
  return sql.statement(
    sql.q
      .updateTable("WebhookEndpoint")
      .set({ failingSince: at })
      .where(inListParam(sql.q, "id", sql.direct.listParam(ids)))
      .where("failingSince", "is", null),
  );
}

/** Endpoints (live ones) failing since `failingBefore` or earlier whose episode is not told yet, oldest first. */
export const endpointsFailingUntold = (db: Db, failingBefore: Date, limit: number): Promise<WebhookEndpoint[]> =>
  db.webhookEndpoint.findMany({
    where: { failingSince: { lte: failingBefore }, failingNoticeAt: null, enabled: true, deletedAt: null },
    orderBy: { failingSince: "asc" },
    take: limit,
  });

/**
 * The error of the endpoint's newest delivery that has one, for its notice: down the deliveries'
 * list index from the newest, which stops at once on an endpoint that is failing now.
 */
export async function lastDeliveryError(db: Db, endpoint: Pick<WebhookEndpoint, "id" | "organizationId" | "environment">): Promise<string | null> {
  const delivery = await db.webhookDelivery.findFirst({
    where: { organizationId: endpoint.organizationId, environment: endpoint.environment, endpointId: endpoint.id, lastError: { not: null } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { lastError: true },
  });
  return delivery?.lastError ?? null;
}

/**
 * Marks the episode of `id` as told at `at`, if it still is one failing since `failingBefore` or
 * earlier and nobody told it yet: in the batch that queues the notice, so it is queued once.
 */
export function claimFailingNotice(sql: TypedSql, id: string, failingBefore: Date, at: Date, error: () => Error): Statement {
  return sql.statement(
    sql.q
      .updateTable("WebhookEndpoint")
      .set({ failingNoticeAt: at })
      .where("id", "=", id)
      .where("failingNoticeAt", "is", null)
      .where("failingSince", "<=", failingBefore),
    { expect: { changes: 1, error } },
  );
}

// Every read and write of the ApiKey table. Every request looks its key up by hash: a prepared
// statement (typed-sql.ts says why).
import type { ExpressionBuilder } from "kysely";
import type { ApiKey } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { conflict } from "../../errors.ts";
import { type DB, type TypedSql, everyColumn, inListParam, preparedQuery } from "../../db/typed-sql.ts";

/** A key is usable until it is revoked: the one condition of every read that authorizes and of revocation. */
const unrevoked = (eb: ExpressionBuilder<DB, "ApiKey">) => eb("revokedAt", "is", null);

const byHash = preparedQuery((q, p: { hash: string }) => q.selectFrom("ApiKey").selectAll().where("hash", "=", p.hash).where(unrevoked));
const unrevokedIds = preparedQuery((q, p: { ids: unknown }) =>
  q.selectFrom("ApiKey").select("id").where(inListParam(q, "id", p.ids)).where(unrevoked),
);
const insert = preparedQuery((q, p: ApiKey) => q.insertInto("ApiKey").values(everyColumn("ApiKey", p)));

/**
 * Keys found by hash, each kept at most KEY_CACHE_MS: every API and GraphQL request authenticates,
 * and without it the key row is one query of a GET's two. A revocation made anywhere (another
 * worker, another host, the operator CLI) reaches every process within that time, since no entry
 * outlives it; one made through this process's database client clears its cache at once. Only keys
 * found are kept: a new key works at once, and unknown keys (guesses) never fill the cache.
 * Per database client (a process has one; tests run several apps, each its own host).
 */
const KEY_CACHE_MS = 900;
const MAX_CACHED_KEYS = 10_000;
const keyCaches = new WeakMap<Db, Map<string, { row: ApiKey; until: number }>>();

function keyCacheOf(db: Db) {
  let cache = keyCaches.get(db);
  if (!cache) keyCaches.set(db, (cache = new Map()));
  return cache;
}

/** The unrevoked key whose SHA-256 is `hash`, or null. */
export const unrevokedApiKeyByHash = (db: Db, hash: string): Promise<ApiKey | null> => byHash.first(typedSql(db), { hash });

/** The same, as it was at most KEY_CACHE_MS ago: what authenticates a request (a revocation takes up to that long to be seen). */
export async function recentUnrevokedApiKeyByHash(db: Db, hash: string): Promise<ApiKey | null> {
  const cache = keyCacheOf(db);
  const now = performance.now();
  const cached = cache.get(hash);
  if (cached && cached.until > now) return cached.row;
  const row = await unrevokedApiKeyByHash(db, hash);
  if (!row) {
    cache.delete(hash);
    return null;
  }
  if (cache.size >= MAX_CACHED_KEYS) cache.clear();
  // Timed from before the read: the row may be as old as its query.
  cache.set(hash, { row, until: now + KEY_CACHE_MS });
  return row;
}

/** Of the keys `ids`, those that still exist unrevoked. */
export async function unrevokedApiKeyIds(db: Db, ids: string[]): Promise<Set<string>> {
  const typed = typedSql(db);
  const rows = await unrevokedIds.all(typed, { ids: typed.direct.listParam(ids) });
  return new Set(rows.map((row) => row.id));
}

/** Inserts the key, in one transaction with `alongside` (its audit entry). */
export async function insertApiKey(db: Db, row: ApiKey, alongside: Statement[] = []): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([insert.statement(typed, row), ...alongside]);
}

/** The display prefix of the key `id` (revoked or not), or null. */
export async function apiKeyPrefixById(db: Db, id: string): Promise<string | null> {
  const typed = typedSql(db);
  return (await typed.first(typed.q.selectFrom("ApiKey").select("prefix").where("id", "=", id)))?.prefix ?? null;
}

/** Revokes the unrevoked key with this display prefix; false when there is none. */
const byPrefix = preparedQuery((q, p: { prefix: string }) => q.selectFrom("ApiKey").selectAll().where("prefix", "=", p.prefix).where(unrevoked));

/** The unrevoked key with this display prefix, or null. */
export const unrevokedApiKeyByPrefix = (db: Db, prefix: string): Promise<ApiKey | null> => byPrefix.first(typedSql(db), { prefix });

const PUBLIC_COLUMNS = ["id", "environment", "name", "prefix", "role", "createdAt", "lastUsedAt", "revokedAt"] as const;

/** A key's public columns, and whether a user made it who has since been removed (users are deleted). */
function publicKeys(typed: TypedSql) {
  return typed.q.selectFrom("ApiKey").select((eb) => [
    ...PUBLIC_COLUMNS.map((column) => `ApiKey.${column}` as const),
    eb.and([eb("ApiKey.createdById", "is not", null), eb.not(eb.exists(eb.selectFrom("User").select("User.id").whereRef("User.id", "=", "ApiKey.createdById")))]).as("creatorRemoved"),
  ]);
}

/** PostgreSQL answers booleans, SQLite 0 or 1. */
const withCreatorRemoved = <R extends { creatorRemoved: unknown }>(row: R) => ({ ...row, creatorRemoved: Boolean(Number(row.creatorRemoved)) });

/** An organization's keys (of one environment if given), oldest first, without their hash. */
export async function apiKeysOfOrganization(db: Db, organizationId: string, environment?: string) {
  const typed = typedSql(db);
  let query = publicKeys(typed).where("organizationId", "=", organizationId);
  if (environment) query = query.where("environment", "=", environment);
  return (await typed.all(query.orderBy("createdAt").orderBy("id"))).map(withCreatorRemoved);
}

/** One key of an organization's environment, without its hash, or null. */
export async function apiKeyInEnvironment(db: Db, key: { id: string; organizationId: string; environment: string }) {
  const typed = typedSql(db);
  const row = await typed.first(
    publicKeys(typed).where("id", "=", key.id).where("organizationId", "=", key.organizationId).where("environment", "=", key.environment),
  );
  return row && withCreatorRemoved(row);
}

/** The user who made the key `id` (null for a key of the operator's, or one whose creator was removed before this was recorded). */
export async function apiKeyCreatorId(db: Db, id: string): Promise<string | null> {
  const typed = typedSql(db);
  return (await typed.first(typed.q.selectFrom("ApiKey").select("createdById").where("id", "=", id)))?.createdById ?? null;
}

/** Revokes the unrevoked key `id`, in one transaction with `alongside`; CONFLICT (and nothing written) when it is revoked already. */
export async function revokeApiKeyById(db: Db, id: string, now: Date, alongside: Statement[] = []): Promise<void> {
  const typed = typedSql(db);
  const revoke = typed.q.updateTable("ApiKey").set({ revokedAt: now }).where("id", "=", id).where(unrevoked);
  await typed.direct.batch([typed.statement(revoke, { expect: { changes: 1, error: () => conflict("API key is already revoked") } }), ...alongside]);
  keyCaches.delete(db);
}

/** Revokes the keys `ids`, in one transaction with `alongside`; CONFLICT (and nothing written) when one of them is revoked already. */
export async function revokeApiKeysById(db: Db, ids: string[], now: Date, alongside: Statement[] = []): Promise<void> {
  const typed = typedSql(db);
  const revoke = typed.q.updateTable("ApiKey").set({ revokedAt: now }).where("id", "in", ids).where(unrevoked);
  const changed = () => conflict("Some of these API keys were revoked meanwhile; look again");
  await typed.direct.batch([typed.statement(revoke, { expect: { changes: ids.length, error: changed } }), ...alongside]);
  keyCaches.delete(db);
}

const touch = preparedQuery((q, p: { id: string; now: Date }) => q.updateTable("ApiKey").set({ lastUsedAt: p.now }).where("id", "=", p.id));

/** Records that the key `id` was just used (in its cached row too, or each request would record it again until the entry expires). */
export async function touchApiKey(db: Db, id: string, now: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([touch.statement(typed, { id, now })]);
  for (const { row } of keyCacheOf(db).values()) if (row.id === id) row.lastUsedAt = now;
}

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

/** The unrevoked key whose SHA-256 is `hash`, or null. */
export const unrevokedApiKeyByHash = (db: Db, hash: string): Promise<ApiKey | null> => byHash.first(typedSql(db), { hash });

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
}

/** Revokes the keys `ids`, in one transaction with `alongside`; CONFLICT (and nothing written) when one of them is revoked already. */
export async function revokeApiKeysById(db: Db, ids: string[], now: Date, alongside: Statement[] = []): Promise<void> {
  const typed = typedSql(db);
  const revoke = typed.q.updateTable("ApiKey").set({ revokedAt: now }).where("id", "in", ids).where(unrevoked);
  const changed = () => conflict("Some of these API keys were revoked meanwhile; look again");
  await typed.direct.batch([typed.statement(revoke, { expect: { changes: ids.length, error: changed } }), ...alongside]);
}

const touch = preparedQuery((q, p: { id: string; now: Date }) => q.updateTable("ApiKey").set({ lastUsedAt: p.now }).where("id", "=", p.id));

/** Records that the key `id` was just used. */
export async function touchApiKey(db: Db, id: string, now: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([touch.statement(typed, { id, now })]);
}

// Every read and write of the ApiKey table. Every request looks its key up by hash: a prepared
// statement (typed-sql.ts says why).
import type { ExpressionBuilder } from "kysely";
import type { ApiKey } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import { type DB, everyColumn, inListParam, preparedQuery } from "../../db/typed-sql.ts";

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

export async function insertApiKey(db: Db, row: ApiKey): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([insert.statement(typed, row)]);
}

/** Revokes the unrevoked key with this display prefix; false when there is none. */
export async function revokeApiKeyByPrefix(db: Db, prefix: string, now: Date): Promise<boolean> {
  const typed = typedSql(db);
  const [result] = await typed.direct.batch([
    typed.statement(typed.q.updateTable("ApiKey").set({ revokedAt: now }).where("prefix", "=", prefix).where(unrevoked)),
  ]);
  return result!.changes > 0;
}

/** An organization's keys, oldest first, without their hash. */
export function apiKeysOfOrganization(db: Db, organizationId: string) {
  const typed = typedSql(db);
  return typed.all(
    typed.q
      .selectFrom("ApiKey")
      .select(["id", "environment", "prefix", "createdAt", "revokedAt"])
      .where("organizationId", "=", organizationId)
      .orderBy("createdAt")
      .orderBy("id"),
  );
}

// Every read and write of the IdempotencyRecord table. Every POST with a key passes here, so each
// statement is typed and prepared (db/typed-sql.ts), as on the other hot paths.
import { type SqlBool, sql } from "kysely";
import type { IdempotencyRecord } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import { preparedQuery } from "../../db/typed-sql.ts";

/** The primary key of a record: a key is the API key's own. */
export type IdempotencyKeyOf = {
  apiKeyId: string;
  key: string;
};

const claim = preparedQuery((q, p: IdempotencyKeyOf & { requestHash: string; createdAt: Date }) =>
  q
    .insertInto("IdempotencyRecord")
    .values({ apiKeyId: p.apiKeyId, key: p.key, requestHash: p.requestHash, createdAt: p.createdAt })
    .onConflict((oc) => oc.doNothing()),
);
const byKey = preparedQuery((q, p: IdempotencyKeyOf) =>
  q.selectFrom("IdempotencyRecord").selectAll().where("apiKeyId", "=", p.apiKeyId).where("key", "=", p.key),
);
const deleteCreatedAt = preparedQuery((q, p: IdempotencyKeyOf & { createdAt: Date }) =>
  q.deleteFrom("IdempotencyRecord").where("apiKeyId", "=", p.apiKeyId).where("key", "=", p.key).where("createdAt", "=", p.createdAt),
);
const deleteUnanswered = preparedQuery((q, p: IdempotencyKeyOf) =>
  q.deleteFrom("IdempotencyRecord").where("apiKeyId", "=", p.apiKeyId).where("key", "=", p.key).where("statusCode", "is", null),
);
const answer = preparedQuery((q, p: IdempotencyKeyOf & { statusCode: number; responseBody: string }) =>
  q
    .updateTable("IdempotencyRecord")
    .set({ statusCode: p.statusCode, responseBody: p.responseBody })
    .where("apiKeyId", "=", p.apiKeyId)
    .where("key", "=", p.key),
);
// A chunk at a time, oldest first down the createdAt index, so no purge holds the table for long.
const deleteChunkCreatedBefore = preparedQuery((q, p: { cutoff: Date; limit: number }) =>
  q
    .deleteFrom("IdempotencyRecord")
    .where(() => {
      const chunk = q.selectFrom("IdempotencyRecord").select(["apiKeyId", "key"]).where("createdAt", "<", p.cutoff).orderBy("createdAt").limit(p.limit);
      return sql<SqlBool>`(${sql.ref("apiKeyId")}, ${sql.ref("key")}) IN (${chunk})`;
    }),
);

/** Inserts the record of a key not in use; false if there is one (the key's first request holds it). */
export async function claimIdempotencyKey(db: Db, record: IdempotencyKeyOf & { requestHash: string; createdAt: Date }): Promise<boolean> {
  const typed = typedSql(db);
  const [result] = await typed.direct.batch([claim.statement(typed, record)]);
  return result!.changes === 1;
}

export const findIdempotencyRecord = (db: Db, key: IdempotencyKeyOf): Promise<IdempotencyRecord | null> =>
  byKey.first(typedSql(db), key);

/** Deletes the record if it is still the one created at `createdAt` (not one made since by another request). */
export async function deleteIdempotencyRecord(db: Db, key: IdempotencyKeyOf, createdAt: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([deleteCreatedAt.statement(typed, { ...key, createdAt })]);
}

/** Deletes the record if it has no answer yet: its request gave none to keep. */
export async function releaseIdempotencyKey(db: Db, key: IdempotencyKeyOf): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([deleteUnanswered.statement(typed, key)]);
}

export async function storeIdempotentAnswer(db: Db, key: IdempotencyKeyOf, statusCode: number, responseBody: string): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([answer.statement(typed, { ...key, statusCode, responseBody })]);
}

/** Deletes up to `limit` records created before `cutoff`, the oldest first; returns how many. */
export async function deleteIdempotencyRecordsBefore(db: Db, cutoff: Date, limit: number): Promise<number> {
  const typed = typedSql(db);
  const [result] = await typed.direct.batch([deleteChunkCreatedBefore.statement(typed, { cutoff, limit })]);
  return result!.changes;
}

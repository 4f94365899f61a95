// Every read and write of the DashboardSession table. Every dashboard request finds its session by
// the token's hash: a prepared statement.
import type { ExpressionBuilder } from "kysely";
import type { DashboardSession } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { type DB, everyColumn, inListParam, preparedQuery } from "../../db/typed-sql.ts";

/** A session is live until it is revoked, passes its absolute expiry, or has been idle since `idleSince`. */
const live = (p: { now: unknown; idleSince: unknown }) => (eb: ExpressionBuilder<DB, "DashboardSession">) =>
  eb.and([eb("revokedAt", "is", null), eb("expiresAt", ">", p.now as Date), eb("lastSeenAt", ">", p.idleSince as Date)]);

const byTokenHash = preparedQuery((q, p: { tokenHash: string; now: Date; idleSince: Date }) =>
  q.selectFrom("DashboardSession").selectAll().where("tokenHash", "=", p.tokenHash).where(live(p)),
);
const liveIds = preparedQuery((q, p: { ids: unknown; now: Date; idleSince: Date }) =>
  q.selectFrom("DashboardSession").select("id").where(inListParam(q, "id", p.ids)).where(live(p)),
);
const insert = preparedQuery((q, p: DashboardSession) => q.insertInto("DashboardSession").values(everyColumn("DashboardSession", p)));
const touch = preparedQuery((q, p: { id: string; now: Date }) => q.updateTable("DashboardSession").set({ lastSeenAt: p.now }).where("id", "=", p.id));

export interface Liveness {
  now: Date;
  /** sessions not seen since this moment have expired */
  idleSince: Date;
}

/** The live session whose token hashes to `tokenHash`, or null. */
export const liveSessionByTokenHash = (db: Db, tokenHash: string, at: Liveness): Promise<DashboardSession | null> =>
  byTokenHash.first(typedSql(db), { tokenHash, ...at });

/** Of the sessions `ids`, those still live. */
export async function liveSessionIds(db: Db, ids: string[], at: Liveness): Promise<Set<string>> {
  const typed = typedSql(db);
  const rows = await liveIds.all(typed, { ids: typed.direct.listParam(ids), ...at });
  return new Set(rows.map((row) => row.id));
}

export async function insertSession(db: Db, row: DashboardSession): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([insert.statement(typed, row)]);
}

/** Records that the session was used now (its idle expiry counts from here). */
export async function touchSession(db: Db, id: string, now: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([touch.statement(typed, { id, now })]);
}

export async function revokeSession(db: Db, id: string, now: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([
    typed.statement(typed.q.updateTable("DashboardSession").set({ revokedAt: now }).where("id", "=", id).where("revokedAt", "is", null)),
  ]);
}

/** The statement that revokes every session of the user (but `exceptId`, when given: the caller's own). */
export function revokeOtherSessionsStatement(db: Db, userId: string, exceptId: string | null, now: Date): Statement {
  const typed = typedSql(db);
  let update = typed.q.updateTable("DashboardSession").set({ revokedAt: now }).where("userId", "=", userId).where("revokedAt", "is", null);
  if (exceptId !== null) update = update.where("id", "!=", exceptId);
  return typed.statement(update);
}

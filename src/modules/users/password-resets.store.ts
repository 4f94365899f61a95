// Every read and write of the PasswordReset table.
import type { PasswordReset } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { everyColumn, preparedQuery } from "../../db/typed-sql.ts";

const insert = preparedQuery((q, p: PasswordReset) => q.insertInto("PasswordReset").values(everyColumn("PasswordReset", p)));
const byTokenHash = preparedQuery((q, p: { tokenHash: string }) => q.selectFrom("PasswordReset").selectAll().where("tokenHash", "=", p.tokenHash));

export const insertPasswordResetStatement = (db: Db, row: PasswordReset): Statement => insert.statement(typedSql(db), row);

export const passwordResetByTokenHash = (db: Db, tokenHash: string): Promise<PasswordReset | null> => byTokenHash.first(typedSql(db), { tokenHash });

/** How many resets the user asked for since `since`: the throttle's count. */
export async function resetsRequestedSince(db: Db, userId: string, since: Date): Promise<number> {
  const typed = typedSql(db);
  const rows = await typed.all(typed.q.selectFrom("PasswordReset").select("id").where("userId", "=", userId).where("createdAt", ">", since));
  return rows.length;
}

/** Uses the reset up if it is still unused and unexpired: in the batch that sets the password, so a link works once. */
export function usePasswordResetStatement(db: Db, id: string, now: Date, error: () => Error): Statement {
  const typed = typedSql(db);
  return typed.statement(
    typed.q.updateTable("PasswordReset").set({ usedAt: now }).where("id", "=", id).where("usedAt", "is", null).where("expiresAt", ">", now),
    { expect: { changes: 1, error } },
  );
}

/** Ends every unused reset link of the user: a password set by one link, or changed, leaves no other working. */
export function endPasswordResetsStatement(db: Db, userId: string, now: Date): Statement {
  const typed = typedSql(db);
  return typed.statement(typed.q.updateTable("PasswordReset").set({ usedAt: now }).where("userId", "=", userId).where("usedAt", "is", null));
}

// Every read and write of the User table. Signing in and every dashboard request read a user by
// email or id: prepared statements (src/db/typed-sql.ts says why).
import type { User } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { type QueryBuilder, type TypedSql, everyColumn, preparedQuery } from "../../db/typed-sql.ts";
import { conflict } from "../../errors.ts";

const byEmail = preparedQuery((q, p: { email: string }) => q.selectFrom("User").selectAll().where("email", "=", p.email));
const byId = preparedQuery((q, p: { id: string }) => q.selectFrom("User").selectAll().where("id", "=", p.id));
const insert = preparedQuery((q, p: User) => q.insertInto("User").values(everyColumn("User", p)));

export const userByEmail = (db: Db, email: string): Promise<User | null> => byEmail.first(typedSql(db), { email });
export const userById = (db: Db, id: string): Promise<User | null> => byId.first(typedSql(db), { id });

/** The insert of a user, for a batch that does more (accepting an invitation); the unique email index refuses a taken one. */
export const insertUserStatement = (db: Db, row: User): Statement => insert.statement(typedSql(db), row);

/** Inserts the user; CONFLICT when the email is taken. */
export async function insertUser(db: Db, row: User): Promise<void> {
  const typed = typedSql(db);
  if (await userByEmail(db, row.email)) throw conflict(`email ${row.email} already belongs to a user`);
  try {
    await typed.direct.batch([insert.statement(typed, row)]);
  } catch (error) {
    // Two creations of one email at once: the unique index refuses the second.
    if (await userByEmail(db, row.email)) throw conflict(`email ${row.email} already belongs to a user`);
    throw error;
  }
}

/** An organization's users, oldest first. */
export function usersOfOrganization(db: Db, organizationId: string): Promise<User[]> {
  const typed = typedSql(db);
  return typed.all(typed.q.selectFrom("User").selectAll().where("organizationId", "=", organizationId).orderBy("createdAt").orderBy("id"));
}

/** The users of any of `organizationIds` (the people a page of completed payments' notices may go to). */
export function usersOfOrganizations(db: Db, organizationIds: string[]): Promise<User[]> {
  const typed = typedSql(db);
  return typed.all(typed.q.selectFrom("User").selectAll().where("organizationId", "in", organizationIds).orderBy("createdAt").orderBy("id"));
}

export type NoticeChoices = Pick<User, "notifyPaymentReceived" | "notifyInvoicePaid" | "notifyWebhookFailing">;

/** Sets which notices the user gets by mail (the ones not given stay as they are). */
export async function setNoticeChoices(db: Db, userId: string, choices: Partial<NoticeChoices>, now: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([typed.statement(typed.q.updateTable("User").set({ ...choices, updatedAt: now }).where("id", "=", userId))]);
}

/**
 * The condition that keeps an organization's last owner: the user is not an owner, or another
 * owner remains. Part of the statement that changes the user, so no read goes stale before it.
 */
const keepsAnOwner = (q: QueryBuilder, user: { id: string; organizationId: string }) =>
  q
    .selectFrom("User as other")
    .select((eb) => eb.fn.countAll().as("owners"))
    .where("other.organizationId", "=", user.organizationId)
    .where("other.role", "=", "owner")
    .where("other.id", "!=", user.id);

const lastOwner = () => conflict("An organization must keep at least one owner");

/**
 * The first step of a batch that may take an owner away. SQLite runs one write transaction at a
 * time, so the count in keepsAnOwner is current. PostgreSQL runs them side by side, and two owners
 * demoting each other at once would each count the other: locking the organization's owner rows
 * first makes the second wait, and its count (a new snapshot per statement) then sees the first.
 */
function ownersLocked(typed: TypedSql, organizationId: string): Statement[] {
  if (typed.dialect !== "postgresql") return [];
  return [typed.statement(typed.q.selectFrom("User").select("id").where("organizationId", "=", organizationId).where("role", "=", "owner").forUpdate())];
}

/** Sets the role of the organization's user, in one transaction with `alongside`; refuses (CONFLICT) to demote the last owner. */
export async function setUserRole(db: Db, user: { id: string; organizationId: string }, role: string, now: Date, alongside: Statement[] = []): Promise<void> {
  const typed = typedSql(db);
  const { q } = typed;
  let update = q.updateTable("User").set({ role, updatedAt: now }).where("id", "=", user.id).where("organizationId", "=", user.organizationId);
  if (role !== "owner") update = update.where((eb) => eb.or([eb("role", "!=", "owner"), eb(keepsAnOwner(q, user), ">", 0)]));
  await typed.direct.batch([...ownersLocked(typed, user.organizationId), typed.statement(update, { expect: { changes: 1, error: lastOwner } }), ...alongside]);
}

/** Removes the organization's user and their sessions, in one transaction with `alongside`; refuses (CONFLICT) to remove the last owner. */
export async function deleteUser(db: Db, user: { id: string; organizationId: string }, alongside: Statement[] = []): Promise<void> {
  const typed = typedSql(db);
  const { q } = typed;
  await typed.direct.batch([
    ...ownersLocked(typed, user.organizationId),
    typed.statement(q.deleteFrom("DashboardSession").where("userId", "=", user.id)),
    typed.statement(
      q
        .deleteFrom("User")
        .where("id", "=", user.id)
        .where("organizationId", "=", user.organizationId)
        .where((eb) => eb.or([eb("role", "!=", "owner"), eb(keepsAnOwner(q, user), ">", 0)])),
      { expect: { changes: 1, error: lastOwner } },
    ),
    ...alongside,
  ]);
}

/** The statement that replaces a user's password hash. */
export function setPasswordHashStatement(db: Db, userId: string, passwordHash: string, now: Date): Statement {
  const typed = typedSql(db);
  return typed.statement(typed.q.updateTable("User").set({ passwordHash, updatedAt: now }).where("id", "=", userId));
}

type TwoFactorColumns = Partial<Pick<User, "totpSecret" | "totpEnabledAt" | "recoveryCodeHashes" | "totpLastStep">>;

/**
 * Records `step` as the user's last accepted TOTP step if it is later than the last one: false
 * (nothing written) when a code of that step or a later one was accepted already, even by a
 * request at the same moment. So a code signs in once.
 */
export async function useTotpStep(db: Db, userId: string, step: number, now: Date): Promise<boolean> {
  const typed = typedSql(db);
  const update = typed.q
    .updateTable("User")
    .set({ totpLastStep: step, updatedAt: now })
    .where("id", "=", userId)
    .where((w) => w.or([w("totpLastStep", "is", null), w("totpLastStep", "<", step)]));
  const [result] = await typed.direct.batch([typed.statement(update)]);
  return result!.changes === 1;
}

/**
 * Sets the user's two-factor columns, in one transaction with `alongside` (its audit entry). With
 * `unlessChangedFrom`, only if the recovery codes are still those (a recovery code is used once,
 * even by two logins at the same moment); false otherwise, and nothing is written.
 */
export async function setTwoFactor(
  db: Db,
  userId: string,
  columns: TwoFactorColumns,
  now: Date,
  options: { unlessChangedFrom?: string | null; alongside?: Statement[] } = {},
): Promise<boolean> {
  const typed = typedSql(db);
  const { unlessChangedFrom, alongside = [] } = options;
  let update = typed.q.updateTable("User").set({ ...columns, updatedAt: now }).where("id", "=", userId);
  if (unlessChangedFrom !== undefined) update = update.where("recoveryCodeHashes", unlessChangedFrom === null ? "is" : "=", unlessChangedFrom);
  if (alongside.length === 0) {
    const [result] = await typed.direct.batch([typed.statement(update)]);
    return result!.changes === 1;
  }
  await typed.direct.batch([typed.statement(update, { expect: { changes: 1, error: () => conflict("Two-factor sign-in changed meanwhile; try again") } }), ...alongside]);
  return true;
}

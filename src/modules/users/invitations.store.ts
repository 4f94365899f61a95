// Every read and write of the Invitation table.
import type { Invitation } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { everyColumn, preparedQuery } from "../../db/typed-sql.ts";

const insert = preparedQuery((q, p: Invitation) => q.insertInto("Invitation").values(everyColumn("Invitation", p)));
const byTokenHash = preparedQuery((q, p: { tokenHash: string }) => q.selectFrom("Invitation").selectAll().where("tokenHash", "=", p.tokenHash));

export const insertInvitationStatement = (db: Db, row: Invitation): Statement => insert.statement(typedSql(db), row);

export const invitationByTokenHash = (db: Db, tokenHash: string): Promise<Invitation | null> => byTokenHash.first(typedSql(db), { tokenHash });

/** The organization's invitations neither accepted, revoked nor expired, oldest first. */
export function pendingInvitations(db: Db, organizationId: string, now: Date): Promise<Invitation[]> {
  const typed = typedSql(db);
  return typed.all(
    typed.q
      .selectFrom("Invitation")
      .selectAll()
      .where("organizationId", "=", organizationId)
      .where("acceptedAt", "is", null)
      .where("revokedAt", "is", null)
      .where("expiresAt", ">", now)
      .orderBy("createdAt")
      .orderBy("id"),
  );
}

/** Revokes the organization's pending invitation `id`; false when there is none. */
export async function revokeInvitationRow(db: Db, organizationId: string, id: string, now: Date): Promise<boolean> {
  const typed = typedSql(db);
  const update = typed.q
    .updateTable("Invitation")
    .set({ revokedAt: now })
    .where("id", "=", id)
    .where("organizationId", "=", organizationId)
    .where("acceptedAt", "is", null)
    .where("revokedAt", "is", null);
  const [result] = await typed.direct.batch([typed.statement(update)]);
  return result!.changes === 1;
}

/**
 * Marks the invitation accepted if it still may be (not accepted, revoked nor expired, and its
 * sender still in the organization with one of `senderRoles`): in the batch that creates the user,
 * so two accepts of one link at once create one user, and a sender removed meanwhile stops it.
 */
export function acceptInvitationStatement(
  db: Db,
  invitation: Pick<Invitation, "id" | "organizationId" | "invitedById">,
  senderRoles: string[],
  now: Date,
  error: () => Error,
): Statement {
  const typed = typedSql(db);
  return typed.statement(
    typed.q
      .updateTable("Invitation")
      .set({ acceptedAt: now })
      .where("id", "=", invitation.id)
      .where("acceptedAt", "is", null)
      .where("revokedAt", "is", null)
      .where("expiresAt", ">", now)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("User")
            .select("User.id")
            .where("User.id", "=", invitation.invitedById)
            .where("User.organizationId", "=", invitation.organizationId)
            .where("User.role", "in", senderRoles),
        ),
      ),
    { expect: { changes: 1, error } },
  );
}

/** The statement that revokes every pending invitation `userId` sent (when they are removed from the team). */
export function revokeInvitationsSentByStatement(db: Db, userId: string, now: Date): Statement {
  const typed = typedSql(db);
  return typed.statement(
    typed.q.updateTable("Invitation").set({ revokedAt: now }).where("invitedById", "=", userId).where("acceptedAt", "is", null).where("revokedAt", "is", null),
  );
}

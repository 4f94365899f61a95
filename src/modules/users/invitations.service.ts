// Invitations: an owner or admin invites an address with a role; the mailed link (7 days, one use)
// lets its holder choose a password, which creates the user and signs them in. The link's token is
// stored only as its SHA-256, and the outbox keeps the mail's body sealed (mail.service.ts).
import type { Invitation } from "../../generated/sqlite/client.ts";
import type { Deps, ServiceContext } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { DomainError, badRequest, conflict, forbidden, notFound } from "../../errors.ts";
import { queueMailStatement } from "../mail/mail.service.ts";
import { acceptInvitationStatement, insertInvitationStatement, invitationByTokenHash, pendingInvitations, revokeInvitationRow } from "./invitations.store.ts";
import { hashToken, newToken } from "./link-tokens.ts";
import { hashPassword } from "./passwords.ts";
import { startSession } from "./sessions.service.ts";
import { checkNewPassword, newUserRow, normalizeEmail, parseRole } from "./users.service.ts";
import { insertUserStatement, userByEmail } from "./users.store.ts";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** An invitation as GraphQL shows it: never the token's hash. */
export const publicInvitation = (i: Invitation) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expiresAt, createdAt: i.createdAt });

/** Invites `email` with `role` and mails the link; an admin may not invite an owner. */
export async function inviteUser(ctx: ServiceContext, input: { email: string; role: string }) {
  const email = normalizeEmail(input.email);
  const role = parseRole(input.role);
  const principal = ctx.scope.principal;
  if (principal.kind !== "user") throw badRequest("Only a dashboard session can invite; an API key has no user");
  if (role === "owner" && principal.role !== "owner") throw forbidden("Only an owner can invite an owner");
  if (await userByEmail(ctx.db, email)) throw conflict(`email ${email} already belongs to a user`);
  const token = newToken();
  const now = ctx.clock.now();
  const invitation: Invitation = {
    id: ctx.ids.newId("uinv"),
    organizationId: ctx.scope.organizationId,
    email,
    role,
    tokenHash: hashToken(token),
    invitedById: principal.id,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    acceptedAt: null,
    revokedAt: null,
    createdAt: now,
  };
  const link = `${ctx.config.publicUrl}/dashboard/accept-invite?token=${token}`;
  const mail = {
    kind: "invitation" as const,
    resourceId: invitation.id,
    recipient: email,
    subject: "You are invited to a Stellar Pay dashboard",
    text: `You have been invited to join a Stellar Pay dashboard as ${role}.\n\nChoose your password here (the link works once, for 7 days):\n${link}\n\nIf you did not expect this, ignore this mail.\n`,
  };
  await typedSql(ctx.db).direct.batch([insertInvitationStatement(ctx.db, invitation), queueMailStatement(ctx, ctx.scope, mail)]);
  return publicInvitation(invitation);
}

export const listPendingInvitations = async (ctx: ServiceContext) =>
  (await pendingInvitations(ctx.db, ctx.scope.organizationId, ctx.clock.now())).map(publicInvitation);

export async function revokeInvitation(ctx: ServiceContext, id: string): Promise<void> {
  if (!(await revokeInvitationRow(ctx.db, ctx.scope.organizationId, id, ctx.clock.now()))) throw notFound("Invitation not found, or already accepted or revoked");
}

/** Why a link no longer works, in words the person holding it understands. */
function invitationRefusal(invitation: Invitation | null, now: Date) {
  if (!invitation) return badRequest("token is not a valid invitation link");
  if (invitation.revokedAt) return badRequest("token: this invitation was revoked; ask for a new one");
  if (invitation.acceptedAt) return badRequest("token: this invitation has already been used; sign in instead");
  if (invitation.expiresAt <= now) return badRequest("token: this invitation has expired; ask for a new one");
  return null;
}

/** Accepts an invitation: creates its user with `password` and starts their session. */
export async function acceptInvitation(deps: Deps, input: { token: string; password: string }) {
  checkNewPassword(input.password, "password");
  const invitation = await invitationByTokenHash(deps.db, hashToken(input.token));
  const refused = invitationRefusal(invitation, deps.clock.now());
  if (refused) throw refused;
  const user = newUserRow(deps, {
    organizationId: invitation!.organizationId,
    email: invitation!.email,
    role: invitation!.role,
    passwordHash: await hashPassword(input.password),
  });
  const now = deps.clock.now();
  try {
    await typedSql(deps.db).direct.batch([
      acceptInvitationStatement(deps.db, invitation!.id, now, () => invitationRefusal({ ...invitation!, acceptedAt: now }, now)!),
      insertUserStatement(deps.db, user),
    ]);
  } catch (error) {
    // Someone created a user with this email since the invitation (the unique index refused this one).
    if (!(error instanceof DomainError) && (await userByEmail(deps.db, user.email))) {
      throw conflict(`email ${user.email} already belongs to a user`);
    }
    throw error;
  }
  const { token, session } = await startSession(deps, user.id);
  return { token, session, user };
}

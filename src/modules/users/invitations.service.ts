// Invitations: an owner or admin invites an address with a role; the mailed link (7 days, one use)
// lets its holder choose a password, which creates the user and signs them in. The link's token is
// stored only as its SHA-256, and the outbox keeps the mail's body sealed (mail.service.ts).
import type { Invitation } from "../../generated/sqlite/client.ts";
import type { Deps, ServiceContext } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { DomainError, badRequest, conflict, forbidden, notFound } from "../../errors.ts";
import { queueMailStatement } from "../mail/mail.service.ts";
import { findOrganization } from "../organizations/organizations.store.ts";
import { acceptInvitationStatement, insertInvitationStatement, invitationByTokenHash, pendingInvitations, revokeInvitationRow } from "./invitations.store.ts";
import { hashToken, linkRefusal, newToken } from "./link-tokens.ts";
import { hashPassword } from "./passwords.ts";
import { startSession } from "./sessions.service.ts";
import { checkNewPassword, newUserRow, normalizeEmail, parseRole } from "./users.service.ts";
import { type Role, ROLES, roleAllows } from "./roles.ts";
import { insertUserStatement, userByEmail, userById } from "./users.store.ts";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** An invitation as GraphQL shows it: never the token's hash. */
export const publicInvitation = (i: Invitation) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expiresAt, createdAt: i.createdAt });

/** The subject names who invites and to what, as Slack's and Stripe's invitations do: a mail from nobody to nothing reads as spam. */
const invitationSubject = (inviterEmail: string, organizationName: string) => `${inviterEmail} invited you to ${organizationName} on Stellar Pay`;

/**
 * Invites `email` with `role` and mails the link; an admin may not invite an owner. An address that
 * already has an account (one account per address, in one organization) gets the same answer and
 * the same pending invitation, so the inviter learns nothing of other organizations; but its mail
 * only tells that person someone tried, with no link (nobody holds the token: it opens nothing).
 */
export async function inviteUser(ctx: ServiceContext, input: { email: string; role: string }) {
  const email = normalizeEmail(input.email);
  const role = parseRole(input.role);
  const principal = ctx.scope.principal;
  if (principal.kind !== "user") throw badRequest("Only a dashboard session can invite; an API key has no user");
  if (role === "owner" && principal.role !== "owner") throw forbidden("Only an owner can invite an owner");
  const [existing, inviter, organization] = await Promise.all([userByEmail(ctx.db, email), userById(ctx.db, principal.id), findOrganization(ctx.db, ctx.scope.organizationId)]);
  if (!inviter || !organization) throw forbidden("Your session's user or organization no longer exists");
  // The caller sees their own team: telling them says nothing new.
  if (existing?.organizationId === ctx.scope.organizationId) throw conflict(`email ${email} is already on your team`, { path: ["email"], problem: `${email} is already on your team; change their role on the Team screen instead` });
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
  // The same kind and subject either way: the organization's mail log shows both alike.
  const from = { inviterEmail: inviter.email, organizationName: organization.name, role };
  const text = existing ? attemptText(from) : invitationText(ctx, from, token);
  const mail = { kind: "invitation" as const, resourceId: invitation.id, recipient: email, subject: invitationSubject(inviter.email, organization.name), text };
  await typedSql(ctx.db).direct.batch([insertInvitationStatement(ctx.db, invitation), queueMailStatement(ctx, ctx.scope, mail)]);
  return publicInvitation(invitation);
}

type InvitationSender = { inviterEmail: string; organizationName: string; role: string };

function invitationText(ctx: ServiceContext, from: InvitationSender, token: string) {
  const link = `${ctx.config.publicUrl}/dashboard/accept-invite?token=${token}`;
  return (
    `${from.inviterEmail} invited you to join ${from.organizationName}'s Stellar Pay dashboard as ${from.role}.\n\n` +
    `Choose your password here (the link works once, for 7 days):\n${link}\n\nIf you did not expect this, ignore this mail.\n`
  );
}

function attemptText(from: InvitationSender) {
  return (
    `${from.inviterEmail} tried to invite this address to ${from.organizationName}'s Stellar Pay dashboard as ${from.role}.\n\n` +
    "This address already has an account, and an address belongs to one dashboard, so no link was sent and nothing changed; " +
    "the person who invited you was not told that you have an account.\n\n" +
    "If you want to join them, ask them to invite another address of yours. If you did not expect this, ignore this mail.\n"
  );
}

export const listPendingInvitations = async (ctx: ServiceContext) =>
  (await pendingInvitations(ctx.db, ctx.scope.organizationId, ctx.clock.now())).map(publicInvitation);

export async function revokeInvitation(ctx: ServiceContext, id: string): Promise<void> {
  if (!(await revokeInvitationRow(ctx.db, ctx.scope.organizationId, id, ctx.clock.now()))) throw notFound("Invitation not found, or already accepted or revoked");
}

/** Why a link no longer works, in words the person holding it understands, with what to do. */
function invitationRefusal(invitation: Invitation | null, now: Date) {
  if (!invitation) {
    return linkRefusal(
      "token is not a valid invitation link",
      "This is not an invitation link: copy the whole link from the invitation mail, or ask whoever invited you to send a new one.",
    );
  }
  if (invitation.revokedAt) {
    return linkRefusal("token: this invitation was revoked; ask for a new one", "This invitation was withdrawn: ask whoever invited you to send a new one.");
  }
  if (invitation.acceptedAt) {
    return linkRefusal(
      "token: this invitation has already been used; sign in instead",
      "This invitation has already been used: sign in with its email address and the password chosen then.",
    );
  }
  if (invitation.expiresAt <= now) {
    return linkRefusal(
      "token: this invitation has expired; ask for a new one",
      `This invitation has expired (invitations work for ${INVITATION_TTL_MS / 86_400_000} days): ask whoever invited you to send a new one.`,
    );
  }
  return null;
}

/**
 * The roles whose holder may have sent an invitation of `role`: the team's managers, and only an
 * owner for an owner. An invitation works while its sender still holds one of them, so one planted
 * by a user who is then removed (or demoted) cannot bring anyone back.
 */
export const rolesThatMayInvite = (role: string): Role[] => ROLES.filter((r) => roleAllows(r, "team") && (role !== "owner" || r === "owner"));

const inviterGone = () =>
  linkRefusal(
    "token: this invitation was withdrawn (whoever sent it may no longer invite); ask for a new one",
    "This invitation was withdrawn: whoever sent it may no longer invite. Ask an owner or admin of the team to send a new one.",
  );

/**
 * What the accept page shows before a password is chosen: the organization, who invited, as which
 * role. The link's token is the credential (it is what accepting needs too); a link that no longer
 * works is refused with the same words as accepting it.
 */
export async function previewInvitation(deps: Deps, token: string) {
  const invitation = await invitationByTokenHash(deps.db, hashToken(token));
  const refused = invitationRefusal(invitation, deps.clock.now());
  if (refused) throw refused;
  const [inviter, organization] = await Promise.all([userById(deps.db, invitation!.invitedById), findOrganization(deps.db, invitation!.organizationId)]);
  const senders = rolesThatMayInvite(invitation!.role);
  if (!inviter || !organization || inviter.organizationId !== invitation!.organizationId || !senders.includes(inviter.role as Role)) throw inviterGone();
  return { organizationName: organization.name, inviterEmail: inviter.email, email: invitation!.email, role: invitation!.role as Role, expiresAt: invitation!.expiresAt };
}

/** Accepts an invitation: creates its user with `password` and starts their session. */
export async function acceptInvitation(deps: Deps, input: { token: string; password: string }) {
  checkNewPassword(input.password, "password");
  const invitation = await invitationByTokenHash(deps.db, hashToken(input.token));
  const refused = invitationRefusal(invitation, deps.clock.now());
  if (refused) throw refused;
  const inviter = await userById(deps.db, invitation!.invitedById);
  const senders = rolesThatMayInvite(invitation!.role);
  if (!inviter || inviter.organizationId !== invitation!.organizationId || !senders.includes(inviter.role as Role)) throw inviterGone();
  const user = newUserRow(deps, {
    organizationId: invitation!.organizationId,
    email: invitation!.email,
    role: invitation!.role,
    passwordHash: await hashPassword(input.password),
  });
  const now = deps.clock.now();
  try {
    await typedSql(deps.db).direct.batch([
      // The sender's removal or demotion at this very moment: the statement checks again, and refuses.
      acceptInvitationStatement(deps.db, invitation!, senders, now, () => invitationRefusal({ ...invitation!, acceptedAt: now }, now) ?? inviterGone()),
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

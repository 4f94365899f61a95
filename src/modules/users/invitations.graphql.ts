// GraphQL for the mailed one-time links: invitations to the team (owner/admin), and password resets
// (anyone; the link's token is the credential).
import type { User } from "../../generated/sqlite/client.ts";
import { badRequest } from "../../errors.ts";
import { PUBLIC_FIELD, builder, needs } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { acceptInvitation, inviteUser, previewInvitation, listPendingInvitations, publicInvitation, revokeInvitation } from "./invitations.service.ts";
import { requestPasswordReset, resetPassword } from "./password-resets.service.ts";
import type { Role } from "./roles.ts";
import { sessionCookie, sessionScope } from "./sessions.service.ts";
import { mustSetUpTwoFactor } from "./two-factor.ts";
import { UserRoleEnum, ViewerType } from "./users.graphql.ts";

const InvitationType = builder.objectRef<ReturnType<typeof publicInvitation>>("Invitation").implement({
  description: "An invitation to the dashboard, mailed as a one-time link; pending until accepted, revoked or expired (7 days)",
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    role: t.field({ type: UserRoleEnum, resolve: (i) => i.role as Role }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const InvitationPreviewType = builder.objectRef<Awaited<ReturnType<typeof previewInvitation>>>("InvitationPreview").implement({
  description: "What an invitation link offers, for its accept page: the organization, who sent it, the role",
  fields: (t) => ({
    organizationName: t.exposeString("organizationName"),
    inviterEmail: t.exposeString("inviterEmail"),
    email: t.exposeString("email", { description: "the invited address, the new user's sign-in" }),
    role: t.field({ type: UserRoleEnum, resolve: (i) => i.role }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  invitationPreview: t.field({
    ...PUBLIC_FIELD,
    type: InvitationPreviewType,
    description: "The organization, inviter and role of an invitation link (the token is the credential); refused as acceptInvitation would refuse it",
    args: { token: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => previewInvitation(ctx.deps, args.token),
  }),
  invitations: t.field({
    ...needs("team"),
    type: [InvitationType],
    description: "The organization's pending invitations, oldest first (owner/admin)",
    resolve: (_root, _args, ctx) => listPendingInvitations(requireService(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  inviteUser: t.field({
    ...needs("team"),
    type: InvitationType,
    description: "Invites an address with a role and mails it a link (7 days, one use) that creates the user (owner/admin; only an owner invites an owner)",
    args: { email: t.arg.string({ required: true }), role: t.arg({ type: UserRoleEnum, required: true }) },
    resolve: (_root, args, ctx) => inviteUser(requireService(ctx), args),
  }),
  revokeInvitation: t.boolean({
    ...needs("team"),
    description: "Revokes a pending invitation: its link stops working (owner/admin)",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeInvitation(requireService(ctx), String(args.id));
      return true;
    },
  }),
  acceptInvitation: t.field({
    ...PUBLIC_FIELD,
    type: ViewerType,
    description:
      "Accepts an invitation with the token of its link: creates the user with this password and signs them in (sets the session cookie, like login), in sandbox. Only on /graphql",
    args: { token: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      if (!ctx.setCookie) throw badRequest("acceptInvitation is answered on /graphql only");
      const { token, session, user } = await acceptInvitation(ctx.deps, args);
      ctx.setCookie(sessionCookie(ctx.deps.config, token));
      return { user, scope: sessionScope(session, user as User & { role: Role }, "sandbox", await mustSetUpTwoFactor(ctx.deps, user)), deps: ctx.deps };
    },
  }),
  requestPasswordReset: t.boolean({
    ...PUBLIC_FIELD,
    description:
      "Mails a password reset link (1 hour, one use) if the address has an account, at most 3 an hour. Always true: the answer does not tell whether the address has an account",
    args: { email: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await requestPasswordReset(ctx.deps, args.email);
      return true;
    },
  }),
  resetPassword: t.boolean({
    ...PUBLIC_FIELD,
    description: "Sets a new password with the token of a reset link; every session of the user ends (sign in again)",
    args: { token: t.arg.string({ required: true }), newPassword: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await resetPassword(ctx.deps, args);
      return true;
    },
  }),
}));

// GraphQL for dashboard users: signing in and out (the session cookie), the viewer, the caller's
// password, and the team (owner/admin). Invitations and password resets: invitations.graphql.ts.
import type { User } from "../../generated/sqlite/client.ts";
import type { Deps, Scope } from "../../context.ts";
import { badRequest, unauthorized } from "../../errors.ts";
import { PUBLIC_FIELD, builder, needs } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { EnvironmentEnum } from "../../graphql/shared-types.ts";
import { OrganizationType } from "../organizations/organizations.graphql.ts";
import { organizationOfScope } from "../organizations/organizations.service.ts";
import { ROLES, type Role } from "./roles.ts";
import { clearedSessionCookie, sessionCookie, sessionScope } from "./sessions.service.ts";
import { changePassword, listUsers, login, logout, publicUser, removeUser, updateUserRole } from "./users.service.ts";
import { beginTwoFactorSetup, confirmTwoFactor, mustSetUpTwoFactor } from "./two-factor.ts";
import { disableTwoFactor, setTwoFactorRequired } from "./two-factor-policy.ts";
import { userById } from "./users.store.ts";

export const UserRoleEnum = builder.enumType("UserRole", { values: ROLES });

const DashboardUserType = builder.objectRef<ReturnType<typeof publicUser>>("DashboardUser").implement({
  description: "A person who signs in to the dashboard",
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    role: t.field({ type: UserRoleEnum, resolve: (u) => u.role }),
    twoFactorEnabled: t.exposeBoolean("twoFactorEnabled"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const TwoFactorSetupType = builder.objectRef<{ secret: string; uri: string }>("TwoFactorSetup").implement({
  fields: (t) => ({
    secret: t.exposeString("secret", { description: "base32, for typing into the app" }),
    uri: t.exposeString("uri", { description: "otpauth:// URI, the content of the QR code to scan" }),
  }),
});

interface Viewer {
  user: User | null;
  /** the caller's organization and environment (for login, the new session's) */
  scope: Scope;
  deps: Deps;
}

export const ViewerType = builder.objectRef<Viewer>("Viewer").implement({
  description: "Who is calling: a dashboard user (with a session) or an API key (user is null), in which organization and environment",
  fields: (t) => ({
    user: t.field({ type: DashboardUserType, nullable: true, resolve: (v) => (v.user ? publicUser(v.user) : null) }),
    organization: t.field({ type: OrganizationType, resolve: (v) => organizationOfScope({ ...v.deps, scope: v.scope }) }),
    environment: t.field({ type: EnvironmentEnum, resolve: (v) => v.scope.environment }),
    twoFactorSetupRequired: t.boolean({
      description: "the organization requires two-factor sign-in and this user has not set it up: until then the session may only set it up",
      resolve: (v) => v.scope.principal.kind === "user" && v.scope.principal.mustSetUpTwoFactor,
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    // Any signed-in caller, even a session that must set up two-factor sign-in first.
    ...PUBLIC_FIELD,
    type: ViewerType,
    resolve: async (_root, _args, ctx) => {
      const { db, scope } = requireService(ctx);
      const user = scope.principal.kind === "user" ? await userById(db, scope.principal.id) : null;
      if (scope.principal.kind === "user" && !user) throw unauthorized();
      return { user, scope, deps: ctx.deps };
    },
  }),
  users: t.field({
    ...needs("readTeam"),
    type: [DashboardUserType],
    description: "The organization's dashboard users, oldest first (every role; never an API key)",
    resolve: (_root, _args, ctx) => {
      const service = requireService(ctx);
      return listUsers(service, service.scope.organizationId);
    },
  }),
}));

builder.mutationFields((t) => ({
  login: t.field({
    ...PUBLIC_FIELD,
    type: ViewerType,
    description:
      "Signs in: sets the session cookie (HttpOnly) and answers the viewer, in sandbox. A wrong email or password is UNAUTHENTICATED, repeated failures RATE_LIMITED. Only on /graphql (a stream cannot set a cookie)",
    args: {
      email: t.arg.string({ required: true }),
      password: t.arg.string({ required: true }),
      code: t.arg.string({ description: "with two-factor sign-in on: the authenticator app's code, or a recovery code" }),
    },
    resolve: async (_root, args, ctx) => {
      if (!ctx.setCookie) throw badRequest("login is answered on /graphql only");
      const input = { email: args.email, password: args.password, code: args.code, address: ctx.clientAddress };
      const { token, session, user } = await login(ctx.deps, ctx.deps.loginThrottle, input);
      ctx.setCookie(sessionCookie(ctx.deps.config, token));
      return { user, scope: sessionScope(session, user as User & { role: Role }, "sandbox", await mustSetUpTwoFactor(ctx.deps, user)), deps: ctx.deps };
    },
  }),
  logout: t.boolean({
    ...PUBLIC_FIELD,
    description: "Ends the caller's session on the server and clears its cookie",
    resolve: async (_root, _args, ctx) => {
      await logout(requireService(ctx));
      ctx.setCookie?.(clearedSessionCookie(ctx.deps.config));
      return true;
    },
  }),
  changePassword: t.boolean({
    ...PUBLIC_FIELD,
    description: "Changes the caller's password (the current one is asked); every other session of theirs ends",
    args: { currentPassword: t.arg.string({ required: true }), newPassword: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await changePassword(requireService(ctx), ctx.deps.loginThrottle, { ...args, address: ctx.clientAddress });
      return true;
    },
  }),
  beginTwoFactorSetup: t.field({
    ...PUBLIC_FIELD,
    type: TwoFactorSetupType,
    description: "Starts setting up two-factor sign-in for the caller: the secret for the authenticator app; confirmTwoFactor turns it on",
    resolve: (_root, _args, ctx) => beginTwoFactorSetup(requireService(ctx)),
  }),
  confirmTwoFactor: t.stringList({
    ...PUBLIC_FIELD,
    description: "Turns two-factor sign-in on with the app's current code; answers ten recovery codes, shown only now",
    args: { code: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => confirmTwoFactor(requireService(ctx), args.code),
  }),
  disableTwoFactor: t.boolean({
    ...PUBLIC_FIELD,
    description:
      "Turns the caller's two-factor sign-in off: the password and a code are asked again. Refused (CONFLICT) while the organization requires it",
    args: {
      password: t.arg.string({ required: true }),
      code: t.arg.string({ required: true, description: "the authenticator app's code or a recovery code" }),
    },
    resolve: async (_root, args, ctx) => {
      await disableTwoFactor(requireService(ctx), ctx.deps.loginThrottle, { password: args.password, code: args.code, address: ctx.clientAddress });
      return true;
    },
  }),
  setTwoFactorRequired: t.boolean({
    ...needs("team"),
    description:
      "Requires (or stops requiring) two-factor sign-in of every user of the organization: owners only, with their own on, the password and code again; every owner is mailed. Users without it may then only set it up",
    args: {
      required: t.arg.boolean({ required: true }),
      password: t.arg.string({ required: true, description: "the caller's password, again" }),
      code: t.arg.string({ required: true, description: "the caller's authenticator code or a recovery code" }),
    },
    resolve: async (_root, args, ctx) => {
      await setTwoFactorRequired(requireService(ctx), ctx.deps.loginThrottle, {
        required: args.required,
        password: args.password,
        code: args.code,
        address: ctx.clientAddress,
      });
      return true;
    },
  }),
  updateUserRole: t.field({
    ...needs("team"),
    type: DashboardUserType,
    description:
      "Changes a teammate's role (owner/admin; only an owner changes or makes an owner; the last owner stays). Asks for the caller's password again, and the code with two-factor sign-in on",
    args: {
      id: t.arg.id({ required: true }),
      role: t.arg({ type: UserRoleEnum, required: true }),
      password: t.arg.string({ required: true, description: "the caller's password, again" }),
      code: t.arg.string({ description: "with two-factor sign-in on: the app's code or a recovery code" }),
    },
    resolve: (_root, args, ctx) =>
      updateUserRole(requireService(ctx), ctx.deps.loginThrottle, {
        id: String(args.id),
        role: args.role,
        password: args.password,
        code: args.code,
        address: ctx.clientAddress,
      }),
  }),
  removeUser: t.boolean({
    ...needs("team"),
    description: "Removes a teammate and ends their sessions (owner/admin; only an owner removes an owner; the last owner stays)",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await removeUser(requireService(ctx), String(args.id));
      return true;
    },
  }),
}));

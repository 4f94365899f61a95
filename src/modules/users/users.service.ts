// Dashboard users: created by the operator CLI (the first owner) or by an owner/admin; signing in,
// out, changing one's password, and managing the team's roles.
import type { User } from "../../generated/sqlite/client.ts";
import type { Deps, ServiceContext } from "../../context.ts";
import { badRequest, forbidden, notFound, unauthorized } from "../../errors.ts";
import { randomBase62 } from "../../shared/ids.ts";
import { requireOrganization } from "../organizations/organizations.service.ts";
import { revokeOtherSessionsStatement, revokeSession } from "./dashboard-sessions.store.ts";
import { revokeInvitationsSentByStatement } from "./invitations.store.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, hashPassword } from "./passwords.ts";
import { type Role, ROLES, isRole } from "./roles.ts";
import { startSession } from "./sessions.service.ts";
import { CODE_REQUIRED, WRONG_CODE, codeRefused, wrongPassword, type LoginThrottle, type Reauthentication, passwordMatches, reauthenticate, takeAttempt } from "./reauthentication.ts";
import { endPasswordResetsStatement } from "./password-resets.store.ts";
import { sessionOf } from "./session-user.ts";
import { secondFactorMatches, twoFactorEnabled } from "./two-factor.ts";
import { type NoticeChoices, deleteUser, insertUser, setNoticeChoices, setPasswordHashStatement, setUserRole, userByEmail, userById, usersOfOrganization } from "./users.store.ts";
import { typedSql } from "../../db/client.ts";
import { actorOf, auditStatement } from "../audit/audit.service.ts";
import { ownerNoticeStatements } from "../audit/security-notice.ts";

/** The one answer to a wrong email or password: it does not tell which. */
const LOGIN_REFUSED = "Invalid email or password";

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email as stored: trimmed and lower-cased; BAD_REQUEST naming the field when it is not an address. */
export function normalizeEmail(email: string, field = "email"): string {
  const normalized = email.trim().toLowerCase();
  if (normalized.length > 254 || !EMAIL_PATTERN.test(normalized)) throw badRequest(`${field} must be an email address`, { path: [field], problem: "must be a valid email address" });
  return normalized;
}

export function parseRole(role: string, field = "role"): Role {
  if (!isRole(role)) throw badRequest(`${field} must be one of ${ROLES.join(", ")}`, { path: [field], problem: `must be one of ${ROLES.join(", ")}` });
  return role;
}

export function checkNewPassword(password: string, field: string) {
  const refuse = (problem: string) => badRequest(`${field} ${problem}`, { path: [field], problem });
  if (password.length < MIN_PASSWORD_LENGTH) throw refuse(`must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw refuse(`must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

/** A user as the CLI and GraphQL show them: never the password hash. */
export const publicUser = (user: User) => ({
  id: user.id,
  email: user.email,
  role: user.role as Role,
  twoFactorEnabled: twoFactorEnabled(user),
  createdAt: user.createdAt,
});

/** A new user gets every notice (as the columns' defaults say); they turn off what they do not want. */
const EVERY_NOTICE_ON = { notifyPaymentReceived: true, notifyInvoicePaid: true, notifyWebhookFailing: true } as const;

/** The row of a new user, without two-factor sign-in, with every notice on. */
export function newUserRow(deps: Pick<Deps, "clock" | "ids">, input: Pick<User, "organizationId" | "email" | "role" | "passwordHash">): User {
  const now = deps.clock.now();
  return { id: deps.ids.newId("usr"), ...input, totpSecret: null, totpEnabledAt: null, recoveryCodeHashes: null, totpLastStep: null, ...EVERY_NOTICE_ON, createdAt: now, updatedAt: now };
}

/**
 * Creates a user of the organization. Without a password one is generated and returned (shown
 * once): the operator hands it over, the user changes it.
 */
export async function createUser(deps: Deps, input: { organizationId: string; email: string; role: string; password?: string }) {
  const email = normalizeEmail(input.email);
  const role = parseRole(input.role);
  if (input.password !== undefined) checkNewPassword(input.password, "password");
  await requireOrganization(deps, input.organizationId);
  const password = input.password ?? randomBase62(20);
  const user = newUserRow(deps, { organizationId: input.organizationId, email, role, passwordHash: await hashPassword(password) });
  await insertUser(deps.db, user);
  return { user, generatedPassword: input.password === undefined ? password : null };
}

export const listUsers = async (deps: Deps, organizationId: string) => (await usersOfOrganization(deps.db, organizationId)).map(publicUser);

/**
 * Signs in: a new session for the right email and password (and, with two-factor sign-in on, a
 * code). A wrong email or password is the same UNAUTHENTICATED answer after the same argon2 work; a
 * wrong code counts as a failure too; past LoginThrottle's budgets, RATE_LIMITED before any work.
 */
export async function login(deps: Deps, throttle: LoginThrottle, input: { email: string; password: string; code?: string | null; address: string }) {
  const email = input.email.trim().toLowerCase();
  const attempt = await takeAttempt(throttle, email, input.address, "Too many failed sign-ins for this email or from this address");
  const user = input.password.length > MAX_PASSWORD_LENGTH ? null : await userByEmail(deps.db, email);
  const correct = await passwordMatches(attempt, user?.passwordHash ?? null, input.password);
  if (!user || !correct) throw unauthorized(LOGIN_REFUSED);
  if (twoFactorEnabled(user)) {
    if (!input.code) {
      await attempt.giveBack();
      throw codeRefused(CODE_REQUIRED);
    }
    if (!(await secondFactorMatches(deps, user, input.code))) throw codeRefused(WRONG_CODE);
  }
  await attempt.succeeded();
  const { token, session } = await startSession(deps, user.id);
  return { token, session, user };
}

/** Ends the caller's session on the server. */
export async function logout(ctx: ServiceContext): Promise<void> {
  await revokeSession(ctx.db, sessionOf(ctx.scope).sessionId, ctx.clock.now());
}

/**
 * Changes the caller's password after checking the current one (a wrong one counts as a failed
 * login); every other session of theirs ends, and every reset link of theirs stops working.
 */
export async function changePassword(ctx: ServiceContext, throttle: LoginThrottle, input: { currentPassword: string; newPassword: string; address: string }): Promise<void> {
  const principal = sessionOf(ctx.scope);
  checkNewPassword(input.newPassword, "newPassword");
  const user = await userById(ctx.db, principal.id);
  if (!user) throw unauthorized();
  const attempt = await takeAttempt(throttle, user.email, input.address, "Too many failed attempts");
  if (!(await passwordMatches(attempt, user.passwordHash, input.currentPassword))) {
    throw wrongPassword("currentPassword", "Current password");
  }
  await attempt.giveBack();
  const now = ctx.clock.now();
  const passwordHash = await hashPassword(input.newPassword);
  await typedSql(ctx.db).direct.batch([
    setPasswordHashStatement(ctx.db, user.id, passwordHash, now),
    revokeOtherSessionsStatement(ctx.db, user.id, principal.sessionId, now),
    endPasswordResetsStatement(ctx.db, user.id, now),
  ]);
}

/** The organization's user `id`, or NOT_FOUND; an admin may not touch an owner, nor make one. */
async function teammate(ctx: ServiceContext, id: string, newRole?: Role): Promise<User> {
  const user = await userById(ctx.db, id);
  if (!user || user.organizationId !== ctx.scope.organizationId) throw notFound("User not found");
  const callerRole = ctx.scope.principal.kind === "user" ? ctx.scope.principal.role : null;
  if (callerRole !== "owner" && (user.role === "owner" || newRole === "owner")) throw forbidden("Only an owner can change an owner or make one");
  return user;
}

export async function updateUserRole(ctx: ServiceContext, throttle: LoginThrottle, input: { id: string; role: string } & Reauthentication) {
  const role = parseRole(input.role);
  const user = await teammate(ctx, input.id, role);
  await reauthenticate(ctx, throttle, input);
  const actor = await actorOf(ctx);
  const change = `${user.email} is now ${role} (was ${user.role})`;
  await setUserRole(ctx.db, user, role, ctx.clock.now(), [
    auditStatement(ctx, actor, { action: "user.role_changed", resourceId: user.id, detail: change }),
    ...(await ownerNoticeStatements(ctx, actor, `The role of ${change}`)),
  ]);
  return publicUser({ ...user, role });
}

/**
 * Removes a teammate: in one transaction their sessions end and the invitations they sent and that
 * are still pending are revoked (so none brings them, or anyone, back). The API keys they made keep
 * working until revoked: apiKeys marks them (creatorRemoved), for an owner to revoke at once.
 */
export async function removeUser(ctx: ServiceContext, id: string): Promise<void> {
  const user = await teammate(ctx, id);
  const actor = await actorOf(ctx);
  await deleteUser(ctx.db, user, [
    revokeInvitationsSentByStatement(ctx.db, user.id, ctx.clock.now()),
    auditStatement(ctx, actor, { action: "user.removed", resourceId: user.id, detail: `${user.email} (${user.role})` }),
  ]);
}

/** The notices `user` gets by mail, as the dashboard names them. */
export const mailNoticesOf = (user: NoticeChoices) => ({
  paymentReceived: user.notifyPaymentReceived,
  invoicePaid: user.notifyInvoicePaid,
  webhookFailing: user.notifyWebhookFailing,
});

/** Turns the caller's notices on or off (those not given stay); answers all of them. */
export async function chooseMailNotices(ctx: ServiceContext, input: { paymentReceived?: boolean | null; invoicePaid?: boolean | null; webhookFailing?: boolean | null }) {
  const principal = ctx.scope.principal;
  if (principal.kind !== "user") throw badRequest("Only a dashboard session chooses mail notices; an API key has no mailbox");
  const given = <T>(value: T | null | undefined) => (value === null ? undefined : value);
  await setNoticeChoices(
    ctx.db,
    principal.id,
    { notifyPaymentReceived: given(input.paymentReceived), notifyInvoicePaid: given(input.invoicePaid), notifyWebhookFailing: given(input.webhookFailing) },
    ctx.clock.now(),
  );
  const user = await userById(ctx.db, principal.id);
  if (!user) throw unauthorized();
  return mailNoticesOf(user);
}

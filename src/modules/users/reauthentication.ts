// Proving again to be the session's user before a sensitive action (a role, a settlement wallet, a
// live key): the password, and the code with two-factor sign-in on. Failures count as failed logins.
import type { ServiceContext } from "../../context.ts";
import { badRequest, tooManyRequests, unauthorized } from "../../errors.ts";
import { MAX_PASSWORD_LENGTH, verifyPassword } from "./passwords.ts";
import { secondFactorMatches, twoFactorEnabled } from "./two-factor.ts";
import { sessionOf } from "./session-user.ts";
import { userById } from "./users.store.ts";

/** Counts failed logins per email and per address (src/gate/rate-limit.ts keeps the counts). */
export interface LoginThrottle {
  /** Refused when the email or the address has failed too often; asked before the password is checked. */
  check(email: string, address: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  failed(email: string, address: string): Promise<void>;
  /** A correct password clears the email's count (not the address's). */
  succeeded(email: string): Promise<void>;
}

/** What login answers a user with two-factor sign-in who sent no code: the dashboard then asks for one. */
export const CODE_REQUIRED = "A code from your authenticator app (or a recovery code) is required";

/** What a sensitive action asks for again: the password, and the code with two-factor sign-in on. */
export interface Reauthentication {
  password: string;
  code?: string | null;
  /** the caller's address: failures count against the login throttle, as a login's do */
  address: string;
}

/**
 * Whoever holds a session must still prove to be its user before a sensitive action (changing
 * roles, a settlement wallet, a live key): the password again, and the code. Failures count
 * as failed logins, so a stolen session cannot guess the password faster than a login could.
 */
export async function reauthenticate(ctx: ServiceContext, throttle: LoginThrottle, input: Reauthentication): Promise<void> {
  const principal = sessionOf(ctx.scope);
  const user = await userById(ctx.db, principal.id);
  if (!user) throw unauthorized();
  const throttled = await throttle.check(user.email, input.address);
  if (!throttled.allowed) throw tooManyRequests(`Too many failed attempts; try again in ${throttled.retryAfterSeconds} seconds`);
  const passwordOk = await verifyPassword(user.passwordHash, input.password.slice(0, MAX_PASSWORD_LENGTH));
  const codeOk = passwordOk && (!twoFactorEnabled(user) || (!!input.code && (await secondFactorMatches(ctx, user, input.code))));
  if (passwordOk && codeOk) return;
  await throttle.failed(user.email, input.address);
  throw unauthorized(passwordOk ? (input.code ? "Invalid code" : CODE_REQUIRED) : "password is not the current password");
}

/**
 * For a sensitive action open to API keys too (a settlement wallet, a live key): a session user
 * gives the password (and code) again; a key goes on as before, having no password to give.
 */
export async function reauthenticateSessionUser(ctx: ServiceContext, throttle: LoginThrottle, input: { password?: string | null; code?: string | null; address: string }) {
  if (ctx.scope.principal.kind !== "user") return;
  if (!input.password) throw badRequest("password: give your password again to make this change");
  await reauthenticate(ctx, throttle, { password: input.password, code: input.code, address: input.address });
}


// Proving again to be the session's user before a sensitive action (a role, a settlement wallet, a
// live key): the password, and the code with two-factor sign-in on. Failures count as failed logins.
import type { ServiceContext } from "../../context.ts";
import { DomainError, badRequest, tooManyRequests, unauthorized } from "../../errors.ts";
import { MAX_PASSWORD_LENGTH, busy, passwordWorkHasRoom, verifyPassword } from "./passwords.ts";
import { secondFactorMatches, twoFactorEnabled } from "./two-factor.ts";
import { sessionOf } from "./session-user.ts";
import { userById } from "./users.store.ts";
import { waitInWords } from "../../shared/wait-words.ts";

/**
 * Counts sign-in attempts per email, per address and per (email, address) (src/gate/rate-limit.ts
 * keeps the counts). An attempt takes its point before the password or code is checked, so that
 * requests sent together cannot get past a budget.
 */
export interface LoginThrottle {
  attempt(email: string, address: string): Promise<LoginAttempt>;
}

export type LoginAttempt = { allowed: false; retryAfterSeconds: number } | AllowedAttempt;

export interface AllowedAttempt {
  allowed: true;
  /** the attempt did not fail (a right password still waiting for its code): its point back */
  giveBack(): Promise<void>;
  /** signed in: its point back, and the address is known for the email from now on */
  succeeded(): Promise<void>;
}

/**
 * Takes an attempt from the throttle, or RATE_LIMITED with `what` and the wait; or, when argon2 has
 * no room for one more caller, RATE_LIMITED as busy before anything is taken.
 */
export async function takeAttempt(throttle: LoginThrottle, email: string, address: string, what: string): Promise<AllowedAttempt> {
  if (!passwordWorkHasRoom()) throw busy();
  const attempt = await throttle.attempt(email, address);
  if (!attempt.allowed) throw tooManyRequests(`${what}; try again in ${waitInWords(attempt.retryAfterSeconds)}`);
  return attempt;
}

/** What login answers a user with two-factor sign-in who sent no code: the dashboard then asks for one. */
export const CODE_REQUIRED = "A code from your authenticator app (or a recovery code) is required";
/** A code that is not the app's current one nor an unused recovery code: said beside the code's field. */
/** A refused or missing code, about the code's field (the dashboard asks for it as a step of its own). */
export const codeRefused = (message: string) => new DomainError("UNAUTHENTICATED", message, { path: ["code"], problem: message, words: message });
export const WRONG_CODE = "Authentication code: this is not the code your app shows now, nor an unused recovery code";
/** A password given again that is not the user's: said beside the field that took it. */
export const wrongPassword = (field: string, label: string) =>
  new DomainError("UNAUTHENTICATED", `${label}: this is not your current password`, {
    path: [field],
    problem: "is not your current password",
    words: `${label}: this is not your current password`,
  });

/** What a sensitive action asks for again: the password, and the code with two-factor sign-in on. */
export interface Reauthentication {
  password: string;
  code?: string | null;
  /** the caller's address: failures count against the login throttle, as a login's do */
  address: string;
}

/**
 * The password check of an allowed attempt. When argon2 is too busy to run it (RATE_LIMITED),
 * nothing was tried: the attempt's point goes back.
 */
export async function passwordMatches(attempt: AllowedAttempt, passwordHash: string | null, password: string): Promise<boolean> {
  try {
    return await verifyPassword(passwordHash, password.slice(0, MAX_PASSWORD_LENGTH));
  } catch (error) {
    await attempt.giveBack();
    throw error;
  }
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
  const attempt = await takeAttempt(throttle, user.email, input.address, "Too many failed attempts");
  const passwordOk = await passwordMatches(attempt, user.passwordHash, input.password);
  const codeOk = passwordOk && (!twoFactorEnabled(user) || (!!input.code && (await secondFactorMatches(ctx, user, input.code))));
  if (passwordOk && codeOk) return attempt.succeeded();
  if (passwordOk && !input.code) await attempt.giveBack();
  if (!passwordOk) throw wrongPassword("password", "Password");
  throw codeRefused(input.code ? WRONG_CODE : CODE_REQUIRED);
}

/**
 * For a sensitive action open to API keys too (a live key): a session user gives the password (and
 * code) again; a key goes on as before, having no password to give.
 */
export async function reauthenticateSessionUser(ctx: ServiceContext, throttle: LoginThrottle, input: { password?: string | null; code?: string | null; address: string }) {
  if (ctx.scope.principal.kind !== "user") return;
  if (!input.password) throw badRequest("password: give your password again to make this change", { path: ["password"], problem: "give your password again to make this change" });
  await reauthenticate(ctx, throttle, { password: input.password, code: input.code, address: input.address });
}


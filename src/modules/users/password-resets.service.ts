// Password reset by email: asking always answers the same (no one learns whether an address has an
// account); for a user, a one-time link good for 1 hour is mailed, at most RESETS_PER_HOUR times an
// hour. Using it sets the password and ends every session of the user. The token is stored only as
// its SHA-256, and the outbox keeps the mail's body sealed (mail.service.ts).
import type { PasswordReset } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { queueMailStatement } from "../mail/mail.service.ts";
import { revokeOtherSessionsStatement } from "./dashboard-sessions.store.ts";
import { hashToken, linkRefusal, newToken } from "./link-tokens.ts";
import { hashPassword } from "./passwords.ts";
import { endPasswordResetsStatement, insertPasswordResetStatement, passwordResetByTokenHash, resetsRequestedSince, usePasswordResetStatement } from "./password-resets.store.ts";
import { checkNewPassword, normalizeEmail } from "./users.service.ts";
import { setPasswordHashStatement, userByEmail, userById } from "./users.store.ts";

export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
/** mails per user and hour: enough for a lost mail or two, too few to flood an inbox */
export const RESETS_PER_HOUR = 3;

/** Mails a reset link when `email` is a user's and the throttle allows; answers nothing either way. */
export async function requestPasswordReset(deps: Deps, email: string): Promise<void> {
  // A mistyped address is said at once; a well-formed one is answered the same whether or not it is a user's.
  const user = await userByEmail(deps.db, normalizeEmail(email));
  if (!user) return;
  const now = deps.clock.now();
  if ((await resetsRequestedSince(deps.db, user.id, new Date(now.getTime() - 60 * 60 * 1000))) >= RESETS_PER_HOUR) return;
  const token = newToken();
  const reset: PasswordReset = {
    id: deps.ids.newId("pwr"),
    userId: user.id,
    tokenHash: hashToken(token),
    expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS),
    usedAt: null,
    createdAt: now,
  };
  const link = `${deps.config.publicUrl}/dashboard/reset-password?token=${token}`;
  const mail = {
    kind: "password_reset" as const,
    resourceId: user.id,
    recipient: user.email,
    subject: "Reset your Stellar Pay password",
    text: `Someone asked to reset the password of your Stellar Pay dashboard account.\n\nChoose a new password here (the link works once, for 1 hour):\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
  };
  // The dashboard's own mail: listed with the organization's sandbox mail, where a session starts.
  const scope = { organizationId: user.organizationId, environment: "sandbox" };
  await typedSql(deps.db).direct.batch([insertPasswordResetStatement(deps.db, reset), queueMailStatement(deps, scope, mail)]);
}

const refusal = (reset: PasswordReset | null, now: Date) => {
  if (!reset) return linkRefusal("token is not a valid password reset link", "This is not a password reset link: copy the whole link from the mail, or ask for a new one");
  if (reset.usedAt) return linkRefusal("token: this link has already been used; ask for a new one", "This link has already been used: ask for a new one");
  if (reset.expiresAt <= now) return linkRefusal("token: this link has expired; ask for a new one", "This link has expired (links work for 1 hour): ask for a new one");
  return null;
};

/** Sets the password of the link's user and ends every session of theirs, and every other link of theirs. */
export async function resetPassword(deps: Deps, input: { token: string; newPassword: string }): Promise<void> {
  checkNewPassword(input.newPassword, "newPassword");
  const reset = await passwordResetByTokenHash(deps.db, hashToken(input.token));
  const refused = refusal(reset, deps.clock.now());
  if (refused) throw refused;
  if (!(await userById(deps.db, reset!.userId))) throw refusal(null, deps.clock.now())!;
  const passwordHash = await hashPassword(input.newPassword);
  const now = deps.clock.now();
  await typedSql(deps.db).direct.batch([
    usePasswordResetStatement(deps.db, reset!.id, now, () => refusal({ ...reset!, usedAt: now }, now)!),
    setPasswordHashStatement(deps.db, reset!.userId, passwordHash, now),
    revokeOtherSessionsStatement(deps.db, reset!.userId, null, now),
    endPasswordResetsStatement(deps.db, reset!.userId, now),
  ]);
}

// Turning two-factor sign-in off, and an owner requiring it of everyone: the changes that weaken or
// enforce an account's second factor, each after the password and code again (reauthentication.ts).
import type { ServiceContext } from "../../context.ts";
import { conflict, forbidden, unauthorized } from "../../errors.ts";
import { actorOf, auditStatement } from "../audit/audit.service.ts";
import { ownerNoticeStatements } from "../audit/security-notice.ts";
import { findOrganization, saveRequireTwoFactor } from "../organizations/organizations.store.ts";
import { type LoginThrottle, type Reauthentication, reauthenticate } from "./reauthentication.ts";
import { sessionOf } from "./session-user.ts";
import { twoFactorEnabled } from "./two-factor.ts";
import { setTwoFactor, userById } from "./users.store.ts";

/**
 * Turns two-factor sign-in off, after the password and a code again (whoever holds the session must
 * not be able to weaken the account). Refused while the organization requires it.
 */
export async function disableTwoFactor(ctx: ServiceContext, throttle: LoginThrottle, input: Reauthentication): Promise<void> {
  const user = await userById(ctx.db, sessionOf(ctx.scope).id);
  if (!user) throw unauthorized();
  if ((await findOrganization(ctx.db, user.organizationId))?.requireTwoFactor) {
    throw conflict("Your organization requires two-factor sign-in: an owner must stop requiring it before you can turn yours off");
  }
  await reauthenticate(ctx, throttle, input);
  const entry = auditStatement(ctx, await actorOf(ctx), { action: "two_factor.disabled", resourceId: user.id });
  await setTwoFactor(ctx.db, user.id, { totpSecret: null, totpEnabledAt: null, recoveryCodeHashes: null }, ctx.clock.now(), { alongside: [entry] });
}

/**
 * An owner requires (or stops requiring) two-factor sign-in of every user of the organization. Users
 * without it keep their sessions, which may then only set it up. The owner must have it on first
 * (nobody locks the organization out), gives the password and code again, and every owner is mailed.
 */
export async function setTwoFactorRequired(ctx: ServiceContext, throttle: LoginThrottle, input: Reauthentication & { required: boolean }): Promise<void> {
  const principal = sessionOf(ctx.scope);
  if (principal.role !== "owner") throw forbidden("Only an owner may require two-factor sign-in");
  const user = await userById(ctx.db, principal.id);
  if (!user) throw unauthorized();
  if (input.required && !twoFactorEnabled(user)) throw conflict("Turn on your own two-factor sign-in before requiring it of everyone");
  await reauthenticate(ctx, throttle, input);
  const actor = await actorOf(ctx);
  const change = input.required ? "Two-factor sign-in is now required of every user" : "Two-factor sign-in is no longer required";
  await saveRequireTwoFactor(ctx.db, ctx.scope.organizationId, input.required, [
    auditStatement(ctx, actor, { action: input.required ? "two_factor.required" : "two_factor.no_longer_required", resourceId: ctx.scope.organizationId }),
    ...(await ownerNoticeStatements(ctx, actor, change)),
  ]);
}

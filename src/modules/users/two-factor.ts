// Two-factor sign-in with an authenticator app (TOTP, RFC 6238: 6 digits, 30 s, SHA-1, what every
// app reads), and ten recovery codes shown once. The TOTP secret is stored sealed, like webhook
// secrets; recovery codes only as SHA-256 hashes, each usable once.
import { createHash } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import type { User } from "../../generated/sqlite/client.ts";
import type { Deps, ServiceContext } from "../../context.ts";
import { badRequest, conflict, unauthorized } from "../../errors.ts";
import { randomFrom } from "../../shared/ids.ts";
import { secretBoxOf } from "../../webhooks/secret-box.ts";
import { actorOf, auditStatement } from "../audit/audit.service.ts";
import { findOrganization } from "../organizations/organizations.store.ts";
import { sessionOf } from "./session-user.ts";
import { setTwoFactor, useTotpStep, userById } from "./users.store.ts";

const RECOVERY_CODES = 10;
const ISSUER = "Stellar Pay";

const totpOf = (secret: string, email: string) => new TOTP({ issuer: ISSUER, label: email, secret: Secret.fromBase32(secret) });
const hashCode = (code: string) => createHash("sha256").update(code).digest("hex");

// Recovery codes are read off paper and typed by people: lower case without the look-alikes 0/o and
// 1/l/i, in groups of four (xxxx-xxxx-xxxx, about 59 bits; each works once, behind the sign-in limits).
const RECOVERY_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";
const newRecoveryCode = () => randomFrom(RECOVERY_ALPHABET, 12).replace(/(.{4})(?=.)/g, "$1-");
/** A typed recovery code as it is hashed: any case, with or without the dashes and spaces. */
const normalRecoveryCode = (typed: string) => typed.toLowerCase().replace(/[\s-]/g, "");

export const twoFactorEnabled = (user: Pick<User, "totpEnabledAt">) => user.totpEnabledAt !== null;

/** Whether the user's organization requires two-factor sign-in and the user has none yet. */
export async function mustSetUpTwoFactor(deps: Pick<Deps, "db">, user: Pick<User, "totpEnabledAt" | "organizationId">): Promise<boolean> {
  return !twoFactorEnabled(user) && (await findOrganization(deps.db, user.organizationId))?.requireTwoFactor === true;
}

const TOTP_PERIOD_MS = 30_000;

/** The 30-second step of `code` when it is a current TOTP code (one step either side, for clock drift); else null. */
function totpStepOf(deps: Deps, user: User, code: string): number | null {
  if (!user.totpSecret || !/^\d{6}$/.test(code)) return null;
  const secret = secretBoxOf(deps.config).open(user.totpSecret);
  const now = deps.clock.now().getTime();
  const delta = totpOf(secret, user.email).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / TOTP_PERIOD_MS) + delta;
}

/**
 * Checks a signing-in user's second factor: a TOTP code not used before (its step is then used up,
 * with every earlier one), or an unused recovery code (then used up). False when neither matches.
 */
export async function secondFactorMatches(deps: Deps, user: User, code: string): Promise<boolean> {
  const step = totpStepOf(deps, user, code.trim());
  if (step !== null) return useTotpStep(deps.db, user.id, step, deps.clock.now());
  const hashes: string[] = JSON.parse(user.recoveryCodeHashes ?? "[]");
  // Codes issued before the current format were hashed exactly as shown (mixed-case base62).
  const used = [hashCode(normalRecoveryCode(code)), hashCode(code.trim())].find((hash) => hashes.includes(hash));
  if (!used) return false;
  return setTwoFactor(deps.db, user.id, { recoveryCodeHashes: JSON.stringify(hashes.filter((h) => h !== used)) }, deps.clock.now(), { unlessChangedFrom: user.recoveryCodeHashes });
}

/** Starts (or restarts) setting up two-factor sign-in: a new secret, for the app (as an otpauth:// URI, a QR code's content). */
export async function beginTwoFactorSetup(ctx: ServiceContext): Promise<{ secret: string; uri: string }> {
  const user = await userById(ctx.db, sessionOf(ctx.scope).id);
  if (!user) throw unauthorized();
  if (twoFactorEnabled(user)) throw conflict("Two-factor sign-in is already on; turn it off first");
  const secret = new Secret({ size: 20 }).base32;
  await setTwoFactor(ctx.db, user.id, { totpSecret: secretBoxOf(ctx.config).sealText(secret) }, ctx.clock.now());
  return { secret, uri: totpOf(secret, user.email).toString() };
}

/** Turns two-factor sign-in on with a code from the app; answers the recovery codes, shown only now. */
export async function confirmTwoFactor(ctx: ServiceContext, code: string): Promise<string[]> {
  const user = await userById(ctx.db, sessionOf(ctx.scope).id);
  if (!user) throw unauthorized();
  if (twoFactorEnabled(user)) throw conflict("Two-factor sign-in is already on");
  if (!user.totpSecret) throw badRequest("Begin the setup first (beginTwoFactorSetup)");
  const step = totpStepOf(ctx, user, code.trim());
  if (step === null) {
    throw badRequest("code is not the authenticator app's current code", {
      path: ["code"],
      problem: "is not the authenticator app's current code",
      words: "Authentication code: this is not the code your app shows now",
    });
  }
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  const entry = auditStatement(ctx, await actorOf(ctx), { action: "two_factor.enabled", resourceId: user.id });
  // The confirming code is used up: it cannot sign in afterwards.
  const columns = { totpEnabledAt: ctx.clock.now(), recoveryCodeHashes: JSON.stringify(codes.map((c) => hashCode(normalRecoveryCode(c)))), totpLastStep: step };
  await setTwoFactor(ctx.db, user.id, columns, ctx.clock.now(), {
    alongside: [entry],
  });
  return codes;
}

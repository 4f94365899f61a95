// Dashboard sessions: a random token in an HttpOnly cookie, stored only as its SHA-256. A session
// ends by logout, by a password change (the user's other sessions), after SESSION_IDLE_MS without a
// request, or SESSION_ABSOLUTE_MS after login, whichever comes first.
import type { DashboardSession, User } from "../../generated/sqlite/client.ts";
import type { Config } from "../../config.ts";
import type { Deps, Environment, Scope } from "../../context.ts";
import { badRequest } from "../../errors.ts";
import { type Liveness, insertSession, liveSessionByTokenHash, touchSession } from "./dashboard-sessions.store.ts";
import { hashToken, newToken } from "./link-tokens.ts";
import { type Role, isRole } from "./roles.ts";
import { mustSetUpTwoFactor } from "./two-factor.ts";
import { userById } from "./users.store.ts";

const SESSION_COOKIE = "sp_session";
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/** lastSeenAt is written at most this often per session: not a write per request */
const TOUCH_EVERY_MS = 60 * 1000;

/** The header that picks a session's environment per request (an API key names its own). */
export const ENVIRONMENT_HEADER = "service-environment";

export const sessionLiveness = (now: Date): Liveness => ({ now, idleSince: new Date(now.getTime() - SESSION_IDLE_MS) });

/** Starts a session for the user; the token is returned once, for the cookie. */
export async function startSession(deps: Deps, userId: string): Promise<{ token: string; session: DashboardSession }> {
  const token = newToken();
  const now = deps.clock.now();
  const session: DashboardSession = {
    id: deps.ids.newId("ses"),
    userId,
    tokenHash: hashToken(token),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
    revokedAt: null,
  };
  await insertSession(deps.db, session);
  return { token, session };
}

/** The session and its user for a cookie's token, or null (unknown, revoked, expired, user removed). */
export async function sessionOfToken(
  deps: Deps,
  token: string,
): Promise<{ session: DashboardSession; user: User & { role: Role }; mustSetUpTwoFactor: boolean } | null> {
  const now = deps.clock.now();
  const session = await liveSessionByTokenHash(deps.db, hashToken(token), sessionLiveness(now));
  if (!session) return null;
  const user = await userById(deps.db, session.userId);
  if (!user || !isRole(user.role)) return null;
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await touchSession(deps.db, session.id, now);
  return { session, user: user as User & { role: Role }, mustSetUpTwoFactor: await mustSetUpTwoFactor(deps, user) };
}

/** The environment a session's request asks for: `Service-Environment`, sandbox when absent. */
export function requestedEnvironment(header: string | null): Environment {
  if (header === null || header === "sandbox") return "sandbox";
  if (header === "production") return "production";
  throw badRequest("Service-Environment must be sandbox or production");
}

/** The scope of a session's request. */
export const sessionScope = (
  session: DashboardSession,
  user: User & { role: Role },
  environment: Environment,
  mustSetUpTwoFactor: boolean,
): Scope => ({
  organizationId: user.organizationId,
  environment,
  principal: { kind: "user", id: user.id, role: user.role, sessionId: session.id, mustSetUpTwoFactor },
});

/** The session token in a Cookie header, or null. */
export function sessionTokenOf(cookieHeader: string | null): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=") || null;
  }
  return null;
}

const cookieAttributes = (config: Pick<Config, "publicUrl">) =>
  `Path=/; HttpOnly; SameSite=Lax${config.publicUrl.startsWith("https:") ? "; Secure" : ""}`;

/** The Set-Cookie of a new session: it lasts as long as the session's absolute expiry. */
export const sessionCookie = (config: Pick<Config, "publicUrl">, token: string) =>
  `${SESSION_COOKIE}=${token}; ${cookieAttributes(config)}; Max-Age=${SESSION_ABSOLUTE_MS / 1000}`;

/** The Set-Cookie that removes the session cookie from the browser. */
export const clearedSessionCookie = (config: Pick<Config, "publicUrl">) => `${SESSION_COOKIE}=; ${cookieAttributes(config)}; Max-Age=0`;

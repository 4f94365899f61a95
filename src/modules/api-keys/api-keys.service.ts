// API keys are stored only as a SHA-256 hash plus a display prefix; the full key is returned once.
import { createHash } from "node:crypto";
import { type Deps, type Environment, type Principal, type Scope, type ServiceContext, inScope } from "../../context.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { badRequest, forbidden, notFound } from "../../errors.ts";
import { actorOf, auditStatement, auditStatementIn, operatorActor } from "../audit/audit.service.ts";
import { ownerNoticeStatements } from "../audit/security-notice.ts";
import { type LoginThrottle, reauthenticateSessionUser } from "../users/reauthentication.ts";
import { KEY_ROLES, type KeyRole, isKeyRole, keyRolesUpTo } from "../users/roles.ts";
import { randomBase62 } from "../../shared/ids.ts";
import {
  apiKeyCreatorId,
  apiKeyInEnvironment,
  apiKeysOfOrganization,
  insertApiKey,
  revokeApiKeyById,
  revokeApiKeysById,
  unrevokedApiKeyByPrefix,
  touchApiKey,
  recentUnrevokedApiKeyByHash,
} from "./api-keys.store.ts";

/** A key begins with its environment's prefix: the key says which environment it opens. */
const ENVIRONMENT_PREFIX: Record<Environment, string> = { sandbox: "pk_test_", production: "pk_live_" };
const KEY_PATTERN = /^pk_(test|live)_[0-9A-Za-z]{32}$/;
/** what is stored and shown of a key: its environment prefix and 8 characters */
const PREFIX_LENGTH = ENVIRONMENT_PREFIX.sandbox.length + 8;

/**
 * `lastUsedAt` is written at most once a minute per key: a write on every request would cost every
 * request a commit, and "last used" to the minute is what a merchant reads it for.
 */
const LAST_USED_RESOLUTION_MS = 60_000;
const NAME_MAX_LENGTH = 100;

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");
const keyEnvironment = (key: string): Environment => (key.startsWith(ENVIRONMENT_PREFIX.sandbox) ? "sandbox" : "production");

/** A new key (returned in full this once) and its stored row's public part; `alongside(id)` is written with it. */
async function issueApiKey(
  deps: Deps,
  input: { organizationId: string; environment: Environment; name?: string | null; role: KeyRole; createdById: string | null },
  alongside: (keyId: string) => Statement[] = () => [],
) {
  const name = input.name?.trim() || null;
  if (name && name.length > NAME_MAX_LENGTH) throw badRequest(`name must be at most ${NAME_MAX_LENGTH} characters`, { path: ["name"], problem: `must be at most ${NAME_MAX_LENGTH} characters` });
  const key = `${ENVIRONMENT_PREFIX[input.environment]}${randomBase62(32)}`;
  const row = {
    id: deps.ids.newId("key"),
    organizationId: input.organizationId,
    environment: input.environment,
    name,
    prefix: key.slice(0, PREFIX_LENGTH),
    hash: hashKey(key),
    role: input.role,
    createdById: input.createdById,
    createdAt: deps.clock.now(),
    lastUsedAt: null,
    revokedAt: null,
  };
  await insertApiKey(deps.db, row, alongside(row.id));
  const { hash: _hash, organizationId: _org, ...publicPart } = row;
  // A new key's creator is the caller: not removed.
  return { key, apiKey: { ...publicPart, creatorRemoved: false } };
}

/** The operator's key (the admin CLI: `org create`, `key create`), logged as theirs: an admin key, made by no user. */
export async function createApiKey(deps: Deps, input: { organizationId: string; environment: Environment }) {
  const actor = operatorActor(deps);
  const issued = await issueApiKey(deps, { ...input, role: "admin", createdById: null }, (keyId) => [
    auditStatementIn(deps, input, actor, { action: "api_key.created", resourceId: keyId }),
  ]);
  return issued.key;
}

/**
 * The role a caller asks a new key to have: at most the caller's own (a session's role, or the
 * calling key's). Absent: the highest the caller may give.
 */
function keyRoleFor(principal: Principal, asked: string | null | undefined): KeyRole {
  const allowed = keyRolesUpTo(principal.role);
  if (asked === null || asked === undefined) {
    if (!allowed[0]) throw forbidden(`The role ${principal.role} may not create API keys`);
    return allowed[0];
  }
  if (!isKeyRole(asked)) throw badRequest(`role must be one of ${KEY_ROLES.join(", ")}`, { path: ["role"], problem: `must be one of ${KEY_ROLES.join(", ")}` });
  if (!allowed.includes(asked)) {
    const who = principal.kind === "key" ? `${principal.role} key` : principal.role;
    throw forbidden(`role: a ${who} may create ${allowed.join(" or ")} keys only (a key is at most its creator's role)`, {
      path: ["role"],
      problem: `choose ${allowed.join(" or ")}: a key's role is at most yours (${who})`,
    });
  }
  return asked;
}

/**
 * A new key for the caller's organization, in the caller's environment only: a sandbox caller
 * cannot make a production key. Its role is at most the caller's. A live key opens the merchant's
 * money: a session user gives the password again, and every owner is told.
 */
export async function createApiKeyInScope(
  ctx: ServiceContext,
  throttle: LoginThrottle,
  input: { environment: Environment; name?: string | null; role?: string | null; password?: string | null; code?: string | null; address: string },
) {
  const own = ctx.scope.environment;
  if (input.environment !== own) throw badRequest(`environment: a ${own} caller creates ${own} keys only`);
  const principal = ctx.scope.principal;
  const role = keyRoleFor(principal, input.role);
  const live = own === "production";
  if (live) await reauthenticateSessionUser(ctx, throttle, input);
  const actor = await actorOf(ctx);
  const notice = live ? await ownerNoticeStatements(ctx, actor, `A live (production) ${role} API key was created`) : [];
  // A key made with a key has that key's creator: removing the user marks both.
  const createdById = principal.kind === "user" ? principal.id : await apiKeyCreatorId(ctx.db, principal.id);
  const issueInput = { organizationId: ctx.scope.organizationId, environment: own, name: input.name, role, createdById };
  return issueApiKey(ctx, issueInput, (keyId) => [
    auditStatement(ctx, actor, { action: "api_key.created", resourceId: keyId, detail: [input.name?.trim(), role].filter(Boolean).join(", ") }),
    ...notice,
  ]);
}

/** The caller's environment's keys, oldest first: never the key or its hash. */
export const apiKeysOfScope = (ctx: ServiceContext) => apiKeysOfOrganization(ctx.db, ctx.scope.organizationId, ctx.scope.environment);

/** Revokes a key of the caller's environment (the caller's own included); another's is not found. */
export async function revokeApiKeyInScope(ctx: ServiceContext, id: string) {
  const key = await apiKeyInEnvironment(ctx.db, { id, ...inScope(ctx.scope) });
  if (!key) throw notFound();
  const now = ctx.clock.now();
  const actor = await actorOf(ctx);
  await revokeApiKeyById(ctx.db, id, now, [auditStatement(ctx, actor, { action: "api_key.revoked", resourceId: id, detail: key.prefix })]);
  return { ...key, revokedAt: now };
}

/** Revokes, in one transaction, every unrevoked key of the caller's environment whose creator has been removed; answers them. */
export async function revokeApiKeysOfRemovedUsers(ctx: ServiceContext) {
  const orphans = (await apiKeysOfScope(ctx)).filter((key) => key.creatorRemoved && !key.revokedAt);
  if (orphans.length === 0) return [];
  const now = ctx.clock.now();
  const actor = await actorOf(ctx);
  await revokeApiKeysById(
    ctx.db,
    orphans.map((key) => key.id),
    now,
    orphans.map((key) => auditStatement(ctx, actor, { action: "api_key.revoked", resourceId: key.id, detail: `${key.prefix} (its creator was removed)` })),
  );
  return orphans.map((key) => ({ ...key, revokedAt: now }));
}

/** The operator revokes a key by its display prefix (the admin CLI's `key revoke`), logged as theirs. */
export async function revokeApiKey(deps: Deps, input: { prefix: string }) {
  const key = await unrevokedApiKeyByPrefix(deps.db, input.prefix);
  if (!key) throw badRequest(`key-prefix ${input.prefix} names no active key`);
  const entry = auditStatementIn(deps, key, operatorActor(deps), { action: "api_key.revoked", resourceId: key.id, detail: key.prefix });
  await revokeApiKeyById(deps.db, key.id, deps.clock.now(), [entry]);
}

/** An organization's keys, oldest first, by display prefix: never the key or its hash. */
export async function listApiKeys(deps: Deps, organizationId: string) {
  const rows = await apiKeysOfOrganization(deps.db, organizationId);
  return rows.map((row) => ({
    id: row.id,
    environment: row.environment,
    prefix: row.prefix,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
  }));
}

/** The caller's scope, or null for a missing, malformed, unknown or revoked key. */
export async function authenticateApiKey(deps: Deps, key: string | null | undefined): Promise<Scope | null> {
  if (!key || !KEY_PATTERN.test(key)) return null;
  const row = await recentUnrevokedApiKeyByHash(deps.db, hashKey(key));
  if (!row || row.environment !== keyEnvironment(key)) return null;
  const now = deps.clock.now();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) await touchApiKey(deps.db, row.id, now);
  // A role the code does not know (a hand-edited row) opens nothing.
  if (!isKeyRole(row.role)) return null;
  return { organizationId: row.organizationId, environment: row.environment as Environment, principal: { kind: "key", id: row.id, role: row.role } };
}

/** `Authorization: Bearer <key>` -> the key, or null. */
export function bearerToken(header: string | null): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

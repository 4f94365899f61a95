// API keys are stored only as a SHA-256 hash plus a display prefix; the full key is returned once.
import { createHash } from "node:crypto";
import type { Deps, Environment, Scope } from "../../context.ts";
import { badRequest } from "../../errors.ts";
import { randomBase62 } from "../../shared/ids.ts";
import { apiKeysOfOrganization, insertApiKey, revokeApiKeyByPrefix, unrevokedApiKeyByHash } from "./api-keys.store.ts";

/** A key begins with its environment's prefix: the key says which environment it opens. */
const ENVIRONMENT_PREFIX: Record<Environment, string> = { sandbox: "pk_test_", production: "pk_live_" };
const KEY_PATTERN = /^pk_(test|live)_[0-9A-Za-z]{32}$/;
/** what is stored and shown of a key: its environment prefix and 8 characters */
const PREFIX_LENGTH = ENVIRONMENT_PREFIX.sandbox.length + 8;

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");
const keyEnvironment = (key: string): Environment => (key.startsWith(ENVIRONMENT_PREFIX.sandbox) ? "sandbox" : "production");

export async function createApiKey(deps: Deps, input: { organizationId: string; environment: Environment }) {
  const key = `${ENVIRONMENT_PREFIX[input.environment]}${randomBase62(32)}`;
  await insertApiKey(deps.db, {
    id: deps.ids.newId("key"),
    organizationId: input.organizationId,
    environment: input.environment,
    prefix: key.slice(0, PREFIX_LENGTH),
    hash: hashKey(key),
    createdAt: deps.clock.now(),
    revokedAt: null,
  });
  return key;
}

export async function revokeApiKey(deps: Deps, input: { prefix: string }) {
  const revoked = await revokeApiKeyByPrefix(deps.db, input.prefix, deps.clock.now());
  if (!revoked) throw badRequest(`key-prefix ${input.prefix} names no active key`);
}

/** An organization's keys, oldest first, by display prefix: never the key or its hash. */
export async function listApiKeys(deps: Deps, organizationId: string) {
  const rows = await apiKeysOfOrganization(deps.db, organizationId);
  return rows.map((row) => ({
    id: row.id,
    environment: row.environment,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
  }));
}

/** The caller's scope, or null for a missing, malformed, unknown or revoked key. */
export async function authenticateApiKey(deps: Deps, key: string | null | undefined): Promise<Scope | null> {
  if (!key || !KEY_PATTERN.test(key)) return null;
  const row = await unrevokedApiKeyByHash(deps.db, hashKey(key));
  if (!row || row.environment !== keyEnvironment(key)) return null;
  return { organizationId: row.organizationId, environment: row.environment as Environment, apiKeyId: row.id };
}

/** `Authorization: Bearer <key>` -> the key, or null. */
export function bearerToken(header: string | null): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

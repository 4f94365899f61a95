// API keys are stored only as a SHA-256 hash plus a display prefix; the full key is returned once.
import { createHash } from "node:crypto";
import type { Deps, Environment, Scope } from "../../context.ts";
import { hotReads } from "../../db/hot-reads.ts";
import { badRequest } from "../../errors.ts";
import { randomBase62 } from "../../shared/ids.ts";

const KEY_PATTERN = /^pk_(test|live)_[0-9A-Za-z]{32}$/;
const PREFIX_LENGTH = "pk_test_".length + 8;

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");
const keyEnvironment = (key: string): Environment => (key.startsWith("pk_test_") ? "sandbox" : "production");

export async function createApiKey(deps: Deps, input: { organizationId: string; environment: Environment }) {
  const key = `${input.environment === "sandbox" ? "pk_test_" : "pk_live_"}${randomBase62(32)}`;
  await deps.db.apiKey.create({
    data: {
      id: deps.ids.newId("key"),
      organizationId: input.organizationId,
      environment: input.environment,
      prefix: key.slice(0, PREFIX_LENGTH),
      hash: hashKey(key),
      createdAt: deps.clock.now(),
    },
  });
  return key;
}

export async function revokeApiKey(deps: Deps, input: { prefix: string }) {
  const { count } = await deps.db.apiKey.updateMany({
    where: { prefix: input.prefix, revokedAt: null },
    data: { revokedAt: deps.clock.now() },
  });
  if (count === 0) throw badRequest(`key-prefix ${input.prefix} names no active key`);
}

/** An organization's keys, oldest first, by display prefix: never the key or its hash. */
export async function listApiKeys(deps: Deps, organizationId: string) {
  const rows = await deps.db.apiKey.findMany({
    where: { organizationId },
    select: { id: true, environment: true, prefix: true, createdAt: true, revokedAt: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
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
  const row = await hotReads(deps.db).apiKeyByHash(hashKey(key));
  if (!row || row.revokedAt || row.environment !== keyEnvironment(key)) return null;
  return { organizationId: row.organizationId, environment: row.environment as Environment, apiKeyId: row.id };
}

/** `Authorization: Bearer <key>` -> the key, or null. */
export function bearerToken(header: string | null): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/** Of the keys `ids`, those that still exist unrevoked: what open streams re-check (src/gate/credentials.ts). */
export async function unrevokedApiKeyIds(deps: Deps, ids: string[]): Promise<Set<string>> {
  const rows = await deps.db.apiKey.findMany({ where: { id: { in: ids }, revokedAt: null }, select: { id: true } });
  return new Set(rows.map((row) => row.id));
}

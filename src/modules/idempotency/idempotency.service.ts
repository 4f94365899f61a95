// Idempotency-Key (decisions, as Stripe): the first response to a key is stored per API key for 24 h
// and replayed byte-for-byte; the same key with another request is 409. The record is inserted
// BEFORE the work runs, so the primary key (apiKeyId, key) decides the one request that does the
// work, on SQLite and PostgreSQL alike; concurrent duplicates wait for its stored response.
// 5xx outcomes are not stored (the record is released) so that a retry can succeed. Both doors
// call it: REST's Idempotency-Key header (rest/api.ts) and GraphQL's idempotencyKey argument
// (graphql/idempotent-create.ts); checkout transactions use it to pay once per payment.
import { createHash } from "node:crypto";
import type { Deps } from "../../context.ts";
import { badRequest, conflict } from "../../errors.ts";
import {
  claimIdempotencyKey,
  deleteIdempotencyRecord,
  deleteIdempotencyRecordsBefore,
  findIdempotencyRecord,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
} from "./idempotency.store.ts";

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** How long a duplicate waits for the first request before giving up with 409. */
const WAIT_LIMIT_MS = 30_000;
/** An unfinished record older than this belongs to a request that died (crash): it is taken over. */
const ABANDONED_AFTER_MS = 5 * 60_000;

export interface StoredResponse {
  status: number;
  body: string;
}

export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  /** requestFingerprint(...) of everything that makes the request what it is */
  requestHash: string;
  /** for answers that reveal a secret (a new webhook signing secret): the answer is stored encrypted */
  sealAnswer?: { sealText(text: string): string; open(stored: string): string };
}

export function checkIdempotencyKey(key: string): string {
  if (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw badRequest("Idempotency-Key must be 1 to 255 characters");
  return key;
}

export const requestFingerprint = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("hex");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `execute` once per (apiKeyId, key): the first caller runs it and stores its answer; every
 * other caller with the same request gets that answer (`replayed: true`), waiting for it if needed.
 */
export async function runIdempotently(
  deps: Pick<Deps, "db" | "clock">,
  request: IdempotentRequest,
  execute: () => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const key = { apiKeyId: request.apiKeyId, key: request.key };
  const waitStarted = Date.now();
  let pause = 5;
  for (;;) {
    if (await claimIdempotencyKey(deps.db, { ...key, requestHash: request.requestHash, createdAt: deps.clock.now() })) break;
    const existing = await findIdempotencyRecord(deps.db, key);
    if (!existing) continue; // the first request released the key (5xx): claim it again
    const age = deps.clock.now().getTime() - existing.createdAt.getTime();
    if (age >= IDEMPOTENCY_TTL_MS || (existing.statusCode === null && age >= ABANDONED_AFTER_MS)) {
      await deleteIdempotencyRecord(deps.db, key, existing.createdAt);
      continue;
    }
    if (existing.requestHash !== request.requestHash) {
      throw conflict("Idempotency-Key was already used with a different request");
    }
    if (existing.statusCode !== null) {
      const body = existing.responseBody ?? "";
      // An answer stored before answers were sealed is its plain JSON.
      const sealed = request.sealAnswer && !body.startsWith("{");
      return { response: { status: existing.statusCode, body: sealed ? request.sealAnswer!.open(body) : body }, replayed: true };
    }
    if (Date.now() - waitStarted > WAIT_LIMIT_MS) {
      throw conflict("A request with this Idempotency-Key is still being processed");
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 100);
  }

  // The original failure matters more than a failed release; an orphan is taken over later.
  const release = () => releaseIdempotencyKey(deps.db, key).catch(() => undefined);
  let response: StoredResponse;
  try {
    response = await execute();
  } catch (error) {
    await release();
    throw error;
  }
  if (response.status >= 500) await release();
  else await storeIdempotentAnswer(deps.db, key, response.status, request.sealAnswer ? request.sealAnswer.sealText(response.body) : response.body);
  return { response, replayed: false };
}

/**
 * Deletes up to `limit` records past their 24 h, the oldest first; for the retention purger, which
 * calls it chunk after chunk (expired ones are also replaced on reuse). Returns how many.
 */
export async function deleteExpiredIdempotencyRecords(deps: Pick<Deps, "db" | "clock">, limit: number): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - IDEMPOTENCY_TTL_MS);
  return deleteIdempotencyRecordsBefore(deps.db, cutoff, limit);
}

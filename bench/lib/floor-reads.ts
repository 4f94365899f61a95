// The reads the floor servers make (bench/floor.ts), with prepared statements straight on the
// service's SQLite file (DB_PATH): the caller's API key by its hash, the payment by id, and a page of
// the caller's payments newest first (on the list's own index).
import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import { rowConverter } from "../../src/db/direct-sql.ts";
import type { Payment } from "../../src/generated/sqlite/client.ts";

const db = new BetterSqlite3(process.env.DB_PATH!, { readonly: true });
const apiKey = db.prepare(`SELECT "id", "organizationId", "environment" FROM "ApiKey" WHERE "hash" = ?`);
const payment = db.prepare(`SELECT * FROM "Payment" WHERE "id" = ?`).safeIntegers(true);
const newestPayments = db
  .prepare(`SELECT * FROM "Payment" WHERE "organizationId" = ? AND "environment" = ? ORDER BY "createdAt" DESC, "id" DESC LIMIT ?`)
  .safeIntegers(true);
const toPayment = rowConverter<Payment>("Payment");

export interface KeyOwner {
  id: string;
  organizationId: string;
  environment: string;
}

/** The organization and environment of the key `Authorization: Bearer <key>` names; undefined for none. */
export const keyOwner = (authorization: string | null | undefined): KeyOwner | undefined =>
  apiKey.get(createHash("sha256").update((authorization ?? "").slice("Bearer ".length)).digest("hex")) as KeyOwner | undefined;

export const paymentById = (id: string): Payment | null => toPayment(payment.get(id) as Record<string, unknown> | undefined) ?? null;

/** The owner's newest `limit` payments, and whether more follow (one row more is read to know). */
export function newestPaymentsOf(owner: KeyOwner, limit: number): { payments: Payment[]; hasMore: boolean } {
  const rows = newestPayments.all(owner.organizationId, owner.environment, limit + 1) as Record<string, unknown>[];
  return { payments: rows.slice(0, limit).map((row) => toPayment(row)!), hasMore: rows.length > limit };
}

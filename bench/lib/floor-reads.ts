// The two reads every floor server makes (bench/floor.ts), with prepared statements straight on the
// service's SQLite file (DB_PATH): the caller's API key by its hash, and the payment by id.
import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import { rowConverter } from "../../src/db/direct-sql.ts";
import type { Payment } from "../../src/generated/sqlite/client.ts";

const db = new BetterSqlite3(process.env.DB_PATH!, { readonly: true });
const apiKey = db.prepare(`SELECT "organizationId" FROM "ApiKey" WHERE "hash" = ?`);
const payment = db.prepare(`SELECT * FROM "Payment" WHERE "id" = ?`).safeIntegers(true);
const toPayment = rowConverter<Payment>("Payment");

/** Whether `Authorization: Bearer <key>` names a stored key. */
export const knownKey = (authorization: string | null | undefined): boolean =>
  apiKey.get(createHash("sha256").update((authorization ?? "").slice("Bearer ".length)).digest("hex")) !== undefined;

export const paymentById = (id: string): Payment | null => toPayment(payment.get(id) as Record<string, unknown> | undefined) ?? null;

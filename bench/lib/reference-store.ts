// The plain reference's database work (bench/reads.ts, #29): what any server answering these requests
// must do and no more, written as a developer would without a framework, with nothing of src/.
// - the caller: SHA-256 of the API key, then the key row (with its environment's settlement wallet,
//   which a create needs) by its hash, one prepared statement;
// - GET by id: the payment row by id within the key's organization and environment;
// - the first list page: the key's 20 newest payments on the (organizationId, environment,
//   createdAt, id) index, one row more to know whether more follow;
// - POST: one durable INSERT of the payment row per request (no batching across requests).
// SQLite: better-sqlite3 in WAL mode with synchronous = FULL, as the service commits. PostgreSQL:
// `pg` with named (server-side prepared) statements on a pool of 10 connections.
// DATABASE_URL is the service's own: `file:<path>` or `postgresql://...?schema=<schema>`.
import { createHash, randomBytes } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";

/** A payment row with the driver's types smoothed over: amounts bigint, dates Date, booleans boolean. */
export interface PaymentRow {
  id: string;
  amount: bigint;
  settlementAssetCode: string;
  settlementAssetIssuer: string | null;
  allowedAssets: string;
  paidAssetCode: string | null;
  paidAssetIssuer: string | null;
  status: string;
  description: string | null;
  metadata: string | null;
  sourceType: string;
  customerId: string | null;
  payerAddress: string | null;
  txHash: string | null;
  confirmedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  amountReceived: bigint;
  amountRefunded: bigint;
  late: boolean;
  failureReason: string | null;
  pricingCurrency: string | null;
  pricingAmount: string | null;
  settlementAddress: string;
  networkPassphrase: string;
  memoId: string;
}

export interface KeyOwner {
  id: string;
  organizationId: string;
  environment: string;
  settlementAddress: string | null;
}

export interface NewPayment {
  amount: bigint;
  description: string | null;
  metadata: string | null;
}

export interface ReferenceStore {
  keyOwner(authorization: string | null | undefined): Promise<KeyOwner | undefined>;
  paymentById(owner: KeyOwner, id: string): Promise<PaymentRow | undefined>;
  newestPayments(owner: KeyOwner, limit: number): Promise<{ rows: PaymentRow[]; hasMore: boolean }>;
  insertPayment(owner: KeyOwner, payment: NewPayment): Promise<PaymentRow>;
}

const KEY = `SELECT k."id", k."organizationId", k."environment", s."settlementAddress" FROM "ApiKey" k
  LEFT JOIN "EnvironmentSettings" s ON s."organizationId" = k."organizationId" AND s."environment" = k."environment"
  WHERE k."hash" = $1 AND k."revokedAt" IS NULL`;
const BY_ID = `SELECT * FROM "Payment" WHERE "id" = $1 AND "organizationId" = $2 AND "environment" = $3`;
const NEWEST = `SELECT * FROM "Payment" WHERE "organizationId" = $1 AND "environment" = $2 ORDER BY "createdAt" DESC, "id" DESC LIMIT $3`;
const INSERT = `INSERT INTO "Payment" ("id", "organizationId", "environment", "amount", "settlementAssetCode", "allowedAssets",
  "status", "description", "metadata", "sourceType", "settlementAddress", "networkPassphrase", "memoId", "expiresAt", "createdAt", "updatedAt")
  VALUES ($1, $2, $3, $4, 'XLM', '[{"code":"XLM","issuer":null}]', 'pending', $5, $6, 'direct', $7, $8, $9, $10, $11, $12)`;

const PASSPHRASES: Record<string, string> = {
  sandbox: "Test SDF Network ; September 2015",
  production: "Public Global Stellar Network ; September 2015",
};
const HOUR_MS = 3_600_000;

const hashOf = (authorization: string | null | undefined) =>
  createHash("sha256").update((authorization ?? "").slice("Bearer ".length)).digest("hex");

/** A new payment's own columns: a random id and a random 63-bit memo id (unique in the table). */
function newPaymentColumns(owner: KeyOwner, payment: NewPayment) {
  if (!owner.settlementAddress) throw new Error("the key's environment has no settlement wallet");
  const createdAt = new Date();
  return {
    id: `pay_${randomBytes(12).toString("base64url")}`,
    memoId: (randomBytes(8).readBigUInt64BE() >> 1n).toString(),
    passphrase: PASSPHRASES[owner.environment]!,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + HOUR_MS),
    settlementAddress: owner.settlementAddress,
  };
}

function sqliteStore(path: string): ReferenceStore {
  const db = new BetterSqlite3(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  // Each $N appears once, in order: SQLite's `?`s bind the same values.
  const sql = (text: string) => db.prepare(text.replace(/\$\d+/g, "?"));
  const key = sql(KEY);
  const byId = sql(BY_ID).safeIntegers(true);
  const newest = sql(NEWEST).safeIntegers(true);
  const insert = sql(INSERT);
  // Prisma's SQLite adapter stores dates as ISO text with +00:00; integers come back as bigint.
  const storedDate = (date: Date) => date.toISOString().replace("Z", "+00:00");
  const date = (value: unknown) => (value == null ? null : new Date(value as string));
  const toRow = (raw: Record<string, unknown>): PaymentRow => ({
    ...(raw as unknown as PaymentRow),
    confirmedAt: date(raw.confirmedAt),
    expiresAt: date(raw.expiresAt),
    createdAt: new Date(raw.createdAt as string),
    late: raw.late === 1n,
  });
  return {
    keyOwner: async (authorization) => key.get(hashOf(authorization)) as KeyOwner | undefined,
    async paymentById(owner, id) {
      const raw = byId.get(id, owner.organizationId, owner.environment) as Record<string, unknown> | undefined;
      return raw && toRow(raw);
    },
    async newestPayments(owner, limit) {
      const raws = newest.all(owner.organizationId, owner.environment, limit + 1) as Record<string, unknown>[];
      return { rows: raws.slice(0, limit).map(toRow), hasMore: raws.length > limit };
    },
    async insertPayment(owner, payment) {
      const c = newPaymentColumns(owner, payment);
      insert.run(c.id, owner.organizationId, owner.environment, payment.amount, payment.description, payment.metadata,
        c.settlementAddress, c.passphrase, c.memoId, storedDate(c.expiresAt), storedDate(c.createdAt), storedDate(c.createdAt));
      return insertedRow(c, payment);
    },
  };
}

function postgresStore(url: string): ReferenceStore {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? "public";
  parsed.searchParams.delete("schema");
  // TIMESTAMP(3) holds UTC without a zone: read it as UTC, never local time; BIGINT as bigint.
  const types = {
    getTypeParser: (oid: number, format?: "text" | "binary") =>
      oid === 1114 ? (s: string) => new Date(`${s.replace(" ", "T")}Z`) : oid === 20 ? (s: string) => BigInt(s) : pg.types.getTypeParser(oid, format),
  };
  // A pool of 10 as the service's own prepared statements use (src/db/direct-sql.ts); each connection
  // prepares a named statement the first time it runs it.
  const pool = new pg.Pool({ connectionString: parsed.toString(), max: 10, options: `-c search_path="${schema}"`, types });
  const query = async <T>(name: string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows as T[];
  return {
    keyOwner: async (authorization) => (await query<KeyOwner>("key", KEY, [hashOf(authorization)]))[0],
    paymentById: async (owner, id) => (await query<PaymentRow>("by_id", BY_ID, [id, owner.organizationId, owner.environment]))[0],
    async newestPayments(owner, limit) {
      const rows = await query<PaymentRow>("newest", NEWEST, [owner.organizationId, owner.environment, limit + 1]);
      return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
    },
    async insertPayment(owner, payment) {
      const c = newPaymentColumns(owner, payment);
      await query("insert", INSERT, [c.id, owner.organizationId, owner.environment, payment.amount.toString(), payment.description,
        payment.metadata, c.settlementAddress, c.passphrase, c.memoId, c.expiresAt.toISOString(), c.createdAt.toISOString(), c.createdAt.toISOString()]);
      return insertedRow(c, payment);
    },
  };
}

function insertedRow(c: ReturnType<typeof newPaymentColumns>, payment: NewPayment): PaymentRow {
  return {
    id: c.id, amount: payment.amount, settlementAssetCode: "XLM", settlementAssetIssuer: null, allowedAssets: '[{"code":"XLM","issuer":null}]',
    paidAssetCode: null, paidAssetIssuer: null, status: "pending", description: payment.description, metadata: payment.metadata,
    sourceType: "direct", customerId: null, payerAddress: null, txHash: null, confirmedAt: null, expiresAt: c.expiresAt,
    createdAt: c.createdAt, amountReceived: 0n, amountRefunded: 0n, late: false, failureReason: null, pricingCurrency: null,
    pricingAmount: null, settlementAddress: c.settlementAddress, networkPassphrase: c.passphrase, memoId: c.memoId,
  };
}

export const openReferenceStore = (databaseUrl: string): ReferenceStore =>
  databaseUrl.startsWith("file:") ? sqliteStore(databaseUrl.slice("file:".length)) : postgresStore(databaseUrl);

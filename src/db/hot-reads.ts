// The reads on the API's hot paths go straight to the driver: the API key of every request, the
// payment of GET /payments/{id}, and the organization settings every create checks. Measured: Prisma 6.19's client engine spends about 1 ms of CPU
// per query on this machine (query compilation in WebAssembly, no plan cache) against ~0.02 ms for a
// prepared statement, and the read path's figure depends on it. Rows are converted to exactly the
// model types Prisma returns, using Prisma's own datamodel; test/hot-reads.test.ts compares the two.
// Every write still goes through Prisma.
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { ApiKey, EnabledAsset, EnvironmentSettings, ExchangeRate, Organization, Payment } from "../generated/sqlite/client.ts";
import { getDatamodel } from "../generated/pothos-types.ts";
import { type Db, postgresSchema, sqlitePath } from "./client.ts";

export interface OrganizationSettingsRows {
  organization: Pick<Organization, "name"> | null;
  settings: Pick<EnvironmentSettings, "settlementAddress" | "displayName"> | null;
  /** oldest first */
  assets: Pick<EnabledAsset, "code" | "issuer">[];
  rates: Pick<ExchangeRate, "currency" | "assetCode" | "assetIssuer" | "price">[];
}

export interface HotReads {
  apiKeyByHash(hash: string): Promise<ApiKey | null>;
  paymentById(id: string): Promise<Payment | null>;
  organizationSettings(organizationId: string, environment: string): Promise<OrganizationSettingsRows>;
  close(): Promise<void>;
}

const SETTINGS_SQL = {
  organization: `SELECT "name" FROM "Organization" WHERE "id" = $1`,
  settings: `SELECT "settlementAddress", "displayName" FROM "EnvironmentSettings" WHERE "organizationId" = $1 AND "environment" = $2`,
  assets: `SELECT "code", "issuer" FROM "EnabledAsset" WHERE "organizationId" = $1 AND "environment" = $2 ORDER BY "createdAt", "code", "issuer"`,
  rates: `SELECT "currency", "assetCode", "assetIssuer", "price" FROM "ExchangeRate" WHERE "organizationId" = $1 AND "environment" = $2`,
};

type Row = Record<string, unknown>;

/** Column -> converter from what the driver returns to what Prisma returns, per model. */
function converterFor(model: "ApiKey" | "Payment") {
  const conversions: [string, (value: unknown) => unknown][] = [];
  for (const field of getDatamodel().datamodel.models[model]!.fields) {
    if (field.kind !== "scalar") continue;
    if (field.type === "DateTime") conversions.push([field.name, (v) => new Date(v as string | Date)]);
    else if (field.type === "BigInt") conversions.push([field.name, (v) => BigInt(v as string | bigint)]);
    else if (field.type === "Boolean") conversions.push([field.name, (v) => v === true || v === 1 || v === 1n]);
    else if (field.type === "Int") conversions.push([field.name, (v) => Number(v)]);
  }
  return <T>(row: Row | undefined): T | null => {
    if (!row) return null;
    for (const [name, convert] of conversions) if (row[name] != null) row[name] = convert(row[name]);
    return row as T;
  };
}

const toApiKey = converterFor("ApiKey");
const toPayment = converterFor("Payment");

function sqliteHotReads(url: string): HotReads {
  // A second, read-only connection: WAL lets it read beside Prisma's writer.
  const db = new BetterSqlite3(sqlitePath(url), { readonly: true, timeout: 10_000 });
  const apiKey = db.prepare(`SELECT * FROM "ApiKey" WHERE "hash" = ?`).safeIntegers(true);
  const payment = db.prepare(`SELECT * FROM "Payment" WHERE "id" = ?`).safeIntegers(true);
  // Each $n stands once and in order, so SQLite's positional ? takes the same values.
  const settings = Object.fromEntries(
    Object.entries(SETTINGS_SQL).map(([name, sql]) => [name, db.prepare(sql.replace(/\$\d/g, "?"))]),
  ) as Record<keyof typeof SETTINGS_SQL, BetterSqlite3.Statement>;
  return {
    apiKeyByHash: async (hash) => toApiKey<ApiKey>(apiKey.get(hash) as Row | undefined),
    paymentById: async (id) => toPayment<Payment>(payment.get(id) as Row | undefined),
    organizationSettings: async (organizationId, environment) => ({
      organization: (settings.organization.get(organizationId) as OrganizationSettingsRows["organization"]) ?? null,
      settings: (settings.settings.get(organizationId, environment) as OrganizationSettingsRows["settings"]) ?? null,
      assets: settings.assets.all(organizationId, environment) as OrganizationSettingsRows["assets"],
      rates: settings.rates.all(organizationId, environment) as OrganizationSettingsRows["rates"],
    }),
    close: async () => void db.close(),
  };
}

function postgresHotReads(url: string): HotReads {
  const schema = postgresSchema(url);
  // Prisma's TIMESTAMP(3) columns hold UTC without a zone: read them as UTC, not local time.
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === pg.types.builtins.TIMESTAMP
        ? (value: string) => new Date(`${value.replace(" ", "T")}Z`)
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, max: 5, types, options: `-c search_path="${schema}"` });
  const rows = async (name: string, text: string, values: string[]) => (await pool.query({ name, text, values })).rows as Row[];
  const one = async (name: string, text: string, value: string) => (await rows(name, text, [value]))[0];
  return {
    apiKeyByHash: async (hash) => toApiKey<ApiKey>(await one("api_key_by_hash", `SELECT * FROM "ApiKey" WHERE "hash" = $1`, hash)),
    paymentById: async (id) => toPayment<Payment>(await one("payment_by_id", `SELECT * FROM "Payment" WHERE "id" = $1`, id)),
    organizationSettings: async (organizationId, environment) => {
      const both = [organizationId, environment];
      const [organization, settings, assets, rates] = await Promise.all([
        rows("settings_organization", SETTINGS_SQL.organization, [organizationId]),
        rows("settings_settings", SETTINGS_SQL.settings, both),
        rows("settings_assets", SETTINGS_SQL.assets, both),
        rows("settings_rates", SETTINGS_SQL.rates, both),
      ]);
      return {
        organization: (organization[0] as OrganizationSettingsRows["organization"]) ?? null,
        settings: (settings[0] as OrganizationSettingsRows["settings"]) ?? null,
        assets: assets as OrganizationSettingsRows["assets"],
        rates: rates as OrganizationSettingsRows["rates"],
      };
    },
    close: () => pool.end(),
  };
}

export const openHotReads = (url: string): HotReads =>
  url.startsWith("file:") ? sqliteHotReads(url) : postgresHotReads(url);

// openDatabase pairs each Prisma client with its hot reads, so services reach them through the
// `db` they already have.
const registry = new WeakMap<Db, HotReads>();

export function attachHotReads(db: Db, reads: HotReads) {
  registry.set(db, reads);
}

export function hotReads(db: Db): HotReads {
  const reads = registry.get(db);
  if (!reads) throw new Error("no hot reads for this Prisma client: open it with openDatabase");
  return reads;
}

// Every read and write of an organization and its per-environment settings: the Organization,
// EnvironmentSettings, EnabledAsset and ExchangeRate tables. Every create reads the settings
// (organizationSettings), and the checkout shows the merchant's name: both are prepared statements.
import { type ExpressionBuilder, sql } from "kysely";
import type { EnabledAsset, EnvironmentSettings, ExchangeRate, Organization } from "../../generated/sqlite/client.ts";
import type { Dialect } from "../../config.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement, StatementResult } from "../../db/direct-sql.ts";
import { type DB, dialectOf, everyColumn, preparedQuery } from "../../db/typed-sql.ts";

export type SettingsKey = {
  organizationId: string;
  environment: string;
};

/** The name payers see: the environment's display name if it has one, else the organization's. */
export const merchantDisplayName = (organization: Pick<Organization, "name"> | null, settings: Pick<EnvironmentSettings, "displayName"> | null) =>
  settings?.displayName ?? organization?.name ?? "";

/** The rows of one organization's environment, in any of the tables keyed by it. */
const ofEnvironment =
  (key: { organizationId: unknown; environment: unknown }) =>
  <T extends keyof DB>(eb: ExpressionBuilder<DB, T>) =>
    eb.and([eb(sql.ref("organizationId"), "=", key.organizationId), eb(sql.ref("environment"), "=", key.environment)]);

const organizationById = preparedQuery((q, p: { id: string }) => q.selectFrom("Organization").selectAll().where("id", "=", p.id));
const insertOrganizationRow = preparedQuery((q, p: Organization) => q.insertInto("Organization").values(everyColumn("Organization", p)));

export const findOrganization = (db: Db, id: string): Promise<Organization | null> => organizationById.first(typedSql(db), { id });

export async function insertOrganization(db: Db, row: Organization): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([insertOrganizationRow.statement(typed, row)]);
}

/** Every organization, oldest first. */
export function allOrganizations(db: Db): Promise<Organization[]> {
  const typed = typedSql(db);
  return typed.all(typed.q.selectFrom("Organization").selectAll().orderBy("createdAt").orderBy("id"));
}

/** The oldest organization named `name`, or null. */
export function oldestOrganizationNamed(db: Db, name: string): Promise<Organization | null> {
  const typed = typedSql(db);
  return typed.first(typed.q.selectFrom("Organization").selectAll().where("name", "=", name).orderBy("createdAt").orderBy("id").limit(1));
}

/** Sets whether the organization requires two-factor sign-in, with `alongside` (its audit entry and notices) in the same transaction. */
export async function saveRequireTwoFactor(db: Db, id: string, required: boolean, alongside: Statement[]): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([typed.statement(typed.q.updateTable("Organization").set({ requireTwoFactor: required }).where("id", "=", id)), ...alongside]);
}

/** Creates the environment's settings row if need be, with this settlement wallet, in one transaction with `alongside`. */
export async function saveSettlementAddress(db: Db, key: SettingsKey, address: string, now: Date, alongside: Statement[] = []): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([
    typed.statement(
      typed.q
        .insertInto("EnvironmentSettings")
        .values({ ...key, settlementAddress: address, invoiceSequence: 0, displayName: null, updatedAt: now })
        .onConflict((oc) => oc.columns(["organizationId", "environment"]).doUpdateSet({ settlementAddress: address, updatedAt: now })),
    ),
    ...alongside,
  ]).finally(() => forgetRecentSettings(db, key.organizationId));
}

/** Renames the organization; false when there is none. */
export async function saveOrganizationName(db: Db, id: string, name: string): Promise<boolean> {
  const typed = typedSql(db);
  const rename = typed.statement(typed.q.updateTable("Organization").set({ name }).where("id", "=", id));
  const [result] = await typed.direct.batch([rename]).finally(() => forgetRecentSettings(db, id));
  return result!.changes > 0;
}

/** Creates the environment's settings row if need be, with this display name (null: the organization's name). */
export async function saveDisplayName(db: Db, key: SettingsKey, displayName: string | null, now: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([
    typed.statement(
      typed.q
        .insertInto("EnvironmentSettings")
        .values({ ...key, settlementAddress: null, invoiceSequence: 0, displayName, updatedAt: now })
        .onConflict((oc) => oc.columns(["organizationId", "environment"]).doUpdateSet({ displayName, updatedAt: now })),
    ),
  ]).finally(() => forgetRecentSettings(db, key.organizationId));
}

/** Enables a credit asset (enabling it again changes nothing). */
export async function saveEnabledAsset(db: Db, row: EnabledAsset): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([
    typed.statement(
      typed.q
        .insertInto("EnabledAsset")
        .values(row)
        .onConflict((oc) => oc.columns(["organizationId", "environment", "code", "issuer"]).doNothing()),
    ),
  ]).finally(() => forgetRecentSettings(db, row.organizationId));
}

/** Disables a credit asset with its rates, in one transaction; false when it was not enabled. */
export async function removeEnabledAsset(db: Db, key: SettingsKey, asset: { code: string; issuer: string }): Promise<boolean> {
  const typed = typedSql(db);
  const [removed] = await typed.direct.batch([
    typed.statement(
      typed.q.deleteFrom("EnabledAsset").where(ofEnvironment(key)).where("code", "=", asset.code).where("issuer", "=", asset.issuer),
    ),
    typed.statement(
      typed.q.deleteFrom("ExchangeRate").where(ofEnvironment(key)).where("assetCode", "=", asset.code).where("assetIssuer", "=", asset.issuer),
    ),
  ]).finally(() => forgetRecentSettings(db, key.organizationId));
  return removed!.changes > 0;
}

/** Sets what one unit of an asset costs in a currency. */
export async function saveExchangeRate(db: Db, row: Omit<ExchangeRate, "updatedAt">, now: Date): Promise<void> {
  const typed = typedSql(db);
  await typed.direct.batch([
    typed.statement(
      typed.q
        .insertInto("ExchangeRate")
        .values({ ...row, updatedAt: now })
        .onConflict((oc) =>
          oc.columns(["organizationId", "environment", "currency", "assetCode", "assetIssuer"]).doUpdateSet({ price: row.price, updatedAt: now }),
        ),
    ),
  ]).finally(() => forgetRecentSettings(db, row.organizationId));
}

const takeInvoiceSequence = preparedQuery((q, p: SettingsKey) =>
  q
    .updateTable("EnvironmentSettings")
    .set((eb) => ({ invoiceSequence: eb("invoiceSequence", "+", 1) }))
    .where("organizationId", "=", p.organizationId)
    .where("environment", "=", p.environment)
    .returning("invoiceSequence"),
);

/**
 * The statement that takes the environment's next invoice sequence number, for a batch; `numberOf`
 * reads it from the statement's result. The increment locks the settings row until commit, so
 * concurrent takers get numbers one after another, and a rolled-back batch gives its number back.
 * An environment without settings (no settlement wallet yet) fails the batch with `missing()`.
 */
export function nextInvoiceSequence(db: Db, key: SettingsKey, missing: () => Error) {
  const typed = typedSql(db);
  return {
    statement: takeInvoiceSequence.statement(typed, key, { expect: { changes: 1, error: missing } }) satisfies Statement,
    numberOf: (result: StatementResult) => takeInvoiceSequence.rowsOf(typed, result.rows)[0]!.invoiceSequence,
  };
}

export interface OrganizationSettingsRows {
  organization: Pick<Organization, "name"> | null;
  settings: Pick<EnvironmentSettings, "settlementAddress" | "displayName"> | null;
  /** oldest first */
  assets: Pick<EnabledAsset, "code" | "issuer">[];
  rates: Pick<ExchangeRate, "currency" | "assetCode" | "assetIssuer" | "price">[];
}

const JSON_FUNCTIONS: Record<Dialect, { object: string; array: string }> = {
  sqlite: { object: "json_object", array: "json_group_array" },
  postgresql: { object: "json_build_object", array: "json_agg" },
};

/**
 * The organization's name with its environment's settings, enabled assets (oldest first) and rates,
 * each as JSON: one statement, so one round trip on PostgreSQL.
 */
const settingsRead = preparedQuery((q, p: SettingsKey) => {
  const { object, array } = JSON_FUNCTIONS[dialectOf(q)];
  const jsonOf = <T extends keyof DB>(eb: ExpressionBuilder<DB, T>, columns: string[]) =>
    eb.fn(object, columns.flatMap((column) => [sql.lit(column), sql.ref(column)]));
  const key = { organizationId: p.organizationId, environment: p.environment };
  return q
    .selectFrom("Organization")
    .select((eb) => [
      "Organization.name",
      eb
        .selectFrom("EnvironmentSettings")
        .where(ofEnvironment(key))
        .select((eb) => jsonOf(eb, ["settlementAddress", "displayName"]).as("settings"))
        .as("settings"),
      eb
        .selectFrom("EnabledAsset")
        .where(ofEnvironment(key))
        .select((eb) =>
          eb.fn
            .agg(array, [jsonOf(eb, ["code", "issuer"])])
            .orderBy("EnabledAsset.createdAt")
            .orderBy("EnabledAsset.code")
            .orderBy("EnabledAsset.issuer")
            .as("assets"),
        )
        .as("assets"),
      eb
        .selectFrom("ExchangeRate")
        .where(ofEnvironment(key))
        .select((eb) => eb.fn.agg(array, [jsonOf(eb, ["currency", "assetCode", "assetIssuer", "price"])]).as("rates"))
        .as("rates"),
    ])
    .where("Organization.id", "=", p.organizationId);
});

/** What every create checks (see settingsRead). */
export async function organizationSettings(db: Db, key: SettingsKey): Promise<OrganizationSettingsRows> {
  const row = await settingsRead.first(typedSql(db), key);
  if (!row) return { organization: null, settings: null, assets: [], rates: [] };
  // SQLite returns JSON as text, pg parses it.
  const json = <T>(value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as T;
  return {
    organization: { name: row.name },
    settings: json<OrganizationSettingsRows["settings"]>(row.settings),
    assets: json<OrganizationSettingsRows["assets"] | null>(row.assets) ?? [],
    rates: json<OrganizationSettingsRows["rates"] | null>(row.rates) ?? [],
  };
}

/**
 * How long a create may go on the settings read before it: a change made by another process or
 * host reaches its creates within this time (this process's own changes at once: every write here
 * forgets them). The read is a round trip before every create's group commit; kept, a create on
 * PostgreSQL costs ~15 % less CPU in the service and ~10 % less in the database (bench/README.md).
 * A create refuses only on settings read for it (payments.service.ts preparePayment), so a wallet
 * or asset added a moment ago on another process is never refused; what may be used for up to this
 * long is a wallet, asset or rate replaced a moment ago, as an API key revoked takes KEY_CACHE_MS
 * to be refused.
 */
export const RECENT_SETTINGS_MS = 1000;
const MAX_RECENT_ORGANIZATIONS = 10_000;

interface RecentRead {
  rows: Promise<OrganizationSettingsRows>;
  until: number;
}

/** Per database client, per organization, per environment: one read in flight or done, shared. */
const recentReads = new WeakMap<object, Map<string, Map<string, RecentRead>>>();

const recentOf = (db: Db) => {
  let byOrganization = recentReads.get(db);
  if (!byOrganization) recentReads.set(db, (byOrganization = new Map()));
  return byOrganization;
};

/**
 * The settings as read at most RECENT_SETTINGS_MS ago (`fresh`: read now), and whether this call
 * read them: the creates of a burst share one read (one in flight is shared too).
 */
export function recentOrganizationSettings(db: Db, key: SettingsKey, fresh = false): { rows: Promise<OrganizationSettingsRows>; readNow: boolean } {
  const byOrganization = recentOf(db);
  const now = performance.now();
  const recent = byOrganization.get(key.organizationId)?.get(key.environment);
  if (recent && recent.until > now && !fresh) return { rows: recent.rows, readNow: false };
  if (byOrganization.size >= MAX_RECENT_ORGANIZATIONS) byOrganization.clear();
  let environments = byOrganization.get(key.organizationId);
  if (!environments) byOrganization.set(key.organizationId, (environments = new Map()));
  // Timed from before the read: the rows may be as old as its query.
  const read: RecentRead = { rows: organizationSettings(db, key), until: now + RECENT_SETTINGS_MS };
  environments.set(key.environment, read);
  read.rows.catch(() => {
    if (environments.get(key.environment) === read) environments.delete(key.environment);
  });
  return { rows: read.rows, readNow: true };
}

/** After this process changed an organization's settings: its next create reads them again. */
const forgetRecentSettings = (db: Db, organizationId: string) => recentOf(db).delete(organizationId);

const merchantRead = preparedQuery((q, p: SettingsKey) =>
  q
    .selectFrom("Organization")
    .leftJoin("EnvironmentSettings", (join) =>
      join.onRef("EnvironmentSettings.organizationId", "=", "Organization.id").on("EnvironmentSettings.environment", "=", p.environment),
    )
    .select(["Organization.name", "EnvironmentSettings.displayName"])
    .where("Organization.id", "=", p.organizationId),
);

/** The name the merchant shows payers in this environment (merchantDisplayName). */
export async function merchantName(db: Db, key: SettingsKey): Promise<string> {
  const row = await merchantRead.first(typedSql(db), key);
  return merchantDisplayName(row, row);
}

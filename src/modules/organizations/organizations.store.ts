// Every read and write of an organization and its per-environment settings: the Organization,
// EnvironmentSettings, EnabledAsset and ExchangeRate tables. Every create reads the settings
// (organizationSettings), and the checkout shows the merchant's name: both are prepared statements.
import { type ExpressionBuilder, sql } from "kysely";
import type { EnabledAsset, EnvironmentSettings, ExchangeRate, Organization } from "../../generated/sqlite/client.ts";
import type { Dialect } from "../../config.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement, StatementResult } from "../../db/direct-sql.ts";
import { type DB, dialectOf, everyColumn, preparedQuery } from "../../db/typed-sql.ts";
import { liveEndpoint } from "../webhook-endpoints/webhook-endpoints.store.ts";

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
  ]);
}

/** Renames the organization; false when there is none. */
export async function saveOrganizationName(db: Db, id: string, name: string): Promise<boolean> {
  const typed = typedSql(db);
  const [result] = await typed.direct.batch([typed.statement(typed.q.updateTable("Organization").set({ name }).where("id", "=", id))]);
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
  ]);
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
  ]);
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
  ]);
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
  ]);
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
  /** the enabledEvents (JSON text) of each enabled webhook endpoint */
  webhookEvents: string[];
}

const JSON_FUNCTIONS: Record<Dialect, { object: string; array: string }> = {
  sqlite: { object: "json_object", array: "json_group_array" },
  postgresql: { object: "json_build_object", array: "json_agg" },
};

/**
 * The organization's name with its environment's settings, enabled assets (oldest first), rates and
 * webhook endpoints' subscriptions, each as JSON: one statement, so one round trip on PostgreSQL.
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
      // The endpoints' own rule of which are live: webhook-endpoints keeps it.
      eb
        .selectFrom("WebhookEndpoint")
        .where(ofEnvironment(key))
        .where(liveEndpoint)
        .select((eb) => eb.fn.agg(array, ["WebhookEndpoint.enabledEvents"]).as("webhookEvents"))
        .as("webhookEvents"),
    ])
    .where("Organization.id", "=", p.organizationId);
});

/** What every create checks (see settingsRead). */
export async function organizationSettings(db: Db, key: SettingsKey): Promise<OrganizationSettingsRows> {
  const row = await settingsRead.first(typedSql(db), key);
  if (!row) return { organization: null, settings: null, assets: [], rates: [], webhookEvents: [] };
  // SQLite returns JSON as text, pg parses it.
  const json = <T>(value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as T;
  return {
    organization: { name: row.name },
    settings: json<OrganizationSettingsRows["settings"]>(row.settings),
    assets: json<OrganizationSettingsRows["assets"] | null>(row.assets) ?? [],
    rates: json<OrganizationSettingsRows["rates"] | null>(row.rates) ?? [],
    webhookEvents: json<string[] | null>(row.webhookEvents) ?? [],
  };
}

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

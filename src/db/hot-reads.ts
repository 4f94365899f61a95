// The reads on the API's hot paths, as prepared statements (direct-sql.ts says why): the API key of
// every request, the payment of GET /payments/{id}, and the organization settings every create checks.
import type { ApiKey, EnabledAsset, EnvironmentSettings, ExchangeRate, Organization, Payment } from "../generated/sqlite/client.ts";
import type { Db } from "./client.ts";
import { directSql } from "./client.ts";
import { rowConverter } from "./direct-sql.ts";

export interface OrganizationSettingsRows {
  organization: Pick<Organization, "name"> | null;
  settings: Pick<EnvironmentSettings, "settlementAddress" | "displayName"> | null;
  /** oldest first */
  assets: Pick<EnabledAsset, "code" | "issuer">[];
  rates: Pick<ExchangeRate, "currency" | "assetCode" | "assetIssuer" | "price">[];
}

const toApiKey = rowConverter<ApiKey>("ApiKey");
const toPayment = rowConverter<Payment>("Payment");

export function hotReads(db: Db) {
  const sql = directSql(db);
  return {
    apiKeyByHash: async (hash: string) => toApiKey((await sql.all(`SELECT * FROM "ApiKey" WHERE "hash" = $1`, [hash]))[0]),
    paymentById: async (id: string) => toPayment((await sql.all(`SELECT * FROM "Payment" WHERE "id" = $1`, [id]))[0]),
    async organizationSettings(organizationId: string, environment: string): Promise<OrganizationSettingsRows> {
      const both = [organizationId, environment];
      const [organization, settings, assets, rates] = await Promise.all([
        sql.all(`SELECT "name" FROM "Organization" WHERE "id" = $1`, [organizationId]),
        sql.all(`SELECT "settlementAddress", "displayName" FROM "EnvironmentSettings" WHERE "organizationId" = $1 AND "environment" = $2`, both),
        sql.all(`SELECT "code", "issuer" FROM "EnabledAsset" WHERE "organizationId" = $1 AND "environment" = $2 ORDER BY "createdAt", "code", "issuer"`, both),
        sql.all(`SELECT "currency", "assetCode", "assetIssuer", "price" FROM "ExchangeRate" WHERE "organizationId" = $1 AND "environment" = $2`, both),
      ]);
      return {
        organization: (organization[0] as OrganizationSettingsRows["organization"]) ?? null,
        settings: (settings[0] as OrganizationSettingsRows["settings"]) ?? null,
        assets: assets as OrganizationSettingsRows["assets"],
        rates: rates as OrganizationSettingsRows["rates"],
      };
    },
  };
}

// The reads on the API's hot paths, as prepared statements (direct-sql.ts says why): the API key of
// every request, the payment of GET /payments/{id}, the organization settings every create checks,
// the link of every payment link visit and the invoice of GET and finalize.
import type { EnabledAsset, EnvironmentSettings, ExchangeRate, Organization } from "../generated/sqlite/client.ts";
import type { InvoiceWithDetails } from "../modules/invoices/invoices.view.ts";
import type { Dialect } from "../config.ts";
import { type Db, directSql, typedSql } from "./client.ts";
import { toCheckoutSession, toInvoice, toInvoiceItem, toPayment } from "./rows.ts";
import { preparedQuery } from "./typed-sql.ts";

export interface OrganizationSettingsRows {
  organization: Pick<Organization, "name"> | null;
  settings: Pick<EnvironmentSettings, "settlementAddress" | "displayName"> | null;
  /** oldest first */
  assets: Pick<EnabledAsset, "code" | "issuer">[];
  rates: Pick<ExchangeRate, "currency" | "assetCode" | "assetIssuer" | "price">[];
  /** the enabledEvents (JSON text) of each enabled webhook endpoint */
  webhookEvents: string[];
}



const readers = new WeakMap<Db, ReturnType<typeof createHotReads>>();

export function hotReads(db: Db) {
  let reads = readers.get(db);
  if (!reads) readers.set(db, (reads = createHotReads(db)));
  return reads;
}

const apiKeyByHash = preparedQuery((q, p: { hash: string }) => q.selectFrom("ApiKey").selectAll().where("hash", "=", p.hash));
const paymentLinkById = preparedQuery((q, p: { id: string }) => q.selectFrom("PaymentLink").selectAll().where("id", "=", p.id));

function createHotReads(db: Db) {
  const sql = directSql(db);
  const typed = typedSql(db);
  return {
    apiKeyByHash: (hash: string) => apiKeyByHash.first(typed, { hash }),
    paymentLinkById: (id: string) => paymentLinkById.first(typed, { id }),
    /** with what invoiceInclude (invoices.view.ts) includes: items in order, payment, checkout session */
    async invoiceWithDetails(id: string): Promise<InvoiceWithDetails | null> {
      const [invoiceRows, itemRows, paymentRows, sessionRows] = await Promise.all([
        sql.all(`SELECT * FROM "Invoice" WHERE "id" = $1`, [id]),
        sql.all(`SELECT * FROM "InvoiceItem" WHERE "invoiceId" = $1 ORDER BY "position"`, [id]),
        sql.all(`SELECT p.* FROM "Payment" p JOIN "Invoice" i ON i."paymentId" = p."id" WHERE i."id" = $1`, [id]),
        sql.all(`SELECT s.* FROM "CheckoutSession" s JOIN "Invoice" i ON i."checkoutSessionId" = s."id" WHERE i."id" = $1`, [id]),
      ]);
      const invoice = toInvoice(invoiceRows[0]);
      if (!invoice) return null;
      return {
        ...invoice,
        items: itemRows.map((row) => toInvoiceItem(row)!),
        payment: toPayment(paymentRows[0]),
        checkoutSession: toCheckoutSession(sessionRows[0]),
      };
    },
    /** One statement, so one round trip on PostgreSQL: every create reads these. */
    async organizationSettings(organizationId: string, environment: string): Promise<OrganizationSettingsRows> {
      const [row] = await sql.all(settingsQuery(sql.dialect), [organizationId, environment]);
      if (!row) return { organization: null, settings: null, assets: [], rates: [], webhookEvents: [] };
      // SQLite returns JSON as text, pg parses it.
      const json = <T>(value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as T;
      return {
        organization: { name: row.name as string },
        settings: json<OrganizationSettingsRows["settings"]>(row.settings),
        assets: json<OrganizationSettingsRows["assets"] | null>(row.assets) ?? [],
        rates: json<OrganizationSettingsRows["rates"] | null>(row.rates) ?? [],
        webhookEvents: json<string[] | null>(row.webhookEvents) ?? [],
      };
    },
  };
}

/** The organization's name, with its environment's settings, enabled assets (oldest first), rates and webhook endpoints' subscriptions as JSON. */
function settingsQuery(dialect: Dialect): string {
  const [object, array] = dialect === "sqlite" ? ["json_object", "json_group_array"] : ["json_build_object", "json_agg"];
  const scope = `"organizationId" = $1 AND "environment" = $2`;
  const assetOrder = `"createdAt", "code", "issuer"`;
  // SQLite aggregates in the order of its input; PostgreSQL is told the order.
  const assets =
    dialect === "sqlite"
      ? `SELECT ${array}(${object}('code', "code", 'issuer', "issuer")) FROM (SELECT * FROM "EnabledAsset" WHERE ${scope} ORDER BY ${assetOrder})`
      : `SELECT ${array}(${object}('code', "code", 'issuer', "issuer") ORDER BY ${assetOrder}) FROM "EnabledAsset" WHERE ${scope}`;
  return `SELECT o."name",
    (SELECT ${object}('settlementAddress', "settlementAddress", 'displayName', "displayName") FROM "EnvironmentSettings" WHERE ${scope}) AS "settings",
    (${assets}) AS "assets",
    (SELECT ${array}(${object}('currency', "currency", 'assetCode', "assetCode", 'assetIssuer', "assetIssuer", 'price', "price")) FROM "ExchangeRate" WHERE ${scope}) AS "rates",
    (SELECT ${array}("enabledEvents") FROM "WebhookEndpoint" WHERE ${scope} AND "enabled" AND "deletedAt" IS NULL) AS "webhookEvents"
    FROM "Organization" o WHERE o."id" = $1`;
}

// Organizations and their per-environment settings: settlement wallet, enabled assets, price table.
// Used by the operator CLI; the payment services read the settings through loadSettings.
import { ENVIRONMENTS, type Deps, type Environment, type Scope } from "../../context.ts";
import { badRequest, notFound } from "../../errors.ts";
import { type Asset, XLM, isStellarAddress } from "../../shared/assets.ts";
import { AMOUNT_PATTERN } from "../../shared/money.ts";
import { createApiKey } from "../api-keys/api-keys.service.ts";
import { subscribedEvents } from "../webhook-endpoints/webhook-endpoints.service.ts";
import {
  allOrganizations,
  findOrganization,
  insertOrganization,
  merchantDisplayName,
  organizationSettings,
  saveEnabledAsset,
  saveExchangeRate,
  saveSettlementAddress,
} from "./organizations.store.ts";

export async function createOrganization(deps: Deps, input: { name: string }) {
  const name = input.name.trim();
  if (!name) throw badRequest("name is required");
  const id = deps.ids.newId("org");
  await insertOrganization(deps.db, { id, name, createdAt: deps.clock.now() });
  return {
    organization_id: id,
    sandbox_api_key: await createApiKey(deps, { organizationId: id, environment: "sandbox" }),
    live_api_key: await createApiKey(deps, { organizationId: id, environment: "production" }),
  };
}

export async function requireOrganization(deps: Deps, organizationId: string) {
  const org = await findOrganization(deps.db, organizationId);
  if (!org) throw notFound();
  return org;
}

/** Every organization, oldest first: what an operator lists. */
export async function listOrganizations(deps: Deps) {
  const rows = await allOrganizations(deps.db);
  return rows.map((row) => ({ id: row.id, name: row.name, created_at: row.createdAt.toISOString() }));
}

/** Per environment: where payments settle (null until set) and the assets they may be made in. */
export async function listSettlementWallets(deps: Deps, organizationId: string) {
  await requireOrganization(deps, organizationId);
  return Promise.all(
    ENVIRONMENTS.map(async (environment) => {
      const settings = await loadSettings(deps, { organizationId, environment });
      return {
        environment,
        settlement_address: settings.settlementAddress,
        enabled_assets: settings.enabledAssets.map((asset) => ({ code: asset.code, issuer: asset.issuer })),
      };
    }),
  );
}

export async function setSettlementWallet(
  deps: Deps,
  input: { organizationId: string; environment: Environment; address: string },
) {
  if (!isStellarAddress(input.address)) throw badRequest("address must be a Stellar public key (G...)");
  await requireOrganization(deps, input.organizationId);
  await saveSettlementAddress(
    deps.db,
    { organizationId: input.organizationId, environment: input.environment },
    input.address,
    deps.clock.now(),
  );
}

export async function enableAsset(
  deps: Deps,
  input: { organizationId: string; environment: Environment; code: string; issuer: string },
) {
  if (!/^[A-Za-z0-9]{1,12}$/.test(input.code) || input.code === "XLM") {
    throw badRequest("code must be 1 to 12 alphanumeric characters (XLM is always enabled)");
  }
  if (!isStellarAddress(input.issuer)) throw badRequest("issuer must be a Stellar public key (G...)");
  await requireOrganization(deps, input.organizationId);
  await saveEnabledAsset(deps.db, {
    organizationId: input.organizationId,
    environment: input.environment,
    code: input.code,
    issuer: input.issuer,
    createdAt: deps.clock.now(),
  });
}

export async function setExchangeRate(
  deps: Deps,
  input: { organizationId: string; environment: Environment; currency: string; assetCode: string; price: string },
) {
  if (!/^[A-Z]{3}$/.test(input.currency)) throw badRequest("currency must be an ISO 4217 code (3 uppercase letters)");
  if (!AMOUNT_PATTERN.test(input.price) || /^[0.]+$/.test(input.price)) {
    throw badRequest("price must be a positive decimal with at most 7 places");
  }
  await requireOrganization(deps, input.organizationId);
  const candidates = (await loadSettings(deps, input)).enabledAssets.filter((a) => a.code === input.assetCode);
  if (candidates.length === 0) throw badRequest(`asset ${input.assetCode} is not enabled for this organization`);
  if (candidates.length > 1) throw badRequest(`asset ${input.assetCode} is ambiguous: several issuers are enabled`);
  await saveExchangeRate(
    deps.db,
    {
      organizationId: input.organizationId,
      environment: input.environment,
      currency: input.currency,
      assetCode: input.assetCode,
      assetIssuer: candidates[0]!.issuer ?? "",
      price: input.price,
    },
    deps.clock.now(),
  );
}

export interface EnvironmentSettingsView {
  settlementAddress: string | null;
  displayName: string;
  /** XLM first, then the enabled credit assets */
  enabledAssets: Asset[];
  rates: { currency: string; asset: Asset; price: string }[];
  /** the event kinds each enabled webhook endpoint is subscribed to */
  webhookSubscriptions: string[][];
}

export async function loadSettings(deps: Deps, scope: Pick<Scope, "organizationId" | "environment">): Promise<EnvironmentSettingsView> {
  const { organization, settings, assets, rates, webhookEvents } = await organizationSettings(deps.db, scope);
  return {
    settlementAddress: settings?.settlementAddress ?? null,
    displayName: merchantDisplayName(organization, settings),
    enabledAssets: [XLM, ...assets.map((r): Asset => ({ code: r.code, issuer: r.issuer }))],
    rates: rates.map((r) => ({
      currency: r.currency,
      asset: { code: r.assetCode, issuer: r.assetIssuer || null },
      price: r.price,
    })),
    webhookSubscriptions: webhookEvents.map((enabledEvents) => subscribedEvents({ enabledEvents })),
  };
}

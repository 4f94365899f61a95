// Organizations and their per-environment settings: settlement wallet, enabled assets, price table.
// Used by the operator CLI and the GraphQL settings; the payment services read the settings through
// loadSettings.
import { ENVIRONMENTS, type Deps, type Environment, type Scope, type ServiceContext, inScope } from "../../context.ts";
import type { LedgerSource } from "../../ledger/ledger-source.ts";
import { badRequest, conflict, forbidden, notFound } from "../../errors.ts";
import { type Asset, XLM, isNative, isStellarAddress, sameAsset } from "../../shared/assets.ts";
import { AMOUNT_PATTERN } from "../../shared/money.ts";
import { createApiKey } from "../api-keys/api-keys.service.ts";
import { actorOf, auditStatement, auditStatementIn, operatorActor } from "../audit/audit.service.ts";
import { ownerNoticeStatements } from "../audit/security-notice.ts";
import { type LoginThrottle, reauthenticate } from "../users/reauthentication.ts";
import { keyRefusal } from "../users/roles.ts";
import {
  allOrganizations,
  findOrganization,
  insertOrganization,
  merchantDisplayName,
  type OrganizationSettingsRows,
  organizationSettings,
  recentOrganizationSettings,
  saveDisplayName,
  saveEnabledAsset,
  saveExchangeRate,
  saveOrganizationName,
  removeEnabledAsset,
  saveSettlementAddress,
} from "./organizations.store.ts";

const NAME_MAX_LENGTH = 100;

/** A Stellar account address refused: REST and the CLI name `field`; GraphQL names `path` (its argument). */
const notAnAccount = (field: string, path: string[] = [field]) => {
  const problem = "must be a Stellar public key (G...)";
  return badRequest(`${field} ${problem}`, { path, problem });
};

/** A name shown to payers and in mail subjects: trimmed, one line, not empty. */
function displayableName(field: string, value: string): string {
  const name = value.trim();
  const refuse = (problem: string) => badRequest(`${field} ${problem}`, { path: [field], problem });
  if (!name) throw refuse("is required");
  if (name.length > NAME_MAX_LENGTH) throw refuse(`must be at most ${NAME_MAX_LENGTH} characters`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw refuse("must be one line of text");
  return name;
}

export async function createOrganization(deps: Deps, input: { name: string }) {
  const name = displayableName("name", input.name);
  const id = deps.ids.newId("org");
  await insertOrganization(deps.db, { id, name, createdAt: deps.clock.now(), requireTwoFactor: false });
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
  if (!isStellarAddress(input.address)) throw notAnAccount("address");
  await requireOrganization(deps, input.organizationId);
  const entry = auditStatementIn(deps, input, operatorActor(deps), { action: "settlement_wallet.changed", resourceId: input.organizationId, detail: input.address });
  await saveSettlementAddress(deps.db, { organizationId: input.organizationId, environment: input.environment }, input.address, deps.clock.now(), [entry]);
}

/** The password (and code) a session user gives again for a change of where money goes. */
interface MoneyChangeProof {
  password?: string | null;
  code?: string | null;
  clientAddress: string;
}

/**
 * Where the merchant's money goes (the settlement wallet, the assets and rates payments are made
 * in) is changed only by a person: a dashboard user who gives the password (and code) again. An API
 * key is refused, whatever its role: a leaked key must not be able to send new payments elsewhere.
 */
async function proveMoneyChange(ctx: ServiceContext, throttle: LoginThrottle, what: string, proof: MoneyChangeProof) {
  if (ctx.scope.principal.kind !== "user") throw forbidden(keyRefusal(ctx.scope.principal.role, "money", what));
  if (!proof.password) throw badRequest("password: give your password again to make this change", { path: ["password"], problem: "give your password again to make this change" });
  await reauthenticate(ctx, throttle, { password: proof.password, code: proof.code, address: proof.clientAddress });
}

/**
 * Sets the caller's environment's settlement wallet. It decides where the merchant's money goes: a
 * session user gives the password again, and the change is logged and told to every owner, in the
 * transaction that makes it.
 */
export async function setSettlementWalletInScope(ctx: ServiceContext, throttle: LoginThrottle, address: string, proof: MoneyChangeProof) {
  if (!isStellarAddress(address)) throw notAnAccount("address");
  await proveMoneyChange(ctx, throttle, "setSettlementWallet", proof);
  const actor = await actorOf(ctx);
  const change = `The ${ctx.scope.environment} settlement wallet was set to ${address}`;
  await saveSettlementAddress(ctx.db, inScope(ctx.scope), address, ctx.clock.now(), [
    auditStatement(ctx, actor, { action: "settlement_wallet.changed", resourceId: ctx.scope.organizationId, detail: address }),
    ...(await ownerNoticeStatements(ctx, actor, change)),
  ]);
}

/** A credit asset as enableAsset and disableAsset take it. */
function creditAsset(input: { code: string; issuer: string }) {
  if (!/^[A-Za-z0-9]{1,12}$/.test(input.code) || input.code === "XLM") {
    throw badRequest("code must be 1 to 12 alphanumeric characters (XLM is always enabled)", {
      path: ["asset_code"],
      problem: "1 to 12 letters or digits, such as USDC (XLM is always enabled)",
    });
  }
  if (!isStellarAddress(input.issuer)) throw notAnAccount("issuer", ["issuer_address"]);
}

export async function enableAsset(
  deps: Deps,
  input: { organizationId: string; environment: Environment; code: string; issuer: string },
) {
  creditAsset(input);
  await requireOrganization(deps, input.organizationId);
  await saveEnabledAsset(deps.db, {
    organizationId: input.organizationId,
    environment: input.environment,
    code: input.code,
    issuer: input.issuer,
    createdAt: deps.clock.now(),
  });
}

/** Enables a credit asset in the caller's environment: a session user who gives the password again. */
export async function enableAssetInScope(ctx: ServiceContext, throttle: LoginThrottle, asset: { code: string; issuer: string }, proof: MoneyChangeProof) {
  creditAsset(asset);
  await proveMoneyChange(ctx, throttle, "enableAsset", proof);
  await enableAsset(ctx, { ...inScope(ctx.scope), ...asset });
}

/**
 * New payments of the environment can no longer be made in the asset, and its rates go with it.
 * Payments made before keep the assets they were created with.
 */
export async function disableAsset(
  deps: Deps,
  input: { organizationId: string; environment: Environment; code: string; issuer: string },
) {
  creditAsset(input);
  await requireOrganization(deps, input.organizationId);
  const removed = await removeEnabledAsset(deps.db, { organizationId: input.organizationId, environment: input.environment }, input);
  if (!removed) throw badRequest(`asset ${input.code} of issuer ${input.issuer} is not enabled`);
}

function checkExchangeRate(input: { currency: string; price: string }) {
  if (!/^[A-Z]{3}$/.test(input.currency)) {
    throw badRequest("currency must be an ISO 4217 code (3 uppercase letters)", { path: ["currency"], problem: "a currency's 3-letter code in capitals, such as EUR" });
  }
  if (!AMOUNT_PATTERN.test(input.price) || /^[0.]+$/.test(input.price)) {
    throw badRequest("price must be a positive decimal with at most 7 places", { path: ["price"], problem: "a number above 0 with up to 7 decimals, such as 0.25" });
  }
}

export async function setExchangeRate(
  deps: Deps,
  input: { organizationId: string; environment: Environment; currency: string; assetCode: string; price: string },
) {
  checkExchangeRate(input);
  await requireOrganization(deps, input.organizationId);
  const candidates = (await loadSettings(deps, input)).enabledAssets.filter((a) => a.code === input.assetCode);
  if (candidates.length === 0) {
    throw badRequest(`asset ${input.assetCode} is not enabled for this organization`, { path: ["asset_code"], problem: `${input.assetCode} is not one of your enabled assets; enable it first` });
  }
  if (candidates.length > 1) {
    throw badRequest(`asset ${input.assetCode} is ambiguous: several issuers are enabled`, { path: ["asset_code"], problem: `several ${input.assetCode} assets are enabled, from different issuers` });
  }
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

/** Sets a pricing rate in the caller's environment: a session user who gives the password again. */
export async function setExchangeRateInScope(
  ctx: ServiceContext,
  throttle: LoginThrottle,
  rate: { currency: string; assetCode: string; price: string },
  proof: MoneyChangeProof,
) {
  checkExchangeRate(rate);
  await proveMoneyChange(ctx, throttle, "setExchangeRate", proof);
  await setExchangeRate(ctx, { ...inScope(ctx.scope), ...rate });
}

export interface EnvironmentSettingsView {
  settlementAddress: string | null;
  /** what payers see: the environment's own display name, else the organization's name */
  displayName: string;
  /** the environment's own display name, null when it shows the organization's name */
  ownDisplayName: string | null;
  /** XLM first, then the enabled credit assets */
  enabledAssets: Asset[];
  rates: { currency: string; asset: Asset; price: string }[];
}

export async function loadSettings(deps: Deps, scope: Pick<Scope, "organizationId" | "environment">): Promise<EnvironmentSettingsView> {
  return settingsView(await organizationSettings(deps.db, scope));
}

/**
 * The settings as read at most RECENT_SETTINGS_MS ago, what creates go on (`fresh`: read now, and
 * kept for the next), and whether they were read for this call.
 */
export async function loadRecentSettings(deps: Deps, scope: Pick<Scope, "organizationId" | "environment">, fresh = false) {
  const { rows, readNow } = recentOrganizationSettings(deps.db, scope, fresh);
  return { settings: settingsView(await rows), readNow };
}

function settingsView({ organization, settings, assets, rates }: OrganizationSettingsRows): EnvironmentSettingsView {
  return {
    settlementAddress: settings?.settlementAddress ?? null,
    displayName: merchantDisplayName(organization, settings),
    ownDisplayName: settings?.displayName ?? null,
    enabledAssets: [XLM, ...assets.map((r): Asset => ({ code: r.code, issuer: r.issuer }))],
    rates: rates.map((r) => ({
      currency: r.currency,
      asset: { code: r.assetCode, issuer: r.assetIssuer || null },
      price: r.price,
    })),
  };
}

/** The caller's organization with its environment's settings. */
export async function organizationOfScope(ctx: ServiceContext) {
  const organization = await requireOrganization(ctx, ctx.scope.organizationId);
  const settings = await loadSettings(ctx, ctx.scope);
  return { id: organization.id, name: organization.name, requireTwoFactor: organization.requireTwoFactor, environment: ctx.scope.environment, ...settings };
}

/**
 * `name` is the organization's (every environment); `displayName` is what payers see in the
 * caller's environment instead of it (null: the organization's name again). Absent: unchanged.
 */
export async function updateOrganization(ctx: ServiceContext, input: { name?: string; displayName?: string | null }) {
  const name = input.name === undefined ? undefined : displayableName("name", input.name);
  const displayName = input.displayName ? displayableName("displayName", input.displayName) : input.displayName;
  if (name !== undefined) await saveOrganizationName(ctx.db, ctx.scope.organizationId, name);
  if (displayName !== undefined) await saveDisplayName(ctx.db, inScope(ctx.scope), displayName, ctx.clock.now());
  return organizationOfScope(ctx);
}

export interface WalletHealth {
  address: string;
  /** null when the ledger could not be asked */
  accountExists: boolean | null;
  /** enabled credit assets the account holds no trustline for: payments in them cannot reach it */
  missingTrustlines: Asset[];
  healthy: boolean;
  /** why the ledger could not be asked */
  error: string | null;
  /** what the account holds now (stroops per asset); empty when it does not exist or the ledger could not be asked */
  balances: { asset: Asset; balance: bigint }[];
}

/**
 * Whether the settlement wallet can receive the environment's payments, asked of its network now:
 * the account exists and trusts each enabled credit asset. Null when no wallet is set.
 */
export async function settlementWalletHealth(
  ledger: Pick<LedgerSource, "loadAccount">,
  settings: Pick<EnvironmentSettingsView, "settlementAddress" | "enabledAssets">,
): Promise<WalletHealth | null> {
  const address = settings.settlementAddress;
  if (!address) return null;
  let account;
  try {
    account = await ledger.loadAccount(address, { assets: settings.enabledAssets });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { address, accountExists: null, missingTrustlines: [], healthy: false, error: `The ledger could not be reached: ${reason}`, balances: [] };
  }
  if (!account) {
    return { address, accountExists: false, missingTrustlines: settings.enabledAssets.filter((a) => !isNative(a)), healthy: false, error: null, balances: [] };
  }
  const missingTrustlines = settings.enabledAssets.filter((asset) => !isNative(asset) && !account.balances.some((b) => sameAsset(b.asset, asset)));
  return { address, accountExists: true, missingTrustlines, healthy: missingTrustlines.length === 0, error: null, balances: account.balances };
}

/**
 * Sandbox only: creates the settlement wallet's account on the test network with friendbot's test
 * lumens (the simulated network's, or testnet's), so that a first test payment can arrive. A wallet
 * that already exists is left as it is: friendbot funds new accounts only.
 */
export async function fundSettlementWalletWithTestLumens(ctx: ServiceContext, ledger: Pick<LedgerSource, "loadAccount" | "fundTestAccount">) {
  if (ctx.scope.environment !== "sandbox") throw badRequest("Test lumens exist on the test network only: switch to the sandbox");
  const settings = await loadSettings(ctx, ctx.scope);
  const address = settings.settlementAddress;
  if (!address) throw badRequest("Set a settlement wallet first, then fund it");
  if (!ledger.fundTestAccount) throw badRequest("This test network cannot fund accounts with test XLM");
  if (await ledger.loadAccount(address)) throw conflict("The settlement wallet already exists on the test network; test XLM can fund a new account only");
  await ledger.fundTestAccount(address);
}

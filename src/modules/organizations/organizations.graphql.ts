// The caller's organization and its environment's settings: names, settlement wallet (with a health
// check against the ledger), enabled assets and pricing rates. The same services as the operator CLI.
import { inScope } from "../../context.ts";
import { builder, needs } from "../../graphql/builder.ts";
import { type GraphQLContext, requireService } from "../../graphql/context.ts";
import { AssetRef, EnvironmentEnum } from "../../graphql/shared-types.ts";
import { formatStroops } from "../../shared/money.ts";
import { networkPassphraseFor } from "../../shared/network.ts";
import {
  type WalletHealth,
  disableAsset,
  enableAssetInScope,
  fundSettlementWalletWithTestLumens,
  organizationOfScope,
  setExchangeRateInScope,
  setSettlementWalletInScope,
  settlementWalletHealth,
  updateOrganization,
} from "./organizations.service.ts";

type OrganizationView = Awaited<ReturnType<typeof organizationOfScope>>;

const ExchangeRateType = builder.objectRef<OrganizationView["rates"][number]>("ExchangeRate").implement({
  description: "One unit of the asset costs `price` of the currency (a decimal string)",
  fields: (t) => ({
    currency: t.exposeString("currency"),
    asset: t.field({ type: AssetRef, resolve: (r) => r.asset }),
    price: t.exposeString("price"),
  }),
});

const AccountBalance = builder.objectRef<WalletHealth["balances"][number]>("AccountBalance").implement({
  fields: (t) => ({
    asset: t.field({ type: AssetRef, resolve: (b) => b.asset }),
    balance: t.string({ description: "7-decimal string", resolve: (b) => formatStroops(b.balance) }),
  }),
});

const WalletHealthType = builder.objectRef<WalletHealth>("WalletHealth").implement({
  description: "The settlement wallet as its network sees it now",
  fields: (t) => ({
    address: t.exposeString("address"),
    accountExists: t.exposeBoolean("accountExists", { nullable: true, description: "null when the ledger could not be reached" }),
    missingTrustlines: t.field({
      type: [AssetRef],
      description: "enabled credit assets the account has no trustline for: payments in them cannot reach it",
      resolve: (h) => h.missingTrustlines,
    }),
    healthy: t.exposeBoolean("healthy"),
    error: t.exposeString("error", { nullable: true }),
    balances: t.field({
      type: [AccountBalance],
      description: "what the account holds now, per asset; empty when it does not exist or the ledger could not be reached (see error)",
      resolve: (h) => h.balances,
    }),
  }),
});

export const OrganizationType = builder.objectRef<OrganizationView>("Organization").implement({
  description: "The caller's organization, with the settings of the caller's environment",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    twoFactorRequired: t.exposeBoolean("requireTwoFactor", {
      description: "every user must sign in with two-factor: a session without it may only set it up (setTwoFactorRequired)",
    }),
    environment: t.field({ type: EnvironmentEnum, resolve: (org) => org.environment }),
    displayName: t.exposeString("ownDisplayName", {
      nullable: true,
      description: "the name payers see in this environment instead of the organization's name; null: the organization's name",
    }),
    checkoutName: t.exposeString("displayName", { description: "the name payers see in this environment" }),
    settlementAddress: t.exposeString("settlementAddress", { nullable: true }),
    settlementWalletHealth: t.field({
      type: WalletHealthType,
      nullable: true,
      description: "asks the ledger now whether the wallet exists and trusts every enabled credit asset; null without a wallet",
      resolve: (org, _args, ctx) => settlementWalletHealth(ledgerOf(ctx).sourceFor(networkPassphraseFor(org.environment)), org),
    }),
    enabledAssets: t.field({ type: [AssetRef], description: "XLM first, then the enabled credit assets", resolve: (org) => org.enabledAssets }),
    rates: t.field({ type: [ExchangeRateType], resolve: (org) => org.rates }),
  }),
});

function ledgerOf(ctx: GraphQLContext) {
  if (!ctx.deps.ledger) throw new Error("the ledger is not configured for GraphQL");
  return ctx.deps.ledger;
}

const UpdateOrganizationInput = builder.inputType("UpdateOrganizationInput", {
  fields: (t) => ({
    name: t.string({ description: "the organization's name, in every environment" }),
    displayName: t.string({ description: "what payers see in this environment; null: the organization's name" }),
  }),
});

const PASSWORD_AGAIN = "the caller's password, again (required: BAD_REQUEST without it)";
const CODE_AGAIN = "with two-factor sign-in on: the app's code or a recovery code";

/** What a change of where money goes proves again, from the field's arguments. */
const moneyChangeProof = (args: { password?: string | null; code?: string | null }, ctx: GraphQLContext) => ({
  password: args.password,
  code: args.code,
  clientAddress: ctx.clientAddress,
});

builder.queryFields((t) => ({
  organization: t.field({
    type: OrganizationType,
    resolve: (_root, _args, ctx) => organizationOfScope(requireService(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  updateOrganization: t.field({
    type: OrganizationType,
    args: { input: t.arg({ type: UpdateOrganizationInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      updateOrganization(requireService(ctx), {
        ...(input.name !== undefined && input.name !== null && { name: input.name }),
        ...(input.displayName !== undefined && { displayName: input.displayName }),
      }),
  }),
  fundSettlementWalletWithTestLumens: t.boolean({
    description:
      "Sandbox only: creates the settlement wallet's account on the test network with friendbot's test lumens (a wallet that exists already is refused: friendbot funds new accounts only)",
    resolve: async (_root, _args, ctx) => {
      const service = requireService(ctx);
      await fundSettlementWalletWithTestLumens(service, ledgerOf(ctx).sourceFor(networkPassphraseFor(service.scope.environment)));
      return true;
    },
  }),
  setSettlementWallet: t.field({
    ...needs("money"),
    type: OrganizationType,
    description:
      "Sets where this environment's new payments settle; ask settlementWalletHealth whether the ledger can pay it. A dashboard session only (never an API key), with the password again (and the code with two-factor sign-in on); every owner is mailed",
    args: {
      address: t.arg.string({ required: true }),
      password: t.arg.string({ description: PASSWORD_AGAIN }), code: t.arg.string({ description: CODE_AGAIN }),
    },
    resolve: async (_root, args, ctx) => {
      const service = requireService(ctx);
      await setSettlementWalletInScope(service, ctx.deps.loginThrottle, args.address, moneyChangeProof(args, ctx));
      return organizationOfScope(service);
    },
  }),
  enableAsset: t.field({
    ...needs("money"),
    type: OrganizationType,
    description:
      "Lets this environment's payments settle in a credit asset (XLM is always enabled). A dashboard session only (never an API key), with the password again (and the code with two-factor sign-in on)",
    args: { assetCode: t.arg.string({ required: true }), issuerAddress: t.arg.string({ required: true }), password: t.arg.string({ description: PASSWORD_AGAIN }), code: t.arg.string({ description: CODE_AGAIN }) },
    resolve: async (_root, args, ctx) => {
      const service = requireService(ctx);
      await enableAssetInScope(service, ctx.deps.loginThrottle, { code: args.assetCode, issuer: args.issuerAddress }, moneyChangeProof(args, ctx));
      return organizationOfScope(service);
    },
  }),
  disableAsset: t.field({
    type: OrganizationType,
    description: "New payments can no longer settle in the asset, and its rates are removed; earlier payments keep theirs",
    args: { assetCode: t.arg.string({ required: true }), issuerAddress: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const service = requireService(ctx);
      await disableAsset(service, { ...inScope(service.scope), code: args.assetCode, issuer: args.issuerAddress });
      return organizationOfScope(service);
    },
  }),
  setExchangeRate: t.field({
    ...needs("money"),
    type: OrganizationType,
    description:
      "Sets what one unit of an enabled asset costs in a currency (for payments priced in it). A dashboard session only (never an API key), with the password again (and the code with two-factor sign-in on)",
    args: {
      currency: t.arg.string({ required: true }),
      assetCode: t.arg.string({ required: true }),
      price: t.arg.string({ required: true }),
      password: t.arg.string({ description: PASSWORD_AGAIN }), code: t.arg.string({ description: CODE_AGAIN }),
    },
    resolve: async (_root, args, ctx) => {
      const service = requireService(ctx);
      const rate = { currency: args.currency, assetCode: args.assetCode, price: args.price };
      await setExchangeRateInScope(service, ctx.deps.loginThrottle, rate, moneyChangeProof(args, ctx));
      return organizationOfScope(service);
    },
  }),
}));

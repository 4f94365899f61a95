// Public GraphQL mutations for the checkout page: no API key, the payment id is the credential.
import { PUBLIC_FIELD, builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { AssetRef, AssetRefInput, assetInput } from "../../graphql/shared-types.ts";
import { formatStroops } from "../../shared/money.ts";
import { assetRefSchema, parseInput } from "../../shared/validation.ts";
import { CheckoutViewType } from "../checkout/checkout.graphql.ts";
import {
  type AssetQuote,
  type CheckoutDeps,
  type CheckoutSubmission,
  type PreparedTransaction,
  payWithTestWallet,
  prepareCheckoutTransaction,
  quoteCheckoutAssets,
  submitCheckoutTransaction,
} from "./checkout-transactions.service.ts";

function checkoutDeps(ctx: GraphQLContext): CheckoutDeps {
  const { ledger } = ctx.deps;
  if (!ledger) throw new Error("the ledger is not configured for GraphQL");
  return { ...ctx.deps, ledger };
}

const CheckoutTransaction = builder.objectRef<PreparedTransaction>("CheckoutTransaction").implement({
  description: "An unsigned transaction that pays a payment, for the payer's wallet to sign",
  fields: (t) => ({
    xdr: t.exposeString("xdr", { description: "the unsigned transaction envelope, base64" }),
    networkPassphrase: t.exposeString("networkPassphrase"),
    payAsset: t.field({ type: AssetRef, resolve: (p) => p.payAsset }),
    amount: t.string({ description: "what the settlement wallet receives", resolve: (p) => formatStroops(p.amount) }),
    sendMax: t.string({ description: "the most the payer spends in payAsset", resolve: (p) => formatStroops(p.sendMax) }),
  }),
});

const CheckoutSubmissionType = builder.objectRef<CheckoutSubmission>("CheckoutSubmission").implement({
  fields: (t) => ({
    txHash: t.exposeString("txHash"),
    successful: t.exposeBoolean("successful"),
    resultCodes: t.exposeStringList("resultCodes"),
    paymentStatus: t.exposeString("paymentStatus", { description: "completion follows from the ledger, live" }),
  }),
});

const AssetQuoteType = builder.objectRef<AssetQuote>("AssetQuote").implement({
  description: "What the amount still due costs in one allowed asset now; the wallet is asked for at most 1 % more",
  fields: (t) => ({
    asset: t.field({ type: AssetRef, resolve: (q) => q.asset }),
    amount: t.string({ resolve: (q) => formatStroops(q.amount) }),
  }),
});

builder.objectField(CheckoutViewType, "quotes", (t) =>
  t.field({
    type: [AssetQuoteType],
    description: "The price in each allowed asset before the payer chooses (the settlement asset first); empty when there is nothing to pay",
    resolve: (view, _args, ctx) => (view.paymentId && view.instructions && ctx.deps.ledger ? quoteCheckoutAssets(checkoutDeps(ctx), view.paymentId) : []),
  }),
);

builder.mutationFields((t) => ({
  prepareCheckoutTransaction: t.field({
    ...PUBLIC_FIELD,
    type: CheckoutTransaction,
    args: {
      paymentId: t.arg.id({ required: true }),
      payerAddress: t.arg.string({ required: true }),
      payAsset: t.arg({ type: AssetRefInput, description: "defaults to the settlement asset" }),
    },
    resolve: (_root, args, ctx) =>
      prepareCheckoutTransaction(checkoutDeps(ctx), {
        paymentId: String(args.paymentId),
        payerAddress: args.payerAddress,
        payAsset: args.payAsset ? parseInput(assetRefSchema, assetInput(args.payAsset), "payAsset") : null,
      }),
  }),
  submitCheckoutTransaction: t.field({
    ...PUBLIC_FIELD,
    type: CheckoutSubmissionType,
    args: { paymentId: t.arg.id({ required: true }), signedXdr: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) =>
      submitCheckoutTransaction(checkoutDeps(ctx), { paymentId: String(args.paymentId), signedXdr: args.signedXdr }),
  }),
  payWithTestWallet: t.field({
    ...PUBLIC_FIELD,
    type: CheckoutSubmissionType,
    description: "Sandbox only: pays the payment from a throwaway funded test account",
    args: { paymentId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => payWithTestWallet(checkoutDeps(ctx), { paymentId: String(args.paymentId) }),
  }),
}));

import { builder } from "../../graphql/builder.ts";
import { type GraphQLContext, requireService } from "../../graphql/context.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import type { GraphQLResolveInfo } from "graphql";
import { type ConnectionArgs, listConnection, withSelectedRelations } from "../../graphql/connection.ts";
import { assetFieldsInput, AssetRef, AssetRefInput, defined } from "../../graphql/shared-types.ts";
import { parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata, parseInput } from "../../shared/validation.ts";
import { PAYMENT_STATUSES, SOURCE_TYPES, createPaymentSchema } from "./payments.inputs.ts";
import { createPayment, getPayment } from "./payments.service.ts";
import { type PaymentFilters, listPayments, paymentsIncluding } from "./payments.store.ts";
import { checkoutUrl } from "./payments.view.ts";

export const PaymentStatusEnum = builder.enumType("PaymentStatus", { values: PAYMENT_STATUSES });
const SourceTypeEnum = builder.enumType("PaymentSourceType", { values: SOURCE_TYPES });

export const PaymentType = builder.prismaObject("Payment", {
  fields: (t) => ({
    id: t.exposeID("id"),
    amount: t.string({ resolve: (p) => formatStroops(p.amount) }),
    settlementAsset: t.field({
      type: AssetRef,
      resolve: (p) => ({ code: p.settlementAssetCode, issuer: p.settlementAssetIssuer }),
    }),
    allowedAssets: t.field({ type: [AssetRef], resolve: (p) => parseAssetList(p.allowedAssets) }),
    paidAsset: t.field({
      type: AssetRef,
      nullable: true,
      resolve: (p) => (p.paidAssetCode ? { code: p.paidAssetCode, issuer: p.paidAssetIssuer } : null),
    }),
    status: t.field({ type: PaymentStatusEnum, resolve: (p) => p.status as (typeof PAYMENT_STATUSES)[number] }),
    description: t.exposeString("description", { nullable: true }),
    metadata: t.field({ type: "Metadata", nullable: true, resolve: (p) => deserializeMetadata(p.metadata) }),
    checkoutUrl: t.string({ resolve: (p, _args, ctx) => checkoutUrl(ctx.deps.config.publicUrl, p.id) }),
    sourceType: t.field({ type: SourceTypeEnum, resolve: (p) => p.sourceType as (typeof SOURCE_TYPES)[number] }),
    customerId: t.exposeString("customerId", { nullable: true }),
    customer: t.relation("customer", { nullable: true }),
    payerAddress: t.exposeString("payerAddress", { nullable: true }),
    txHash: t.exposeString("txHash", { nullable: true }),
    confirmedAt: t.expose("confirmedAt", { type: "DateTime", nullable: true }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    amountReceived: t.string({ resolve: (p) => formatStroops(p.amountReceived) }),
    amountRefunded: t.string({ description: "what refunds sent back (those that succeeded)", resolve: (p) => formatStroops(p.amountRefunded) }),
    late: t.exposeBoolean("late"),
    failureReason: t.exposeString("failureReason", { nullable: true }),
    manualCompletionReason: t.exposeString("manualCompletionReason", { nullable: true, description: "why it was marked completed by hand" }),
    pricingCurrency: t.exposeString("pricingCurrency", { nullable: true }),
    pricingAmount: t.exposeString("pricingAmount", { nullable: true }),
  }),
});

/** A connection of payments (Query.payments, Customer.payments): a page of the list of payments. */
export function paymentConnection(ctx: GraphQLContext, info: GraphQLResolveInfo, args: ConnectionArgs, filters: PaymentFilters) {
  const service = requireService(ctx);
  const withRelations = withSelectedRelations(ctx, info, (ids, query) => paymentsIncluding(service, ids, query));
  return listConnection(args, (page) => listPayments(service, filters, page).then(withRelations), (p) => p.id);
}

builder.queryFields((t) => ({
  // A plain field, not a prismaField: the payment is read by its typed query, which takes no Prisma
  // selection, so the one Pothos plans from the request on every call (a twentieth of the query's
  // CPU, #29) went unused; a selected relation (customer) loads as it did, by Pothos' fallback.
  payment: t.field({
    type: PaymentType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => getPayment(requireService(ctx), String(args.id)),
  }),
  payments: t.connection({
    type: PaymentType,
    args: {
      status: t.arg({ type: PaymentStatusEnum }),
      customerId: t.arg.string(),
      createdFrom: t.arg({ type: "DateTime", description: "created at or after" }),
      createdTo: t.arg({ type: "DateTime", description: "created before" }),
      search: t.arg.string({
        description:
          "what a merchant types: the start (3 characters or more; a shorter word matches whole words) of the id (with or without pay_), of a word of the description or of a metadata value, of the transaction hash; an amount in the payment's asset (12.5); a part of the customer's name or email. Several words: all must match. At most 200 characters and 8 words",
      }),
    },
    resolve: (_root, args, ctx, info) =>
      paymentConnection(ctx, info, args, {
        status: args.status,
        customerId: args.customerId || null,
        createdFrom: args.createdFrom,
        createdTo: args.createdTo,
        search: args.search?.trim() || null,
      }),
  }),
}));

const CreatePaymentInput = builder.inputType("CreatePaymentInput", {
  fields: (t) => ({
    amount: t.string(),
    pricingCurrency: t.string(),
    pricingAmount: t.string(),
    settlementAsset: t.field({ type: AssetRefInput }),
    asset: t.string({ description: "quickstart form: an enabled asset's code" }),
    allowedAssets: t.field({ type: [AssetRefInput] }),
    description: t.string(),
    metadata: t.field({ type: "Metadata" }),
    expiresInMinutes: t.int(),
    customerId: t.string(),
  }),
});

builder.mutationFields((t) => ({
  createPayment: t.prismaField({
    type: "Payment",
    args: {
      input: t.arg({ type: CreatePaymentInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: (_query, _root, { input, idempotencyKey }, ctx) => {
      const service = requireService(ctx);
      const body = defined({
        amount: input.amount,
        pricing_currency: input.pricingCurrency,
        pricing_amount: input.pricingAmount,
        ...assetFieldsInput(input),
        asset: input.asset,
        description: input.description,
        metadata: input.metadata,
        expires_in_minutes: input.expiresInMinutes,
        customer_id: input.customerId,
      });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "createPayment", input: body },
        () => createPayment(service, parseInput(createPaymentSchema, body, "input")),
        (id) => getPayment(service, id),
      );
    },
  }),
}));

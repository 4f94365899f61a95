import { builder } from "../../graphql/builder.ts";
import { type GraphQLContext, requireService } from "../../graphql/context.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import type { GraphQLResolveInfo } from "graphql";
import { type ConnectionArgs, listConnection, withSelectedRelations } from "../../graphql/connection.ts";
import { assetFieldsInput, AssetRef, AssetRefInput, defined } from "../../graphql/shared-types.ts";
import { parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata, parseInput } from "../../shared/validation.ts";
import { PaymentStatusEnum } from "../payments/payments.graphql.ts";
import type { PaymentStatus } from "../payments/payments.inputs.ts";
import { CHECKOUT_SESSION_STATUSES, type CheckoutSessionStatus, createCheckoutSessionSchema } from "./checkout-sessions.inputs.ts";
import { createCheckoutSession, getCheckoutSession } from "./checkout-sessions.service.ts";
import { type CheckoutSessionFilters, checkoutSessionsIncluding, listCheckoutSessions } from "./checkout-sessions.store.ts";
import { checkoutSessionUrl } from "./checkout-sessions.view.ts";

const CheckoutSessionStatusEnum = builder.enumType("CheckoutSessionStatus", { values: CHECKOUT_SESSION_STATUSES });

export const CheckoutSessionType = builder.prismaObject("CheckoutSession", {
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.field({ type: CheckoutSessionStatusEnum, resolve: (s) => s.status as CheckoutSessionStatus }),
    checkoutUrl: t.string({ resolve: (s, _args, ctx) => checkoutSessionUrl(ctx.deps.config.publicUrl, s.id) }),
    paymentIntentId: t.exposeString("paymentId"),
    payment: t.relation("payment"),
    amount: t.string({ select: { payment: true }, resolve: (s) => formatStroops(s.payment.amount) }),
    settlementAsset: t.field({
      type: AssetRef,
      select: { payment: true },
      resolve: (s) => ({ code: s.payment.settlementAssetCode, issuer: s.payment.settlementAssetIssuer }),
    }),
    allowedAssets: t.field({ type: [AssetRef], select: { payment: true }, resolve: (s) => parseAssetList(s.payment.allowedAssets) }),
    paymentStatus: t.field({ type: PaymentStatusEnum, select: { payment: true }, resolve: (s) => s.payment.status as PaymentStatus }),
    customerId: t.exposeString("customerId", { nullable: true }),
    customer: t.relation("customer", { nullable: true }),
    paymentLinkId: t.exposeString("paymentLinkId", { nullable: true }),
    successUrl: t.exposeString("successUrl", { nullable: true }),
    cancelUrl: t.exposeString("cancelUrl", { nullable: true }),
    metadata: t.field({ type: "Metadata", nullable: true, resolve: (s) => deserializeMetadata(s.metadata) }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

/** A connection of sessions (Query.checkoutSessions, PaymentLink.checkoutSessions): a page of the list of sessions. */
export function checkoutSessionConnection(ctx: GraphQLContext, info: GraphQLResolveInfo, args: ConnectionArgs, filters: CheckoutSessionFilters) {
  const service = requireService(ctx);
  const withRelations = withSelectedRelations(ctx, info, (ids, query) => checkoutSessionsIncluding(service, ids, query));
  return listConnection(args, (page) => listCheckoutSessions(service, filters, page).then(withRelations), (s) => s.id);
}

builder.queryFields((t) => ({
  checkoutSession: t.prismaField({
    type: "CheckoutSession",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => getCheckoutSession(requireService(ctx), String(args.id)),
  }),
  checkoutSessions: t.connection({
    type: CheckoutSessionType,
    args: { status: t.arg({ type: CheckoutSessionStatusEnum }), customerId: t.arg.string() },
    resolve: (_root, args, ctx, info) =>
      checkoutSessionConnection(ctx, info, args, { status: args.status, customerId: args.customerId || null }),
  }),
}));

const CreateCheckoutSessionInput = builder.inputType("CreateCheckoutSessionInput", {
  fields: (t) => ({
    amount: t.string({ required: true }),
    settlementAsset: t.field({ type: AssetRefInput }),
    allowedAssets: t.field({ type: [AssetRefInput] }),
    description: t.string(),
    successUrl: t.string(),
    cancelUrl: t.string(),
    customerId: t.string(),
    metadata: t.field({ type: "Metadata" }),
    expiresInMinutes: t.int(),
  }),
});

builder.mutationFields((t) => ({
  createCheckoutSession: t.prismaField({
    type: "CheckoutSession",
    args: {
      input: t.arg({ type: CreateCheckoutSessionInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: (_query, _root, { input, idempotencyKey }, ctx) => {
      const service = requireService(ctx);
      const body = defined({
        amount: input.amount,
        ...assetFieldsInput(input),
        description: input.description,
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        customer_id: input.customerId,
        metadata: input.metadata,
        expires_in_minutes: input.expiresInMinutes,
      });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "createCheckoutSession", input: body },
        () => createCheckoutSession(service, parseInput(createCheckoutSessionSchema, body, "input")),
        (id) => getCheckoutSession(service, id),
      );
    },
  }),
}));

import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import { listConnection } from "../../graphql/connection.ts";
import { assetFieldsInput, AssetRef, AssetRefInput, defined } from "../../graphql/shared-types.ts";
import { parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata, parseInput } from "../../shared/validation.ts";
import { createPaymentLinkSchema } from "./payment-links.inputs.ts";
import { CheckoutSessionType, checkoutSessionConnection } from "../checkout-sessions/checkout-sessions.graphql.ts";
import { createPaymentLink, getPaymentLink, setPaymentLinkActive } from "./payment-links.service.ts";
import { listPaymentLinks } from "./payment-links.store.ts";
import { paymentLinkUrl } from "./payment-links.view.ts";

const PaymentLinkType = builder.prismaObject("PaymentLink", {
  fields: (t) => ({
    id: t.exposeID("id"),
    amount: t.string({ resolve: (l) => formatStroops(l.amount) }),
    settlementAsset: t.field({ type: AssetRef, resolve: (l) => ({ code: l.settlementAssetCode, issuer: l.settlementAssetIssuer }) }),
    allowedAssets: t.field({ type: [AssetRef], resolve: (l) => parseAssetList(l.allowedAssets) }),
    active: t.exposeBoolean("active"),
    url: t.string({ resolve: (l, _args, ctx) => paymentLinkUrl(ctx.deps.config.publicUrl, l.id) }),
    environment: t.exposeString("environment"),
    description: t.exposeString("description", { nullable: true }),
    metadata: t.field({ type: "Metadata", nullable: true, resolve: (l) => deserializeMetadata(l.metadata) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    checkoutSessions: t.connection({
      type: CheckoutSessionType,
      resolve: (link, args, ctx, info) => checkoutSessionConnection(ctx, info, args, { paymentLinkId: link.id }),
    }),
  }),
});

builder.queryFields((t) => ({
  paymentLink: t.prismaField({
    type: "PaymentLink",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => getPaymentLink(requireService(ctx), String(args.id)),
  }),
  paymentLinks: t.connection({
    type: PaymentLinkType,
    args: { active: t.arg.boolean() },
    resolve: (_root, args, ctx) =>
      listConnection(args, (page) => listPaymentLinks(requireService(ctx), { active: args.active }, page), (l) => l.id),
  }),
}));

const CreatePaymentLinkInput = builder.inputType("CreatePaymentLinkInput", {
  fields: (t) => ({
    amount: t.string({ required: true }),
    settlementAsset: t.field({ type: AssetRefInput }),
    allowedAssets: t.field({ type: [AssetRefInput] }),
    description: t.string(),
    metadata: t.field({ type: "Metadata" }),
  }),
});

builder.mutationFields((t) => ({
  createPaymentLink: t.prismaField({
    type: "PaymentLink",
    args: {
      input: t.arg({ type: CreatePaymentLinkInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: (_query, _root, { input, idempotencyKey }, ctx) => {
      const service = requireService(ctx);
      const body = defined({
        amount: input.amount,
        ...assetFieldsInput(input),
        description: input.description,
        metadata: input.metadata,
      });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "createPaymentLink", input: body },
        () => createPaymentLink(service, parseInput(createPaymentLinkSchema, body, "input")),
        (id) => getPaymentLink(service, id),
      );
    },
  }),
  activatePaymentLink: t.prismaField({
    type: "PaymentLink",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => setPaymentLinkActive(requireService(ctx), String(args.id), true),
  }),
  deactivatePaymentLink: t.prismaField({
    type: "PaymentLink",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => setPaymentLinkActive(requireService(ctx), String(args.id), false),
  }),
}));

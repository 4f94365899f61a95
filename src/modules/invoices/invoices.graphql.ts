import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import { listConnection, withSelectedRelations } from "../../graphql/connection.ts";
import { AssetRef, defined } from "../../graphql/shared-types.ts";
import { XLM, parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata, parseInput } from "../../shared/validation.ts";
import { checkoutSessionUrl } from "../checkout-sessions/checkout-sessions.view.ts";
import { INVOICE_STATUSES, type InvoiceStatus, createInvoiceSchema } from "./invoices.inputs.ts";
import { createInvoice, finalizeInvoice, getInvoice, sendInvoice, voidInvoice } from "./invoices.service.ts";
import { invoicesIncluding, listInvoices } from "./invoices.store.ts";
import { hostedInvoiceUrl } from "./invoices.view.ts";

const InvoiceStatusEnum = builder.enumType("InvoiceStatus", { values: INVOICE_STATUSES });

builder.prismaObject("InvoiceItem", {
  fields: (t) => ({
    description: t.exposeString("description"),
    quantity: t.exposeString("quantity"),
    unitAmount: t.string({ resolve: (item) => formatStroops(item.unitAmount) }),
  }),
});

const InvoiceType = builder.prismaObject("Invoice", {
  fields: (t) => ({
    id: t.exposeID("id"),
    invoiceNumber: t.exposeString("invoiceNumber"),
    status: t.field({ type: InvoiceStatusEnum, resolve: (i) => i.status as InvoiceStatus }),
    amount: t.string({ resolve: (i) => formatStroops(i.amount) }),
    settlementAsset: t.field({
      type: AssetRef,
      nullable: true,
      description: "the linked payment's; a draft's is the one finalizing gives its payment (XLM), so its amount is never shown bare",
      select: { payment: true },
      resolve: (i) => (i.payment ? { code: i.payment.settlementAssetCode, issuer: i.payment.settlementAssetIssuer } : XLM),
    }),
    allowedAssets: t.field({
      type: [AssetRef],
      nullable: true,
      select: { payment: true },
      resolve: (i) => (i.payment ? parseAssetList(i.payment.allowedAssets) : null),
    }),
    description: t.exposeString("description", { nullable: true }),
    metadata: t.field({ type: "Metadata", nullable: true, resolve: (i) => deserializeMetadata(i.metadata) }),
    customerId: t.exposeString("customerId", { nullable: true }),
    customer: t.relation("customer", { nullable: true }),
    checkoutSessionId: t.exposeString("checkoutSessionId", { nullable: true }),
    checkoutSession: t.relation("checkoutSession", { nullable: true }),
    checkoutUrl: t.string({
      nullable: true,
      resolve: (i, _args, ctx) => (i.checkoutSessionId ? checkoutSessionUrl(ctx.deps.config.publicUrl, i.checkoutSessionId) : null),
    }),
    hostedInvoiceUrl: t.string({ resolve: (i, _args, ctx) => hostedInvoiceUrl(ctx.deps.config.publicUrl, i.id) }),
    paymentIntentId: t.exposeString("paymentId", { nullable: true }),
    payment: t.relation("payment", { nullable: true }),
    items: t.relation("items", { query: { orderBy: { position: "asc" } } }),
    dueAt: t.expose("dueAt", { type: "DateTime" }),
    paidAt: t.expose("paidAt", { type: "DateTime", nullable: true }),
    sentAt: t.expose("sentAt", { type: "DateTime", nullable: true }),
    finalizedAt: t.expose("finalizedAt", { type: "DateTime", nullable: true }),
    voidedAt: t.expose("voidedAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  invoice: t.prismaField({
    type: "Invoice",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => getInvoice(requireService(ctx), String(args.id)),
  }),
  invoices: t.connection({
    type: InvoiceType,
    args: {
      status: t.arg({ type: InvoiceStatusEnum }),
      customerId: t.arg.string(),
      search: t.arg.string({
        description:
          "what a merchant types: a part of the id (with or without inv_) or number, of the description, of a line item or a metadata value, of the customer's name or email; an amount (12.5). Several words: all must be found. At most 200 characters and 8 words",
      }),
    },
    resolve: (_root, args, ctx, info) => {
      const service = requireService(ctx);
      const withRelations = withSelectedRelations(ctx, info, (ids, query) => invoicesIncluding(service, ids, query));
      const filters = { status: args.status, customerId: args.customerId || null, search: args.search?.trim() || null };
      return listConnection(args, (page) => listInvoices(service, filters, page).then(withRelations), (i) => i.id);
    },
  }),
}));

const InvoiceItemInput = builder.inputType("InvoiceItemInput", {
  fields: (t) => ({
    description: t.string({ required: true }),
    quantity: t.string({ required: true }),
    unitAmount: t.string({ required: true }),
  }),
});

const CreateInvoiceInput = builder.inputType("CreateInvoiceInput", {
  fields: (t) => ({
    amount: t.string({ description: "required unless items are given; must equal their total when both are" }),
    customerId: t.string(),
    description: t.string(),
    metadata: t.field({ type: "Metadata" }),
    dueInDays: t.int(),
    items: t.field({ type: [InvoiceItemInput] }),
  }),
});

builder.mutationFields((t) => ({
  createInvoice: t.prismaField({
    type: "Invoice",
    args: {
      input: t.arg({ type: CreateInvoiceInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: (_query, _root, { input, idempotencyKey }, ctx) => {
      const service = requireService(ctx);
      const body = defined({
        amount: input.amount,
        customer_id: input.customerId,
        description: input.description,
        metadata: input.metadata,
        due_in_days: input.dueInDays,
        items: input.items?.map((item) => ({ description: item.description, quantity: item.quantity, unit_amount: item.unitAmount })) ??
          input.items,
      });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "createInvoice", input: body },
        () => createInvoice(service, parseInput(createInvoiceSchema, body, "input")),
        (id) => getInvoice(service, id),
      );
    },
  }),
  finalizeInvoice: t.prismaField({
    type: "Invoice",
    description: "draft -> open; the invoice's checkoutUrl is then set",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, args, ctx) => (await finalizeInvoice(requireService(ctx), String(args.id))).invoice,
  }),
  voidInvoice: t.prismaField({
    type: "Invoice",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => voidInvoice(requireService(ctx), String(args.id)),
  }),
  sendInvoice: t.prismaField({
    type: "Invoice",
    description:
      "Mails an open invoice to its customer (who must have an email) and sets sentAt. Sending again mails again and moves sentAt; draft, paid and void invoices are refused (CONFLICT).",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => sendInvoice(requireService(ctx), String(args.id)),
  }),
}));

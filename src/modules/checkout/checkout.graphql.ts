// The public checkout in GraphQL: `checkout(id)` (query, first load) and `checkout(id)` (subscription,
// live), needing no API key and exposing only CheckoutView's public fields; and the dashboards'
// `paymentEvents`, which needs a key and is confined to its organization and environment.
import { PUBLIC_FIELD, builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { AssetRef } from "../../graphql/shared-types.ts";
import type { PaymentInstructions } from "../payments/payment-instructions.ts";
import { payableAssets } from "../checkout-transactions/checkout-transactions.service.ts";
import { PaymentType } from "../payments/payments.graphql.ts";
import { unlessRevoked } from "../events/changes.live.ts";
import { type PaymentEventPayload, liveUpdatesFor } from "./checkout.live.ts";
import {
  CHECKOUT_KINDS,
  CHECKOUT_STATES,
  type CheckoutInvoice,
  type CheckoutReceipt,
  type CheckoutView,
  loadCheckout,
} from "./checkout.service.ts";

const CheckoutStateEnum = builder.enumType("CheckoutState", {
  description:
    "What the checkout page shows: open (awaiting payment), paid, failed (the last attempt failed; payable again until it expires), expired, inactive (payment link), void or draft (invoice)",
  values: CHECKOUT_STATES,
});
const CheckoutKindEnum = builder.enumType("CheckoutKind", { values: CHECKOUT_KINDS });

const CheckoutInstructionsType = builder.objectRef<PaymentInstructions>("CheckoutInstructions").implement({
  description: "How to pay the amount still due on the Stellar ledger",
  fields: (t) => ({
    destination: t.exposeString("destination"),
    muxedDestination: t.exposeString("muxed_destination"),
    memoType: t.exposeString("memo_type"),
    memo: t.exposeString("memo"),
    networkPassphrase: t.exposeString("network_passphrase"),
    sep7Uri: t.exposeString("sep7_uri"),
  }),
});

const CheckoutReceiptType = builder.objectRef<CheckoutReceipt>("CheckoutReceipt").implement({
  fields: (t) => ({
    txHash: t.exposeString("txHash", { nullable: true }),
    payerAddress: t.exposeString("payerAddress", { nullable: true }),
    paidAsset: t.field({ type: AssetRef, nullable: true, resolve: (r) => r.paidAsset }),
    confirmedAt: t.expose("confirmedAt", { type: "DateTime", nullable: true }),
    explorerUrl: t.exposeString("explorerUrl", { nullable: true }),
  }),
});

type InvoiceLine = CheckoutInvoice["items"][number];
const CheckoutInvoiceLineType = builder.objectRef<InvoiceLine>("CheckoutInvoiceLine").implement({
  fields: (t) => ({
    description: t.exposeString("description"),
    quantity: t.exposeString("quantity"),
    unitAmount: t.exposeString("unitAmount"),
    amount: t.exposeString("amount"),
  }),
});

const CheckoutInvoiceType = builder.objectRef<CheckoutInvoice>("CheckoutInvoice").implement({
  fields: (t) => ({
    number: t.exposeString("number"),
    status: t.exposeString("status"),
    dueAt: t.expose("dueAt", { type: "DateTime" }),
    items: t.field({ type: [CheckoutInvoiceLineType], resolve: (i) => i.items }),
  }),
});

export const CheckoutViewType = builder.objectRef<CheckoutView>("CheckoutView").implement({
  description: "The public face of a payment, checkout session, invoice or payment link: safe to show a payer",
  fields: (t) => ({
    id: t.exposeID("id"),
    kind: t.field({ type: CheckoutKindEnum, resolve: (v) => v.kind }),
    state: t.field({ type: CheckoutStateEnum, resolve: (v) => v.state }),
    paymentId: t.exposeString("paymentId", { nullable: true }),
    merchantName: t.exposeString("merchantName"),
    description: t.exposeString("description", { nullable: true }),
    amount: t.exposeString("amount", { nullable: true }),
    amountReceived: t.exposeString("amountReceived", { nullable: true }),
    settlementAsset: t.field({ type: AssetRef, nullable: true, resolve: (v) => v.settlementAsset }),
    allowedAssets: t.field({
      type: [AssetRef],
      description: "The assets the payer may pay in: only the settlement asset on a network watched through Stellar RPC without Horizon (it finds no paths)",
      resolve: (v, _args, ctx) => payableAssets(ctx.deps.ledger, v),
    }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
    sandbox: t.exposeBoolean("sandbox"),
    network: t.exposeString("network", { description: "testnet or public" }),
    instructions: t.field({ type: CheckoutInstructionsType, nullable: true, resolve: (v) => v.instructions }),
    receipt: t.field({ type: CheckoutReceiptType, nullable: true, resolve: (v) => v.receipt }),
    failureReason: t.exposeString("failureReason", { nullable: true }),
    successUrl: t.exposeString("successUrl", { nullable: true }),
    cancelUrl: t.exposeString("cancelUrl", { nullable: true }),
    invoice: t.field({ type: CheckoutInvoiceType, nullable: true, resolve: (v) => v.invoice }),
  }),
});

const PaymentEventType = builder.objectRef<PaymentEventPayload>("PaymentEvent").implement({
  description: "A committed payment event of the outbox, with the payment as it is now",
  fields: (t) => ({
    seq: t.exposeInt("seq", { description: "commit order; pass the last one seen as `after` when reconnecting" }),
    type: t.exposeString("type"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    payment: t.field({ type: PaymentType, resolve: (e) => e.payment }),
  }),
});

builder.queryFields((t) => ({
  checkout: t.field({
    ...PUBLIC_FIELD,
    type: CheckoutViewType,
    description: "Public, no API key: a checkout by the id in its URL (pay_, cs_, inv_ or plink_)",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => loadCheckout(ctx.deps, String(args.id)),
  }),
}));

builder.subscriptionFields((t) => ({
  checkout: t.field({
    ...PUBLIC_FIELD,
    type: CheckoutViewType,
    description: "Public, no API key: the checkout's current state, then every change of it",
    args: { id: t.arg.id({ required: true }) },
    subscribe: (_root, args, ctx) => liveUpdatesFor(ctx.deps).watchCheckout(String(args.id)),
    resolve: (view) => view,
  }),
  paymentEvents: t.field({
    type: PaymentEventType,
    description:
      "Every payment event of the key's organization and environment; with `after`, the missed ones first. Ends with UNAUTHENTICATED when the key is revoked",
    args: { after: t.arg.int({ description: "replay events with a greater seq first" }) },
    subscribe: (_root, args, ctx) => liveUpdatesFor(ctx.deps).watchPaymentEvents(requireService(ctx), args.after),
    // A revoked key's stream ends with UNAUTHENTICATED, as its next request would.
    resolve: unlessRevoked,
  }),
}));

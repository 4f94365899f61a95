// Refunds on GraphQL: the merchant's (create, list, sign and submit, cancel; "write" for the moves,
// as every money action) and the payer's public claim, by the refund's id (the page /r/<id>).
import type { Refund } from "../../generated/sqlite/client.ts";
import { PUBLIC_FIELD, builder } from "../../graphql/builder.ts";
import { type GraphQLContext, requireService } from "../../graphql/context.ts";
import { listConnection } from "../../graphql/connection.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import { AssetRef, defined } from "../../graphql/shared-types.ts";
import { notFound } from "../../errors.ts";
import { explorerTxUrl, networkNameOf } from "../../shared/network.ts";
import { merchantName } from "../organizations/organizations.store.ts";
import { formatStroops } from "../../shared/money.ts";
import { parseInput } from "../../shared/validation.ts";
import { applyUnmatchedLedgerPayment } from "../ledger-payments/unmatched-desk.ts";
import { PaymentType } from "../payments/payments.graphql.ts";
import { getPayment } from "../payments/payments.service.ts";
import { REFUND_MEMO_TYPES, REFUND_STATUSES, applyUnmatchedSchema, claimRefundSchema, createRefundSchema, refundUnmatchedSchema, submitRefundSchema } from "./refunds.inputs.ts";
import {
  type RefundDeps,
  cancelRefund,
  claimRefund,
  createRefund,
  getRefund,
  needsClaimableBalance,
  prepareRefundTransaction,
  refundUnmatchedLedgerPayment,
  refundableOf,
  submitRefund,
  withLedger,
} from "./refunds.service.ts";
import { unlessRevoked } from "../events/changes.live.ts";
import { watchRefund, watchRefundChanges } from "./refunds.live.ts";
import { REFUND_TIMELINE_TYPES, type RefundTimelineEntry, refundTimeline } from "./refunds.timeline.ts";
import { listRefunds, refundById } from "./refunds.store.ts";
import { type PreparedRefundTransaction, refundClaimUrl } from "./refunds.view.ts";

const RefundStatusEnum = builder.enumType("RefundStatus", { values: REFUND_STATUSES });
const RefundMemoTypeEnum = builder.enumType("RefundMemoType", { values: REFUND_MEMO_TYPES });

const refundDeps = (ctx: GraphQLContext): RefundDeps => withLedger(ctx.deps, ctx.deps.ledger);
const refundService = (ctx: GraphQLContext) => withLedger(requireService(ctx), ctx.deps.ledger);

const RefundTransactionType = builder.objectRef<PreparedRefundTransaction>("RefundTransaction").implement({
  description: "The refund's transaction for the settlement wallet's key to sign, built with the wallet's current sequence (valid 30 minutes)",
  fields: (t) => ({
    xdr: t.exposeString("xdr", { description: "the unsigned transaction envelope, base64" }),
    sep7Uri: t.exposeString("sep7Uri", { description: "a SEP-7 web+stellar:tx URI, for a mobile wallet (a QR code)" }),
    claimableBalance: t.exposeBoolean("claimableBalance", { description: "the destination has no trustline for the asset: it gets a claimable balance to claim" }),
  }),
});

const refundFields = {
  amount: (r: Refund) => formatStroops(r.amount),
  asset: (r: Refund) => ({ code: r.assetCode, issuer: r.assetIssuer }),
  status: (r: Refund) => r.status as (typeof REFUND_STATUSES)[number],
  memoType: (r: Refund) => r.destinationMemoType as (typeof REFUND_MEMO_TYPES)[number] | null,
};

const EXPLORER_URL = "once sent, its transaction on a public explorer; null on a network no public explorer shows (the simulated one: show txHash)";

/** Its transaction on a public explorer (stellar.expert), or null: not sent yet, or a network none shows (simulated, private). */
const refundExplorerUrl = (ctx: GraphQLContext, r: Refund) =>
  r.txHash && !refundDeps(ctx).ledger.simulatedNetwork(r.networkPassphrase) ? explorerTxUrl(r.networkPassphrase, r.txHash) : null;

const RefundTimelineTypeEnum = builder.enumType("RefundTimelineType", { values: REFUND_TIMELINE_TYPES });

const RefundTimelineEntryType = builder.objectRef<RefundTimelineEntry>("RefundTimelineEntry").implement({
  description: "One step of a refund's life, as its activity log and its record say",
  fields: (t) => ({
    type: t.field({ type: RefundTimelineTypeEnum, resolve: (e) => e.type }),
    at: t.expose("at", { type: "DateTime" }),
    actor: t.exposeString("actor", { nullable: true, description: "who did it (a user's email, a key's prefix, the payer); null for the ledger or the service" }),
    detail: t.exposeString("detail", { nullable: true, description: "the amount and reason, the destination, the transaction's hash or the failure" }),
  }),
});

const RefundType = builder.prismaObject("Refund", {
  fields: (t) => ({
    id: t.exposeID("id"),
    paymentId: t.exposeString("paymentId", { nullable: true }),
    payment: t.field({ type: PaymentType, nullable: true, resolve: (r, _args, ctx) => (r.paymentId ? getPayment(requireService(ctx), r.paymentId) : null) }),
    ledgerOperationId: t.exposeString("ledgerOperationId", { nullable: true, description: "the unmatched ledger payment it sends back" }),
    amount: t.string({ resolve: refundFields.amount }),
    asset: t.field({ type: AssetRef, resolve: refundFields.asset }),
    status: t.field({ type: RefundStatusEnum, resolve: refundFields.status }),
    reason: t.exposeString("reason", { nullable: true }),
    destinationAddress: t.exposeString("destinationAddress", { nullable: true }),
    destinationMemo: t.exposeString("destinationMemo", { nullable: true }),
    destinationMemoType: t.field({ type: RefundMemoTypeEnum, nullable: true, resolve: refundFields.memoType }),
    sourceAddress: t.exposeString("sourceAddress", { description: "the settlement wallet that sends it (signs its transaction)" }),
    networkPassphrase: t.exposeString("networkPassphrase"),
    claimUrl: t.string({ nullable: true, resolve: (r, _args, ctx) => (r.status === "pending_claim" ? refundClaimUrl(ctx.deps.config.publicUrl, r.id) : null) }),
    transaction: t.field({
      type: RefundTransactionType,
      nullable: true,
      description: "while requires_signature: its transaction to sign, built when asked",
      resolve: (r, _args, ctx) => prepareRefundTransaction(refundDeps(ctx), r),
    }),
    txHash: t.exposeString("txHash", { nullable: true }),
    explorerUrl: t.string({ nullable: true, description: EXPLORER_URL, resolve: (r, _args, ctx) => refundExplorerUrl(ctx, r) }),
    failureReason: t.exposeString("failureReason", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true }),
    events: t.field({
      type: [RefundTimelineEntryType],
      description: "its timeline, oldest first: created, claimed by its payer, transaction ready to sign, submitted, and how it ended",
      resolve: (r, _args, ctx) => refundTimeline(ctx.deps.db, r),
    }),
  }),
});

builder.objectField(PaymentType, "amountRefundable", (t) =>
  t.string({
    description: "what a refund may still send back: amountReceived less amountRefunded and what refunds in flight hold (a Refund button's prefill)",
    resolve: (payment) => formatStroops(refundableOf(payment)),
  }),
);

builder.objectField(PaymentType, "refunds", (t) =>
  t.connection({
    type: RefundType,
    description: "its refunds, newest first",
    resolve: (payment, args, ctx) => listConnection(args, (page) => listRefunds(requireService(ctx), { paymentId: payment.id }, page), (r) => r.id),
  }),
);

/** What the payer's claim page shows of a refund: nothing of the merchant's but what goes back and where. */
const RefundClaimType = builder.objectRef<Refund>("RefundClaim").implement({
  description: "A refund as its payer sees it on the claim page (/r/<refund id>)",
  fields: (t) => ({
    id: t.exposeID("id"),
    amount: t.string({ resolve: refundFields.amount }),
    asset: t.field({ type: AssetRef, resolve: refundFields.asset }),
    status: t.field({ type: RefundStatusEnum, resolve: refundFields.status }),
    destinationAddress: t.exposeString("destinationAddress", { nullable: true }),
    destinationMemo: t.exposeString("destinationMemo", { nullable: true }),
    destinationMemoType: t.field({ type: RefundMemoTypeEnum, nullable: true, resolve: refundFields.memoType }),
    claimableBalance: t.boolean({
      description: "the destination holds no trustline for the asset: the money comes as a claimable balance, which the payer claims in their wallet",
      resolve: (r, _args, ctx) => needsClaimableBalance(refundDeps(ctx).ledger.sourceFor(r.networkPassphrase), r),
    }),
    txHash: t.exposeString("txHash", { nullable: true, description: "the ledger transaction that sent it, once sent" }),
    merchantName: t.string({ description: "who is refunding: the name the merchant shows payers", resolve: (r, _args, ctx) => merchantName(ctx.deps.db, r) }),
    network: t.string({
      description: "the Stellar network the money moves on: public, testnet, simulated (this service's built-in test network) or other",
      resolve: (r, _args, ctx) => (refundDeps(ctx).ledger.simulatedNetwork(r.networkPassphrase) ? "simulated" : networkNameOf(r.networkPassphrase)),
    }),
    explorerUrl: t.string({ nullable: true, description: EXPLORER_URL, resolve: (r, _args, ctx) => refundExplorerUrl(ctx, r) }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true }),
  }),
});

builder.queryFields((t) => ({
  refund: t.prismaField({
    type: "Refund",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => getRefund(requireService(ctx), String(args.id)),
  }),
  refunds: t.connection({
    type: RefundType,
    args: { paymentId: t.arg.string(), status: t.arg({ type: RefundStatusEnum }) },
    resolve: (_root, args, ctx) =>
      listConnection(args, (page) => listRefunds(requireService(ctx), { paymentId: args.paymentId || null, status: args.status }, page), (r) => r.id),
  }),
  refundClaim: t.field({
    ...PUBLIC_FIELD,
    type: RefundClaimType,
    description: "The payer's claim page: a refund by its id, which is the page's only credential",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const refund = await refundById(ctx.deps.db, String(args.id));
      if (!refund) throw notFound();
      return refund;
    },
  }),
}));

builder.subscriptionFields((t) => ({
  refundClaim: t.field({
    ...PUBLIC_FIELD,
    type: RefundClaimType,
    description: "Public, for the claim page: the refund as it is, then after each of its events, until the money is there",
    args: { id: t.arg.id({ required: true }) },
    subscribe: (_root, args, ctx) => watchRefund(ctx.deps, String(args.id)),
    resolve: (refund) => refund,
  }),
  refundChanges: t.field({
    type: RefundType,
    description:
      "The key's (or session's) refunds as each moves (created, claimed by its payer, submitted, ended); with `id`, that refund as it is first, then its moves. Ends with UNAUTHENTICATED when the credential is revoked",
    args: { id: t.arg.id() },
    subscribe: (_root, args, ctx) => watchRefundChanges(ctx.deps, requireService(ctx).scope, args.id ? String(args.id) : null),
    resolve: unlessRevoked,
  }),
}));

const RefundDestinationInput = builder.inputType("RefundDestinationInput", {
  fields: (t) => ({
    address: t.string({ required: true }),
    memo: t.string(),
    memoType: t.field({ type: RefundMemoTypeEnum, description: "defaults to text when a memo is given" }),
  }),
});

type DestinationArg = { address: string; memo?: string | null; memoType?: string | null } | null | undefined;
const destinationInput = (d: DestinationArg) => (d ? defined({ address: d.address, memo: d.memo, memo_type: d.memoType }) : d);

const CreateRefundInput = builder.inputType("CreateRefundInput", {
  fields: (t) => ({
    paymentId: t.string({ required: true }),
    amount: t.string({ description: "defaults to all that is refundable" }),
    reason: t.string(),
    destination: t.field({ type: RefundDestinationInput, description: "defaults to the account that paid" }),
  }),
});

const RefundUnmatchedInput = builder.inputType("RefundUnmatchedLedgerPaymentInput", {
  fields: (t) => ({
    operationId: t.string({ required: true }),
    amount: t.string({ description: "defaults to all that arrived" }),
    reason: t.string(),
    destination: t.field({ type: RefundDestinationInput, description: "defaults to its sender" }),
  }),
});

builder.mutationFields((t) => ({
  createRefund: t.prismaField({
    type: "Refund",
    args: {
      input: t.arg({ type: CreateRefundInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: (_query, _root, { input, idempotencyKey }, ctx) => {
      const service = refundService(ctx);
      const body = defined({ payment_id: input.paymentId, amount: input.amount, reason: input.reason, destination: destinationInput(input.destination) });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "createRefund", input: body },
        () => createRefund(service, parseInput(createRefundSchema, body, "input")),
        (id) => getRefund(service, id),
      );
    },
  }),
  refundUnmatchedLedgerPayment: t.prismaField({
    type: "Refund",
    description: "The desk: sends an unmatched ledger payment back to its sender, through a refund",
    args: {
      input: t.arg({ type: RefundUnmatchedInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: (_query, _root, { input, idempotencyKey }, ctx) => {
      const service = refundService(ctx);
      const body = defined({ operation_id: input.operationId, amount: input.amount, reason: input.reason, destination: destinationInput(input.destination) });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "refundUnmatchedLedgerPayment", input: body },
        () => refundUnmatchedLedgerPayment(service, parseInput(refundUnmatchedSchema, body, "input")),
        (id) => getRefund(service, id),
      );
    },
  }),
  applyUnmatchedLedgerPayment: t.prismaField({
    type: "Payment",
    description: "The desk: counts an unmatched ledger payment toward a payment of the same wallet and asset (completing it when covered); the reason goes to the activity log",
    args: { operationId: t.arg.string({ required: true }), paymentId: t.arg.string({ required: true }), reason: t.arg.string({ required: true }) },
    resolve: (_query, _root, args, ctx) => {
      const input = parseInput(applyUnmatchedSchema, { operation_id: args.operationId, payment_id: args.paymentId, reason: args.reason }, "input");
      return applyUnmatchedLedgerPayment(requireService(ctx), { operationId: input.operation_id, paymentId: input.payment_id, reason: input.reason });
    },
  }),
  cancelRefund: t.prismaField({
    type: "Refund",
    description: "pending_claim or requires_signature -> canceled; 409 (CONFLICT) from any other state",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => cancelRefund(requireService(ctx), String(args.id)),
  }),
  submitRefund: t.prismaField({
    type: "Refund",
    description: "Sends the refund's transaction, signed by the settlement wallet's key, to the ledger",
    args: { id: t.arg.id({ required: true }), signedTransactionXdr: t.arg.string({ required: true }) },
    resolve: (_query, _root, args, ctx) => {
      const input = parseInput(submitRefundSchema, { signed_transaction_xdr: args.signedTransactionXdr }, "input");
      return submitRefund(refundService(ctx), String(args.id), input.signed_transaction_xdr);
    },
  }),
  claimRefund: t.field({
    ...PUBLIC_FIELD,
    type: RefundClaimType,
    description: "The payer says where a pending_claim refund goes; the account must exist (and come with its memo if it asks for one). A second claim is 409 (CONFLICT)",
    args: { id: t.arg.id({ required: true }), destination: t.arg({ type: RefundDestinationInput, required: true }) },
    resolve: (_root, args, ctx) => claimRefund(refundDeps(ctx), String(args.id), parseInput(claimRefundSchema, { destination: destinationInput(args.destination) }, "input").destination),
  }),
}));

import type { Refund } from "../../generated/sqlite/client.ts";
import type { ServiceContext } from "../../context.ts";
import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { createRefundSchema, listRefundsSchema, submitRefundSchema } from "./refunds.inputs.ts";
import { type RefundContext, cancelRefund, createRefund, getRefund, prepareRefundTransaction, submitRefund, withLedger } from "./refunds.service.ts";
import { listRefunds } from "./refunds.store.ts";
import { refundJson, refundJsonSchema } from "./refunds.view.ts";

/** The app hands /api/v1 its deps with the Ledger (app.ts), and the router passes them on in each call's context. */
const refundContext = (ctx: ServiceContext): RefundContext => withLedger(ctx, (ctx as Partial<RefundContext>).ledger);

/** One refund as an answer about it alone: with its transaction to sign, built now, while it awaits a signature. */
async function refundAnswer(ctx: RefundContext, refund: Refund) {
  return refundJson(refund, ctx.config.publicUrl, await prepareRefundTransaction(ctx, refund));
}

export const refundRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/refunds",
    operationId: "createRefund",
    summary: "Refund money a payment received: the refund's transaction is signed in the merchant's wallet",
    body: createRefundSchema,
    status: 201,
    response: refundJsonSchema,
    errors: { 400: "More than is refundable, a payment that received nothing, or a destination that is not an account (the message names the field)" },
    async handler({ ctx, body }) {
      const refunds = refundContext(ctx);
      return refundAnswer(refunds, await createRefund(refunds, body));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/refunds",
    operationId: "listRefunds",
    summary: "List refunds, newest first",
    query: listRefundsSchema,
    response: listPageJsonSchema("refunds", refundJsonSchema),
    async handler({ ctx, query }) {
      const page = await listRefunds(ctx, { paymentId: query.payment_id, status: query.status }, pageOfQuery(query));
      return { refunds: page.items.map((r) => refundJson(r, ctx.config.publicUrl)), has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/refunds/:id",
    operationId: "getRefund",
    summary: "Get a refund (while it awaits a signature, with its transaction built now)",
    response: refundJsonSchema,
    async handler({ ctx, params }) {
      const refunds = refundContext(ctx);
      return refundAnswer(refunds, await getRefund(ctx, params.id));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/refunds/:id/cancel",
    operationId: "cancelRefund",
    summary: "Cancel a refund whose transaction was not sent",
    bodyless: true,
    response: refundJsonSchema,
    errors: { 409: "The refund was submitted, succeeded, failed or was canceled" },
    async handler({ ctx, params }) {
      return refundJson(await cancelRefund(ctx, params.id), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/refunds/:id/submit",
    operationId: "submitRefund",
    summary: "Send the refund's transaction, signed by the settlement wallet's key, to the ledger",
    body: submitRefundSchema,
    response: refundJsonSchema,
    errors: {
      400: "signed_transaction_xdr is not the refund's transaction signed by the settlement wallet, or the network refused it (its result codes)",
      409: "The refund does not await a signature (pending_claim, submitted, or ended)",
    },
    async handler({ ctx, params, body }) {
      const refunds = refundContext(ctx);
      return refundAnswer(refunds, await submitRefund(refunds, params.id, body.signed_transaction_xdr));
    },
  }),
];

import { NO_SETTLEMENT_WALLET } from "../../rest/openapi.ts";
import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { markPaymentCompleted } from "./payment-completion.ts";
import { completePaymentSchema, createPaymentSchema, listPaymentsSchema } from "./payments.inputs.ts";
import { createPayment, getPayment } from "./payments.service.ts";
import { listPayments } from "./payments.store.ts";
import { paymentJson, paymentJsonSchema } from "./payments.view.ts";

export const paymentRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/payments",
    operationId: "createPayment",
    summary: "Create a payment",
    body: createPaymentSchema,
    status: 201,
    response: paymentJsonSchema,
    errors: { 400: NO_SETTLEMENT_WALLET },
    async handler({ ctx, body }) {
      return paymentJson(await createPayment(ctx, body), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/payments",
    operationId: "listPayments",
    summary: "List payments, newest first",
    query: listPaymentsSchema,
    response: listPageJsonSchema("payments", paymentJsonSchema),
    async handler({ ctx, query }) {
      const page = await listPayments(ctx, { status: query.status, customerId: query.customer_id }, pageOfQuery(query));
      return { payments: page.items.map((p) => paymentJson(p, ctx.config.publicUrl)), has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/payments/:id",
    operationId: "getPayment",
    summary: "Get a payment",
    response: paymentJsonSchema,
    async handler({ ctx, params }) {
      return paymentJson(await getPayment(ctx, params.id), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/payments/:id/complete",
    operationId: "completePayment",
    summary: "Record a pending payment as completed (paid outside the ledger watch)",
    bodyless: true,
    body: completePaymentSchema,
    response: paymentJsonSchema,
    errors: { 409: "The payment is not pending" },
    async handler({ ctx, params, body }) {
      return paymentJson(await markPaymentCompleted(ctx, params.id, body), ctx.config.publicUrl);
    },
  }),
];

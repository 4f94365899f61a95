import { type Route, created, ok } from "../../rest/router.ts";
import { parseInput } from "../../shared/validation.ts";
import { markPaymentCompleted } from "./payment-completion.ts";
import { completePaymentSchema, createPaymentSchema, listPaymentsSchema } from "./payments.inputs.ts";
import { createPayment, getPayment, listPayments } from "./payments.service.ts";
import { paymentJson } from "./payments.view.ts";

export const paymentRoutes: Route[] = [
  {
    method: "POST",
    path: "/payments",
    async handler({ ctx, body }) {
      const payment = await createPayment(ctx, parseInput(createPaymentSchema, body));
      return created(paymentJson(payment, ctx.config.publicUrl));
    },
  },
  {
    method: "GET",
    path: "/payments",
    async handler({ ctx, query }) {
      const page = await listPayments(ctx, parseInput(listPaymentsSchema, query, "query"));
      return ok({ payments: page.items.map((p) => paymentJson(p, ctx.config.publicUrl)), has_more: page.hasMore });
    },
  },
  {
    method: "GET",
    path: "/payments/:id",
    async handler({ ctx, params }) {
      return ok(paymentJson(await getPayment(ctx, params.id!), ctx.config.publicUrl));
    },
  },
  {
    method: "POST",
    path: "/payments/:id/complete",
    bodyless: true,
    async handler({ ctx, params, body }) {
      const payment = await markPaymentCompleted(ctx, params.id!, parseInput(completePaymentSchema, body));
      return ok(paymentJson(payment, ctx.config.publicUrl));
    },
  },
];

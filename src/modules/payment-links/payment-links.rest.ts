import { NO_SETTLEMENT_WALLET } from "../../rest/openapi.ts";
import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { createPaymentLinkSchema, listPaymentLinksSchema } from "./payment-links.inputs.ts";
import { createPaymentLink, getPaymentLink, setPaymentLinkActive } from "./payment-links.service.ts";
import { listPaymentLinks } from "./payment-links.store.ts";
import { paymentLinkJson, paymentLinkJsonSchema } from "./payment-links.view.ts";

export const paymentLinkRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/payment-links",
    operationId: "createPaymentLink",
    summary: "Create a payment link",
    body: createPaymentLinkSchema,
    status: 201,
    response: paymentLinkJsonSchema,
    errors: { 400: NO_SETTLEMENT_WALLET },
    async handler({ ctx, body }) {
      return paymentLinkJson(await createPaymentLink(ctx, body), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/payment-links",
    operationId: "listPaymentLinks",
    summary: "List payment links, newest first",
    query: listPaymentLinksSchema,
    response: listPageJsonSchema("payment_links", paymentLinkJsonSchema),
    async handler({ ctx, query }) {
      const page = await listPaymentLinks(ctx, { active: query.active }, pageOfQuery(query));
      return { payment_links: page.items.map((l) => paymentLinkJson(l, ctx.config.publicUrl)), has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/payment-links/:id",
    operationId: "getPaymentLink",
    summary: "Get a payment link",
    response: paymentLinkJsonSchema,
    async handler({ ctx, params }) {
      return paymentLinkJson(await getPaymentLink(ctx, params.id), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/payment-links/:id/deactivate",
    operationId: "deactivatePaymentLink",
    summary: "Deactivate a payment link: its visits are refused",
    bodyless: true,
    response: paymentLinkJsonSchema,
    async handler({ ctx, params }) {
      return paymentLinkJson(await setPaymentLinkActive(ctx, params.id, false), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/payment-links/:id/activate",
    operationId: "activatePaymentLink",
    summary: "Activate a payment link again",
    bodyless: true,
    response: paymentLinkJsonSchema,
    async handler({ ctx, params }) {
      return paymentLinkJson(await setPaymentLinkActive(ctx, params.id, true), ctx.config.publicUrl);
    },
  }),
];

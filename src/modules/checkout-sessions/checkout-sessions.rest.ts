import { NO_SETTLEMENT_WALLET } from "../../rest/openapi.ts";
import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { createCheckoutSessionSchema, listCheckoutSessionsSchema } from "./checkout-sessions.inputs.ts";
import { createCheckoutSession, getCheckoutSession } from "./checkout-sessions.service.ts";
import { listCheckoutSessions } from "./checkout-sessions.store.ts";
import { checkoutSessionJson, checkoutSessionJsonSchema } from "./checkout-sessions.view.ts";

export const checkoutSessionRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/checkout-sessions",
    operationId: "createCheckoutSession",
    summary: "Create a checkout session and its payment",
    body: createCheckoutSessionSchema,
    status: 201,
    response: checkoutSessionJsonSchema,
    errors: { 400: NO_SETTLEMENT_WALLET },
    async handler({ ctx, body }) {
      return checkoutSessionJson(await createCheckoutSession(ctx, body), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/checkout-sessions",
    operationId: "listCheckoutSessions",
    summary: "List checkout sessions, newest first",
    query: listCheckoutSessionsSchema,
    response: listPageJsonSchema("checkout_sessions", checkoutSessionJsonSchema),
    async handler({ ctx, query }) {
      const page = await listCheckoutSessions(ctx, { status: query.status, customerId: query.customer_id }, pageOfQuery(query));
      return {
        checkout_sessions: page.items.map((s) => checkoutSessionJson(s, ctx.config.publicUrl)),
        has_more: page.hasMore,
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/checkout-sessions/:id",
    operationId: "getCheckoutSession",
    summary: "Get a checkout session",
    response: checkoutSessionJsonSchema,
    async handler({ ctx, params }) {
      return checkoutSessionJson(await getCheckoutSession(ctx, params.id), ctx.config.publicUrl);
    },
  }),
];

import { type Route, created, ok } from "../../rest/router.ts";
import { parseInput } from "../../shared/validation.ts";
import { createCheckoutSessionSchema, listCheckoutSessionsSchema } from "./checkout-sessions.inputs.ts";
import { createCheckoutSession, getCheckoutSession, listCheckoutSessions } from "./checkout-sessions.service.ts";
import { checkoutSessionJson } from "./checkout-sessions.view.ts";

export const checkoutSessionRoutes: Route[] = [
  {
    method: "POST",
    path: "/checkout-sessions",
    async handler({ ctx, body }) {
      const session = await createCheckoutSession(ctx, parseInput(createCheckoutSessionSchema, body));
      return created(checkoutSessionJson(session, ctx.config.publicUrl));
    },
  },
  {
    method: "GET",
    path: "/checkout-sessions",
    async handler({ ctx, query }) {
      const page = await listCheckoutSessions(ctx, parseInput(listCheckoutSessionsSchema, query, "query"));
      return ok({
        checkout_sessions: page.items.map((s) => checkoutSessionJson(s, ctx.config.publicUrl)),
        has_more: page.hasMore,
      });
    },
  },
  {
    method: "GET",
    path: "/checkout-sessions/:id",
    async handler({ ctx, params }) {
      return ok(checkoutSessionJson(await getCheckoutSession(ctx, params.id!), ctx.config.publicUrl));
    },
  },
];

import { type Route, created, ok } from "../../rest/router.ts";
import { parseInput } from "../../shared/validation.ts";
import { createPaymentLinkSchema, listPaymentLinksSchema } from "./payment-links.inputs.ts";
import { createPaymentLink, getPaymentLink, listPaymentLinks, setPaymentLinkActive } from "./payment-links.service.ts";
import { paymentLinkJson } from "./payment-links.view.ts";

export const paymentLinkRoutes: Route[] = [
  {
    method: "POST",
    path: "/payment-links",
    async handler({ ctx, body }) {
      const link = await createPaymentLink(ctx, parseInput(createPaymentLinkSchema, body));
      return created(paymentLinkJson(link, ctx.config.publicUrl));
    },
  },
  {
    method: "GET",
    path: "/payment-links",
    async handler({ ctx, query }) {
      const page = await listPaymentLinks(ctx, parseInput(listPaymentLinksSchema, query, "query"));
      return ok({ payment_links: page.items.map((l) => paymentLinkJson(l, ctx.config.publicUrl)), has_more: page.hasMore });
    },
  },
  {
    method: "GET",
    path: "/payment-links/:id",
    async handler({ ctx, params }) {
      return ok(paymentLinkJson(await getPaymentLink(ctx, params.id!), ctx.config.publicUrl));
    },
  },
  {
    method: "POST",
    path: "/payment-links/:id/deactivate",
    bodyless: true,
    async handler({ ctx, params }) {
      return ok(paymentLinkJson(await setPaymentLinkActive(ctx, params.id!, false), ctx.config.publicUrl));
    },
  },
  {
    method: "POST",
    path: "/payment-links/:id/activate",
    bodyless: true,
    async handler({ ctx, params }) {
      return ok(paymentLinkJson(await setPaymentLinkActive(ctx, params.id!, true), ctx.config.publicUrl));
    },
  },
];

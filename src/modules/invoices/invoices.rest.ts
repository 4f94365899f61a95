import { type Route, created, ok } from "../../rest/router.ts";
import { parseInput } from "../../shared/validation.ts";
import { createInvoiceSchema, listInvoicesSchema } from "./invoices.inputs.ts";
import { createInvoice, finalizeInvoice, getInvoice, listInvoices, voidInvoice } from "./invoices.service.ts";
import { invoiceJson } from "./invoices.view.ts";

export const invoiceRoutes: Route[] = [
  {
    method: "POST",
    path: "/invoices",
    async handler({ ctx, body }) {
      return created(invoiceJson(await createInvoice(ctx, parseInput(createInvoiceSchema, body)), ctx.config.publicUrl));
    },
  },
  {
    method: "GET",
    path: "/invoices",
    async handler({ ctx, query }) {
      const page = await listInvoices(ctx, parseInput(listInvoicesSchema, query, "query"));
      return ok({ invoices: page.items.map((i) => invoiceJson(i, ctx.config.publicUrl)), has_more: page.hasMore });
    },
  },
  {
    method: "GET",
    path: "/invoices/:id",
    async handler({ ctx, params }) {
      return ok(invoiceJson(await getInvoice(ctx, params.id!), ctx.config.publicUrl));
    },
  },
  {
    method: "POST",
    path: "/invoices/:id/finalize",
    bodyless: true,
    async handler({ ctx, params }) {
      const { invoice, checkoutUrl } = await finalizeInvoice(ctx, params.id!);
      return ok({ invoice: invoiceJson(invoice, ctx.config.publicUrl), checkout_url: checkoutUrl });
    },
  },
  {
    method: "POST",
    path: "/invoices/:id/void",
    bodyless: true,
    async handler({ ctx, params }) {
      return ok(invoiceJson(await voidInvoice(ctx, params.id!), ctx.config.publicUrl));
    },
  },
];

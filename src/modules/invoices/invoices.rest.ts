import { z } from "zod";
import { NO_SETTLEMENT_WALLET } from "../../rest/openapi.ts";
import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { createInvoiceSchema, listInvoicesSchema } from "./invoices.inputs.ts";
import { createInvoice, finalizeInvoice, getInvoice, voidInvoice } from "./invoices.service.ts";
import { listInvoices } from "./invoices.store.ts";
import { invoiceJson, invoiceJsonSchema } from "./invoices.view.ts";

const finalizedInvoiceJsonSchema = z
  .object({ invoice: invoiceJsonSchema, checkout_url: z.url().meta({ description: "the checkout session's page" }) })
  .meta({ id: "FinalizedInvoice" });

export const invoiceRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/invoices",
    operationId: "createInvoice",
    summary: "Create a draft invoice",
    body: createInvoiceSchema,
    status: 201,
    response: invoiceJsonSchema,
    errors: { 400: NO_SETTLEMENT_WALLET },
    async handler({ ctx, body }) {
      return invoiceJson(await createInvoice(ctx, body), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/invoices",
    operationId: "listInvoices",
    summary: "List invoices, newest first",
    query: listInvoicesSchema,
    response: listPageJsonSchema("invoices", invoiceJsonSchema),
    async handler({ ctx, query }) {
      const page = await listInvoices(ctx, { status: query.status, customerId: query.customer_id }, pageOfQuery(query));
      return { invoices: page.items.map((i) => invoiceJson(i, ctx.config.publicUrl)), has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/invoices/:id",
    operationId: "getInvoice",
    summary: "Get an invoice",
    response: invoiceJsonSchema,
    async handler({ ctx, params }) {
      return invoiceJson(await getInvoice(ctx, params.id), ctx.config.publicUrl);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/invoices/:id/finalize",
    operationId: "finalizeInvoice",
    summary: "Open a draft invoice: creates its checkout session and payment",
    bodyless: true,
    response: finalizedInvoiceJsonSchema,
    errors: { 409: "The invoice is not a draft, or is past its due date" },
    async handler({ ctx, params }) {
      const { invoice, checkoutUrl } = await finalizeInvoice(ctx, params.id);
      return { invoice: invoiceJson(invoice, ctx.config.publicUrl), checkout_url: checkoutUrl };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/invoices/:id/void",
    operationId: "voidInvoice",
    summary: "Void a draft or open invoice (an open invoice's pending payment expires)",
    bodyless: true,
    response: invoiceJsonSchema,
    errors: { 409: "The invoice is neither draft nor open" },
    async handler({ ctx, params }) {
      return invoiceJson(await voidInvoice(ctx, params.id), ctx.config.publicUrl);
    },
  }),
];

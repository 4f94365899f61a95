import { z } from "zod";
import type { JsonSchema } from "../../shared/json-schemas.ts";
import { MAX_AMOUNT, MAX_STROOPS } from "../../shared/money.ts";
import { listQuerySchema } from "../../shared/pagination.ts";
import { amountSchema, descriptionSchema, idInputSchema, metadataSchema } from "../../shared/validation.ts";

export const INVOICE_STATUSES = ["draft", "open", "paid", "void"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

const invoiceItemSchema = z.strictObject({
  description: z.string().min(1).max(500),
  /** whole units, as a string like the spec's other numbers */
  quantity: z.string().regex(/^[1-9]\d{0,8}$/, { error: "must be a whole number from 1 to 999999999, as a string" }).max(9),
  unit_amount: amountSchema,
});

/** When the invoice is due, counted from its creation, when the request does not say. */
export const DEFAULT_DUE_IN_DAYS = 30;

/**
 * `amount` must equal the sum of quantity x unit_amount when items are given; with items alone the
 * sum is the amount. The document declares that one of the two is required (each branch with its
 * own properties, for generated clients); the sum is a rule JSON Schema cannot state.
 */
export const createInvoiceSchema = z
  .strictObject({
    amount: amountSchema.optional().meta({ description: "required unless items are given; with items, their sum of quantity x unit_amount" }),
    customer_id: idInputSchema.nullable().optional(),
    description: descriptionSchema.optional(),
    metadata: metadataSchema.optional(),
    due_in_days: z.number().int().min(1).max(365).optional().meta({ default: DEFAULT_DUE_IN_DAYS, format: "int32" }),
    items: z.array(invoiceItemSchema).min(1).max(100).optional(),
  })
  // Written in place, as the create-payment body is (see there): due_in_days stays optional in generated clients.
  .meta({
    override: ({ jsonSchema }) => {
      const { amount, items } = jsonSchema.properties as { amount: JsonSchema; items: JsonSchema };
      // Two exclusive forms (amount alone; items, with their amount or without), inside allOf:
      // openapi-typescript joins an allOf to the properties with &, a bare anyOf or oneOf with |.
      jsonSchema.allOf = [{ oneOf: [{ properties: { amount, items: false }, required: ["amount"] }, { properties: { items }, required: ["items"] }] }];
    },
  })
  .transform((body, ctx) => {
    const itemsTotal = body.items?.reduce((sum, item) => sum + BigInt(item.quantity) * item.unit_amount, 0n);
    if (itemsTotal !== undefined && itemsTotal > MAX_STROOPS) {
      ctx.addIssue({ code: "custom", path: ["items"], message: `total of quantity x unit_amount must be at most ${MAX_AMOUNT}` });
      return z.NEVER;
    }
    if (body.amount === undefined && itemsTotal === undefined) {
      ctx.addIssue({ code: "custom", path: ["amount"], message: "is required" });
      return z.NEVER;
    }
    if (body.amount !== undefined && itemsTotal !== undefined && body.amount !== itemsTotal) {
      ctx.addIssue({ code: "custom", path: ["amount"], message: "must equal the sum of items quantity x unit_amount" });
      return z.NEVER;
    }
    return { ...body, amount: (body.amount ?? itemsTotal)! };
  });

export type CreateInvoiceInput = z.output<typeof createInvoiceSchema>;

export const listInvoicesSchema = listQuerySchema({
  status: z.enum(INVOICE_STATUSES).optional(),
  customer_id: idInputSchema.min(1).optional(),
});

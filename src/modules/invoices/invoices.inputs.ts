import { z } from "zod";
import { MAX_AMOUNT, MAX_STROOPS } from "../../shared/money.ts";
import { listQuerySchema } from "../../shared/pagination.ts";
import { amountSchema, descriptionSchema, metadataSchema } from "../../shared/validation.ts";

export const INVOICE_STATUSES = ["draft", "open", "paid", "void"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

const invoiceItemSchema = z.strictObject({
  description: z.string().min(1).max(500),
  /** whole units, as a string like the spec's other numbers */
  quantity: z.string().regex(/^[1-9]\d{0,8}$/, { error: "must be a whole number from 1 to 999999999, as a string" }),
  unit_amount: amountSchema,
});

/**
 * `amount` must equal the sum of quantity x unit_amount when items are given; with items alone the
 * sum is the amount.
 */
export const createInvoiceSchema = z
  .strictObject({
    amount: amountSchema.optional(),
    customer_id: z.string().nullable().optional(),
    description: descriptionSchema.optional(),
    metadata: metadataSchema.optional(),
    due_in_days: z.number().int().min(1).max(365).optional(),
    items: z.array(invoiceItemSchema).min(1).max(100).optional(),
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
  customer_id: z.string().min(1).optional(),
});
